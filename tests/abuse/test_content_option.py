"""One POST must not freeze a node.

Chinese Squared's `content` option used to be checked with quadratic work on the event loop
(3,000 characters: 19 s with /health blocked) and again on every replay, load and fork. Now a
content set is bounded (docs/games/hieroglyphs.md), checked in linear time off the event loop
at creation, and a node checks one content set once."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from service.games.hieroglyphs import data
from tests.support.big_content import big_content
from tests.support.server import ServerProcess


@pytest.fixture(scope="module")
def roomy_server(tmp_path_factory):
    """A server whose operator allows options as large as a request body (service/ops/limits.py),
    so that the engine's own content limits are what is tested."""
    work = tmp_path_factory.mktemp("content")
    proc = ServerProcess(f"sqlite:{work / 'data'}", work / "server.log")
    proc.env = {"TEAHOUSE_OPTIONS_MAX_BYTES": str(1 << 20)}
    proc.start()
    yield proc
    proc.stop()


async def _health_while(url: str, request) -> tuple[httpx.Response, float]:
    """Send `request` and poll /health meanwhile; return its answer and the slowest /health."""
    slowest = 0.0
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        task = asyncio.create_task(request(http))
        while not task.done():
            t0 = time.perf_counter()
            assert (await http.get("/health")).status_code == 200
            slowest = max(slowest, time.perf_counter() - t0)
            await asyncio.sleep(0.01)
        return await task, slowest


async def test_an_oversized_content_set_is_refused_at_once(roomy_server):
    content = big_content(3000)  # the 3,000 characters (about 290 KiB)

    async def create(http):
        return await http.post("/api/matches", json={"game": "hieroglyphs", "players": 2,
                                                      "options": {"content": content}})

    t0 = time.perf_counter()
    r, slowest = await _health_while(roomy_server.url, create)
    took = time.perf_counter() - t0
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_options"
    assert f"at most {data.MAX_CONTENT_CHARACTERS} characters" in r.json()["error"]["message"]
    assert took < 3 and slowest < 3, (took, slowest)  # it used to take 19 s, /health blocked


async def test_the_largest_accepted_content_set_is_created_replayed_and_forked(roomy_server):
    content = big_content(data.MAX_CONTENT_CHARACTERS)

    async def create(http):
        return await http.post("/api/matches", json={"game": "hieroglyphs", "players": 2,
                                                      "options": {"content": content}})

    r, slowest = await _health_while(roomy_server.url, create)
    assert r.status_code == 201, r.text
    assert slowest < 3
    mid = r.json()["match"]
    async with httpx.AsyncClient(base_url=roomy_server.url, timeout=60) as http:
        for _ in range(2):
            assert (await http.post(f"/api/matches/{mid}/seats", json={})).status_code == 201
        rep = await http.get(f"/api/matches/{mid}/replay")
        assert rep.status_code == 200 and rep.json()["seq"] == 1


def test_one_content_set_is_checked_once_per_node():
    content = big_content(120)
    from service.games import get_game

    g = get_game("hieroglyphs")
    before = data.content_checks()
    g.initial({"content": content}, 2)
    g.initial({"content": content}, 3)  # a load, a replay, a fork: the same content set
    g.initial({"content": big_content(120)}, 2)  # equal, not the same object
    assert data.content_checks() - before == 1


def test_the_documented_limits_are_the_engines():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "hieroglyphs.md").read_text()
    assert (f"at most {data.MAX_CONTENT_CHARACTERS} characters and {data.MAX_CONTENT_TASKS} tasks, at most "
            f"{data.MAX_CONTENT_TEXT} code points") in " ".join(doc.split())
    assert f"at most {data.MAX_TASK_ANSWER} characters in a task's answer" in " ".join(doc.split())
