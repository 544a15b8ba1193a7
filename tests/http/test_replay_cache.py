"""Replays (SPEC 2.8): a finished match's replay at a seq never changes, so it is answered with a
strong ETag and `Cache-Control: ..., immutable`, and 304 to a client that has it (RFC 9110
13.1.2, RFC 9111, RFC 8246); a live match's replay is folded anew each time, so one client
address may ask for only so many a minute (429 `rate_limited` with Retry-After, like creations).
Who may read a match is still checked on every request. A real server process on SQLite."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.support.server import sqlite_server

LIVE_PER_MINUTE = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"TEAHOUSE_LIVE_REPLAYS_PER_ADDRESS_PER_MINUTE": str(LIVE_PER_MINUTE)}
    with sqlite_server(tmp_path_factory.mktemp("replays"), env) as proc:
        yield proc


def finished_match(server, **extra) -> dict:
    """A pixies match of two server bots, played to its end by the server."""
    body = {"game": "pixies", "players": 2, "bots": [{"seat": 0, "strength": 0}, {"seat": 1, "strength": 0}], **extra}
    created = httpx.post(server.url + "/api/matches", json=body)
    assert created.status_code == 201, created.text
    match = created.json()
    key = {"key": match["spectator_key"]} if "spectator_key" in match else {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        summary = httpx.get(f"{server.url}/api/matches/{match['match']}", params=key).json()
        if summary["state"] == "finished":
            return {**match, **summary}
        time.sleep(0.2)
    raise AssertionError("the bots did not finish the match")


def replay(server, mid: str, **params) -> httpx.Response:
    headers = params.pop("headers", {})
    return httpx.get(f"{server.url}/api/matches/{mid}/replay", params=params, headers=headers)


def replays_counted(server, how: str) -> float:
    found = re.search(rf'^teahouse_replays_total{{how="{how}"}} (\S+)$', httpx.get(server.url + "/metrics").text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_finished_replay_has_an_etag_is_immutable_and_answers_304(server):
    m = finished_match(server)
    mid = m["match"]
    first = replay(server, mid, seq=3)
    assert first.status_code == 200 and first.json()["seq"] == 3 and first.json()["seat"] is None
    etag = first.headers["etag"]
    assert re.fullmatch(r'"[^"]+"', etag)  # strong: a byte-for-byte identical body
    cache_control = [part.strip() for part in first.headers["cache-control"].split(",")]
    assert "public" in cache_control and "immutable" in cache_control
    assert int(next(p for p in cache_control if p.startswith("max-age=")).split("=")[1]) >= 86_400

    hits = replays_counted(server, "hit")
    again = replay(server, mid, seq=3)
    assert again.content == first.content and again.headers["etag"] == etag
    assert replays_counted(server, "hit") == hits + 1

    for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        not_modified = replay(server, mid, seq=3, headers={"If-None-Match": sent})
        assert not_modified.status_code == 304, sent
        assert not_modified.content == b"" and not_modified.headers["etag"] == etag
        assert "immutable" in not_modified.headers["cache-control"]
    assert replay(server, mid, seq=3, headers={"If-None-Match": '"other"'}).status_code == 200

    # another seq, another audience: another body and another tag
    assert replay(server, mid, seq=4).headers["etag"] != etag
    seat0 = replay(server, mid, seq=3, seat=0)
    assert seat0.status_code == 200 and seat0.json()["seat"] == 0 and seat0.headers["etag"] != etag
    # the last seq, asked without seq, is the same document as asked with it
    top = m["seq"]
    assert replay(server, mid).headers["etag"] == replay(server, mid, seq=top).headers["etag"]


def test_finished_replays_are_not_rate_limited(server):
    mid = finished_match(server)["match"]
    answers = [replay(server, mid, seq=n % 5).status_code for n in range(LIVE_PER_MINUTE * 4)]
    assert answers == [200] * len(answers)


def test_a_match_watched_by_link_is_cached_privately_and_still_needs_its_key(server):
    m = finished_match(server, spectators="link", listed=False)
    mid, key = m["match"], m["spectator_key"]
    with_key = replay(server, mid, seq=2, key=key)
    assert with_key.status_code == 200
    cache_control = [part.strip() for part in with_key.headers["cache-control"].split(",")]
    assert "private" in cache_control and "public" not in cache_control and "immutable" in cache_control
    # the body is cached now, and still refused without the key (even to a client naming its tag)
    for headers in ({}, {"If-None-Match": with_key.headers["etag"]}):
        refused = replay(server, mid, seq=2, headers=headers)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "spectator_key"
        assert "etag" not in refused.headers


def test_live_replays_are_limited_per_address_with_429(server):
    created = httpx.post(server.url + "/api/matches", json={"game": "pixies", "players": 2})
    mid = created.json()["match"]
    httpx.post(f"{server.url}/api/matches/{mid}/seats", json={"seat": 0})
    httpx.post(f"{server.url}/api/matches/{mid}/seats", json={"seat": 1})  # live now, at seq 1
    # (the other tests of this module ask only for finished replays, which are not counted)
    answers = [replay(server, mid) for _ in range(LIVE_PER_MINUTE)]
    assert [a.status_code for a in answers] == [200] * LIVE_PER_MINUTE
    assert "etag" not in answers[0].headers and "immutable" not in answers[0].headers.get("cache-control", "")
    refused = replay(server, mid)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    # refusals for access are answered before any counting: a finished match still answers
    assert replay(server, finished_match(server)["match"], seq=1).status_code == 200
