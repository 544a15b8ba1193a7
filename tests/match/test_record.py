"""Game records (SPEC 2.13) built from engine playouts: the canonical encoding is the one the SPEC
spells out, a fork's record verifies under its two seeds (10.5), and the JS verifier reads it."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess

from service.games import fold, get_game
from service.games.chance import commit_rng, seed_commitment
from service.games.playout import playout
from service.match.record import canonical, encode, state_hash
from service.match.verify import read_lines, verify
from service.store import Commit, MatchRecord
from tests.support.server import ROOT

NODE = shutil.which("node") or "/usr/bin/node"
ORIGIN, FORK = "a1" * 32, "b2" * 32


def test_the_canonical_encoding_is_the_specs():
    # 2.13: keys by code point, no whitespace, UTF-8 as itself, only JSON's own escapes.
    value = {"b": [1, -2, True, None], "a": "é\n\"\\\u0001", "A": {"z": "中", "é": 0}}
    text = '{"A":{"z":"中","é":0},"a":"é\\n\\"\\\\\\u0001","b":[1,-2,true,null]}'
    assert canonical(value) == text.encode("utf-8")
    assert state_hash(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def fork_record(game_id: str, players: int, at: int) -> tuple[MatchRecord, list[Commit]]:
    """A fork at `at` of a playout under ORIGIN, redealt and played on to the end under FORK."""
    g = get_game(game_id)
    origin = list(playout(g, players, ORIGIN))[:at]
    commits = [Commit(seq=s.seq, seat=s.seat, command=s.command, events=s.events) for s in origin]
    state = origin[-1].after
    pick = random.Random(7)
    seq = at + 1
    command: dict = {"type": "redeal"}
    seat = None
    while True:
        events = g.decide(state, seat, command, commit_rng(FORK, seq))
        commits.append(Commit(seq=seq, seat=seat, command=command, events=events))
        state = fold(g, events, state)
        status = g.status(state)
        if status["finished"]:
            break
        seat = pick.choice(status["to_act"])
        command = pick.choice(g.legal_moves(state, seat))
        seq += 1
    rec = MatchRecord(id="fork", game=game_id, players=players, options={}, listed=True, seed=FORK,
                      seed_sha256=seed_commitment(FORK), created=0, finished=True,
                      forked_from={"match": "origin", "seq": at, "seed": ORIGIN, "exact": False})
    return rec, commits


def test_a_forks_record_verifies_under_its_two_seeds(tmp_path):
    rec, commits = fork_record("pixies", 3, 20)
    text = encode(rec, commits).decode()
    assert verify(read_lines(text)).ok
    # Under one seed alone the origin's part no longer decides to its events.
    lines = read_lines(text)
    lines[0]["forked_from"]["seed"] = FORK
    verdict = verify(lines)
    assert not verdict.ok and verdict.seq == 1
    # The JS verifier re-runs the origin's markets under the origin's seed, the fork's under its own.
    verdict_js = js_verify(tmp_path, text)
    assert verdict_js["ok"] is True
    assert 1 in verdict_js["checked"] and max(verdict_js["checked"]) > 21


def test_a_record_that_stops_short_is_refused():
    rec, commits = fork_record("khan", 2, 5)
    lines = read_lines(encode(rec, commits).decode())[:-3]
    verdict = verify(lines)
    assert not verdict.ok and "announces" in verdict.reason


def js_verify(tmp_path, text: str) -> dict:
    path = tmp_path / "record.jsonl"
    path.write_text(text)
    script = ('import { readFileSync } from "node:fs";\n'
              f'import {{ verifyChance }} from "{(ROOT / "clients" / "js" / "verify.js").as_uri()}";\n'
              'process.stdout.write(JSON.stringify(verifyChance(readFileSync(process.argv[1], "utf8"))));\n')
    run = subprocess.run([NODE, "--input-type=module", "-e", script, str(path)], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(run.stdout)


def playout_record(game_id: str, players: int, options: dict) -> list[dict]:
    g = get_game(game_id)
    commits = [Commit(seq=s.seq, seat=s.seat, command=s.command, events=s.events)
               for s in playout(g, players, ORIGIN, options)]
    rec = MatchRecord(id="m", game=game_id, players=players, options=options, listed=True, seed=ORIGIN,
                      seed_sha256=seed_commitment(ORIGIN), created=0, finished=True)
    return read_lines(encode(rec, commits).decode())


def test_the_js_verifier_re_runs_meaning_claims_and_mornings(tmp_path):
    # 10.6 [JS]: every Chinese Squared claim's options, every Gùgōng morning's dice.
    for game_id, event_type, options in [("hieroglyphs", "card_played", {"mode": "rounds", "round_limit": 3}),
                                         ("gugong", "dice_rolled", {})]:
        lines = playout_record(game_id, 3, options)
        drawing = [c["seq"] for c in lines[1:] if c["seq"] > 1 and any(
            e["type"] == event_type and e.get("claim", True) for e in c["events"])]
        assert drawing, f"{game_id}: the playout has no {event_type}"
        verdict = js_verify(tmp_path, "".join(json.dumps(x) + "\n" for x in lines))
        assert verdict["ok"] is True, verdict
        assert set(drawing) <= set(verdict["checked"]) | {
            c["seq"] for c in lines[1:] if any(e["type"] == "travel_discard_reshuffled" for e in c["events"])}
        last = lines[drawing[-1]]
        event = next(e for e in last["events"] if e["type"] == event_type)
        if event_type == "dice_rolled":
            event["dice"][0] += 1
        else:
            event["challenge"]["options"].reverse()
        verdict = js_verify(tmp_path, "".join(json.dumps(x) + "\n" for x in lines))
        assert verdict["ok"] is False and verdict["seq"] == drawing[-1], verdict
        assert verify(lines).seq == drawing[-1]
