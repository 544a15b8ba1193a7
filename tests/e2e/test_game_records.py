"""Game records (SPEC 2.13) that a real server wrote, checked without it: every game is played to
its end by server bots on each store, its record fetched from GET /api/matches/{id}/record and
verified by `teahouse verify` (re-decides every commit from the seed, checks every state hash)
and by the JS verifier in Node (re-runs every draw SPEC 10.6 lists). A changed event is named
at its seq by both, a wrong seed fails the commitment, and a live match has no record."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from teahouse_client import ServerError, TeahouseClient

from service.games import GAMES, get_game
from tests.support.server import ROOT, ServerProcess

NODE = shutil.which("node") or "/usr/bin/node"
SHORT = {"hieroglyphs": {"mode": "rounds", "round_limit": 2}}
JS_VERIFY = (
    'import { readFileSync } from "node:fs";\n'
    f'import {{ verifyChance }} from "{(ROOT / "clients" / "js" / "verify.js").as_uri()}";\n'
    'process.stdout.write(JSON.stringify(verifyChance(readFileSync(process.argv[1], "utf8"))));\n'
)


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def records(request, tmp_path_factory) -> dict[str, list[dict]]:
    """One finished bot match of every game on a server over that store, as record lines."""
    tmp = tmp_path_factory.mktemp(f"records-{request.param}")
    url = f"sqlite:{tmp / 'data'}" if request.param == "sqlite" else request.getfixturevalue("redis_server").url
    proc = ServerProcess(url, tmp / "server.log").start()
    try:
        return asyncio.run(_play_all(proc.url))
    finally:
        proc.stop()


async def _play_all(url: str) -> dict[str, list[dict]]:
    client = TeahouseClient(url)
    try:
        matches = {}
        for game_id in GAMES:
            players = get_game(game_id).min_players
            matches[game_id] = await client.create_match(game_id, players, SHORT.get(game_id, {}),
                                                         bots={s: 0 for s in range(players)})
        out: dict[str, list[dict]] = {}
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            for game_id, m in matches.items():
                for _ in range(600):
                    if (await client.match(m["match"]))["state"] == "finished":
                        break
                    await asyncio.sleep(0.1)
                r = await http.get(f"/api/matches/{m['match']}/record")
                assert r.status_code == 200, r.text
                assert r.headers["content-type"].startswith("application/x-ndjson")
                out[game_id] = [json.loads(line) for line in r.text.splitlines()]
                # the SDK's record() is the same file, byte for byte
                assert await client.record(m["match"]) == r.text
        return out
    finally:
        await client.aclose()


def write(tmp_path: Path, lines: list[dict], name: str = "record.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def teahouse_verify(path: Path) -> tuple[int, str]:
    run = subprocess.run([sys.executable, "-m", "service.cli", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout + run.stderr


def js_verify(path: Path) -> dict:
    run = subprocess.run([NODE, "--input-type=module", "-e", JS_VERIFY, str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_record_is_a_header_then_one_line_per_commit(records):
    for game_id, lines in records.items():
        head, commits = lines[0], lines[1:]
        assert head["format"] == "teahouse.record" and head["version"] == 1 and head["game"] == game_id
        assert head["commits"] == len(commits) > 1 and [c["seq"] for c in commits] == list(range(1, len(commits) + 1))
        assert head["result"] is not None and len(head["seed"]) == 64
        assert commits[0]["command"] == {"type": "start"} and commits[0]["seat"] is None
        assert all(len(c["state_sha256"]) == 64 for c in commits)


@pytest.mark.parametrize("game_id", GAMES)
def test_both_verifiers_accept_the_servers_record(records, game_id, tmp_path):
    path = write(tmp_path, records[game_id])
    code, out = teahouse_verify(path)
    assert code == 0, out
    assert f"{len(records[game_id]) - 1} commits" in out
    verdict = js_verify(path)
    assert verdict["ok"] is True, verdict
    assert verdict["checked"][0] == 1  # the start's draws, every game


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_draw_is_named_at_its_seq_by_both(records, game_id, tmp_path):
    lines = json.loads(json.dumps(records[game_id]))
    # The last commit with a draw the JS verifier re-runs: for Pixies a later market, else the start.
    seq = js_verify(write(tmp_path, lines, "clean.jsonl"))["checked"][-1]
    assert seq > 1 or game_id != "pixies", "Pixies draws a market every turn"
    tamper(lines[seq]["events"])
    path = write(tmp_path, lines)
    code, out = teahouse_verify(path)
    assert code == 1 and f"seq {seq}:" in out, out
    verdict = js_verify(path)
    assert verdict["ok"] is False and verdict["seq"] == seq, verdict


def tamper(events: list[dict]) -> None:
    """Change one drawn outcome (SPEC 10.6) in a commit's events."""
    for e in events:
        if e["type"] == "dice_rolled":
            e["dice"][0] += 1
            return
        if e["type"] == "card_played" and e.get("claim"):
            options = e["challenge"]["options"]
            options[0], options[1] = options[1], options[0]
            return
        field = next((k for k in ("cards", "order", "deck_order", "draw_pile") if k in e), None)
        if field is not None and e["type"] in ("market_revealed", "game_started", "setup_shuffled"):
            e[field][0], e[field][-1] = e[field][-1], e[field][0]
            return
    raise AssertionError(f"no drawn outcome among {[e['type'] for e in events]}")


def test_a_changed_move_or_state_hash_is_named_by_teahouse_verify(records, tmp_path):
    lines = json.loads(json.dumps(records["khan"]))
    lines[5]["state_sha256"] = "0" * 64
    code, out = teahouse_verify(write(tmp_path, lines))
    assert code == 1 and "seq 5: the state hash differs" in out, out
    lines = json.loads(json.dumps(records["pixies"]))
    taken = next(c for c in lines[1:] if c["command"]["type"] == "take_card")
    event = next(e for e in taken["events"] if e["type"] == "card_taken")
    event["cell"] = (event["cell"] + 1) % 9
    code, out = teahouse_verify(write(tmp_path, lines))
    assert code == 1 and f"seq {taken['seq']}: the events are not what the rules decide" in out, out


@pytest.mark.parametrize("game_id", ["pixies", "hieroglyphs"])
def test_a_wrong_seed_fails_the_commitment_in_both(records, game_id, tmp_path):
    lines = json.loads(json.dumps(records[game_id]))
    lines[0]["seed"] = lines[0]["seed"][::-1]
    path = write(tmp_path, lines)
    code, out = teahouse_verify(path)
    assert code == 1 and "seq 0: the seed does not match the seed_sha256" in out, out
    verdict = js_verify(path)
    assert verdict["ok"] is False and verdict["seq"] == 0 and "seed_sha256" in verdict["reason"]


def test_an_unreadable_file_is_one_line_not_a_traceback(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    code, out = teahouse_verify(path)
    assert code == 2 and "cannot read" in out and "Traceback" not in out


async def test_a_live_match_has_no_record(server):
    client = TeahouseClient(server.url)
    m = await client.create_match("pixies", 2)
    async with httpx.AsyncClient(base_url=server.url) as http:
        r = await http.get(f"/api/matches/{m['match']}/record")
        assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"
        r = await http.get("/api/matches/nosuchmatch0/record")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_match"
    with pytest.raises(ServerError) as live:
        await client.record(m["match"])
    assert live.value.code == "match_live"
    await client.aclose()
