"""Analysis after the end (SPEC 2.14) over HTTP, on a real server with `--analysis` (set through
its environment, TEAHOUSE_ANALYSIS): every seat's chance at every commit of a finished match, the
key moments, 202 while queued, 404 `no_analysis` where the server does not analyse, 409 while
the match is live, in the record once made, and picked up after a restart (the queue is the
finished matches the store holds without an analysis)."""

from __future__ import annotations

import json
import math
import time

import httpx
import pytest

from service.bots import chances
from tests.e2e.helpers import finished_bot_match
from tests.e2e.test_game_records import js_verify, teahouse_verify
from tests.support.server import ServerProcess

PLAYOUTS = 4
ON = {"TEAHOUSE_ANALYSIS": "1", "TEAHOUSE_ANALYSIS_PLAYOUTS": str(PLAYOUTS)}


def analysis_of(http: httpx.Client, match: str, timeout: float = 90) -> tuple[dict, list[dict]]:
    """Poll until the analysis is made; return it and the 202 answers seen on the way."""
    waits = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = http.get(f"/api/matches/{match}/analysis")
        if r.status_code == 200:
            return r.json(), waits
        assert r.status_code == 202, r.text
        waits.append({**r.json(), "retry_after": r.headers.get("retry-after")})
        time.sleep(0.2)
    raise AssertionError(f"{match}: no analysis in {timeout} s")


@pytest.fixture
def analysing(tmp_path):
    proc = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "server.log")
    proc.env = dict(ON)
    proc.start()
    yield proc
    proc.stop()


def test_a_finished_match_gets_every_seats_chance_at_every_commit(analysing, tmp_path):
    with httpx.Client(base_url=analysing.url, timeout=10) as http:
        summary = finished_bot_match(http, "pixies", 3)
        match, last, players = summary["match"], summary["seq"], 3
        doc, waits = analysis_of(http, match)
        for w in waits:  # a queued analysis says so, and when to ask again
            assert w["match"] == match and w["state"] == "queued" and isinstance(w["ahead"], int)
            assert w["retry_after"] is not None and int(w["retry_after"]) >= 1
        assert doc["match"] == match and doc["seq"] == last and doc["playouts"] == PLAYOUTS
        rows = doc["chances"]
        assert len(rows) == last + 1 and all(len(r) == players for r in rows)
        assert all(0 <= p <= 1 for r in rows for p in r)
        assert all(math.isclose(sum(r), 1, abs_tol=1e-5) for r in rows), "each row shares one win"
        assert rows[0] == [pytest.approx(1 / players)] * players, "before the start nobody is ahead"
        winners = summary["result"]["winners"]
        assert rows[-1] == [pytest.approx(1 / len(winners) if s in winners else 0) for s in range(players)]
        # an estimate is a share of PLAYOUTS playouts, each won by one seat or split among winners
        assert all(math.isclose(p * PLAYOUTS * 6, round(p * PLAYOUTS * 6), abs_tol=1e-3) for r in rows[1:-1] for p in r)
        # key moments: at most 3, the largest swings beyond the playouts' noise, in seq order
        swing = {n: max(abs(a - b) for a, b in zip(rows[n - 1], rows[n], strict=True)) for n in range(1, last + 1)}
        moments = doc["key_moments"]
        assert len(moments) <= 3 and [m["seq"] for m in moments] == sorted(m["seq"] for m in moments)
        floor = math.sqrt(2 / PLAYOUTS)
        for m in moments:
            assert m["swing"] == pytest.approx(swing[m["seq"]], abs=1e-5) and m["swing"] >= floor - 1e-9
            deltas = [a - b for a, b in zip(rows[m["seq"]], rows[m["seq"] - 1], strict=True)]
            assert deltas[m["for"]] == pytest.approx(max(deltas), abs=1e-5)
        eligible = sorted((s for s in swing.values() if s >= floor), reverse=True)
        assert sorted((m["swing"] for m in moments), reverse=True) == pytest.approx(eligible[:3], abs=1e-5)
        # deterministic from the revealed seed and the public log: anyone can re-run it
        log = http.get(f"/api/matches/{match}/log").json()
        again = chances.analyse("pixies", log["options"], players, log["rules_version"],
                                [{"seq": c["seq"], "seat": c["seat"], "events": c["events"]} for c in log["commits"]],
                                log["seed"], PLAYOUTS)
        assert again["chances"] == rows and again["key_moments"] == moments
        # the record carries it in its header once made, and both verifiers still accept it
        text = http.get(f"/api/matches/{match}/record").text
        assert json.loads(text.splitlines()[0])["analysis"] == doc
        path = tmp_path / "analysed.jsonl"
        path.write_text(text)
        code, out = teahouse_verify(path)
        assert code == 0, out
        assert js_verify(path)["ok"] is True


def test_a_match_is_queued_when_it_finishes_without_anyone_asking(analysing):
    """The node that sees a match finish queues it at once (not at its next scan, a minute away)."""
    with httpx.Client(base_url=analysing.url, timeout=10) as http:
        match = finished_bot_match(http)["match"]
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            header = json.loads(http.get(f"/api/matches/{match}/record").text.splitlines()[0])
            if "analysis" in header:
                break
            time.sleep(0.3)
        assert "analysis" in header, "not analysed within 40 s of its end"
        assert header["analysis"]["seq"] == header["commits"]


def test_a_live_or_unknown_match_has_no_analysis(analysing):
    with httpx.Client(base_url=analysing.url, timeout=10) as http:
        match = http.post("/api/matches", json={"game": "pixies", "players": 2}).json()["match"]
        r = http.get(f"/api/matches/{match}/analysis")
        assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"
        r = http.get("/api/matches/nosuchmatch1/analysis")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_match"


def test_off_by_default_then_resumed_after_a_restart_with_analysis_on(tmp_path):
    proc = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "server.log")
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            done = [finished_bot_match(http)["match"] for _ in range(2)]
            r = http.get(f"/api/matches/{done[0]}/analysis")
            assert r.status_code == 404 and r.json()["error"]["code"] == "no_analysis"
            header = json.loads(http.get(f"/api/matches/{done[0]}/record").text.splitlines()[0])
            assert "analysis" not in header
    finally:
        proc.stop()
    # the same store, analysis on: nobody asks, and both are analysed (the queue is the store's)
    proc.env = dict(ON)
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            deadline = time.monotonic() + 90
            pending = set(done)
            while pending and time.monotonic() < deadline:
                time.sleep(0.3)
                # (the record, unlike GET .../analysis, queues nothing: it only shows what is made)
                pending = {m for m in pending
                           if "analysis" not in json.loads(http.get(f"/api/matches/{m}/record").text.splitlines()[0])}
            assert not pending, f"not analysed after the restart: {pending}"
    finally:
        proc.stop()


def test_a_node_stopping_mid_analysis_ends_at_once_and_keeps_nothing_half_made(tmp_path):
    proc = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "server.log")
    proc.env = {"TEAHOUSE_ANALYSIS": "1", "TEAHOUSE_ANALYSIS_PLAYOUTS": "100000"}  # minutes of work
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            match = finished_bot_match(http)["match"]
            assert http.get(f"/api/matches/{match}/analysis").status_code == 202
            time.sleep(1.5)  # the worker is busy with it now
        _, seconds = proc.terminate()  # (uvicorn re-raises SIGTERM once it has shut down)
        assert seconds < 8, f"the node took {seconds:.1f} s to stop"
    finally:
        proc.stop()
    proc.env = {}
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            r = http.get(f"/api/matches/{match}/analysis")
            assert r.status_code == 404 and r.json()["error"]["code"] == "no_analysis"
    finally:
        proc.stop()
