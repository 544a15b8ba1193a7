"""What several end-to-end tests share: seating bots, resilient play, checking frames."""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import msgpack
import websockets
from teahouse_client import Connection, MatchView, TeahouseClient
from teahouse_client.bot import play_seat

from protocol.v2 import Expander, decode_frame
from service.games import get_game
from service.games.chance import commit_rng
from tests.support.hidden import forbidden


async def seat_players(client: TeahouseClient, match: str, players: int, record: bool = True):
    seats = [await client.take_seat(match, name=f"p{i}") for i in range(players)]
    conns = [await client.connect(record=record).open() for _ in range(players)]
    views = [await c.join(match, s["token"]) for c, s in zip(conns, seats, strict=True)]
    return seats, conns, views


async def play_resilient(conn: Connection, match: str, rng: random.Random, deadline: float = 90) -> None:
    """Play to the end; when the server goes away, reconnect and resume from the last seq."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while True:
        try:
            await play_seat(conn, conn.matches[match], rng)
            return
        except (ConnectionError, websockets.ConnectionClosed, OSError, TimeoutError):
            while True:
                if loop.time() > end:
                    raise
                await asyncio.sleep(0.2)
                try:
                    await conn.reconnect()
                    break
                except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed,
                        ConnectionError, TimeoutError):
                    continue


def states_by_seq(game_id: str, players: int, options: dict, commits: list[dict]) -> list[dict]:
    g = get_game(game_id)
    state = g.initial(options, players)
    states = [state]
    for c in commits:
        for e in c["events"]:
            state = g.evolve(state, e)
        states.append(state)
    return states


def assert_no_leaks(game_id: str, players: int, states: list[dict], audience: int | None,
                    frames: list[bytes]) -> int:
    """No frame sent to `audience` carries a secret of another audience (or of nobody) at that
    frame's seq. Returns how many (frame, secret) pairs were checked, so a test can insist the
    canary really flew."""
    g = get_game(game_id)
    checked = 0
    expander = Expander()
    for raw in frames:
        # protocol v2 sends patches, acks and finished as arrays [4 ref + kind, seq, ...] (SPEC
        # §12), in msgpack their elements one after another
        msg = decode_frame(raw, "msgpack")
        seq = msg.get("seq") if isinstance(msg, dict) else msg[1]
        told = expander.expand(msg)  # as v1 maps: a v2 patch carries `said` as its trailing array
        if not isinstance(seq, int) or seq >= len(states):
            continue
        state = states[seq]
        said = told.get("said") or [] if told.get("type") == "patch" else []
        for other in [*range(players), None]:
            for secret in g.secrets(state, other):
                token = msgpack.packb(secret)
                if other is None or other != audience:
                    checked += 1
                    assert token not in raw, f"{secret!r} (of {other}) leaked to {audience} at seq {seq}"
                # The sentences go to every audience alike: they hold nobody's secret, not
                # even inside a longer sentence.
                if said:
                    checked += 1
                    assert not any(secret in s for s in said), f"{secret!r} (of {other}) told at seq {seq}: {said}"
        # and what the spec hides, independently of the engine's declaration (tests/support/hidden.py)
        for secret in forbidden(game_id, state, audience):
            checked += 1
            assert msgpack.packb(secret) not in raw, f"{secret!r} reached {audience} at seq {seq} over the wire"
    return checked


def assert_log_verifies(game_id: str, players: int, options: dict, log: dict) -> None:
    """Anyone holding the revealed seed can re-run decide and get the logged events."""
    import hashlib

    assert hashlib.sha256(log["seed"].encode()).hexdigest() == log["seed_sha256"]
    g = get_game(game_id)
    state = g.initial(options, players)
    for i, c in enumerate(log["commits"], start=1):
        assert c["seq"] == i
        events = g.decide(state, c["seat"], c["command"], commit_rng(log["seed"], c["seq"]))
        assert events == c["events"], f"commit {i} does not re-decide to its events"
        for e in events:
            state = g.evolve(state, e)


async def close_all(*conns: Connection) -> None:
    for c in conns:
        await c.close()


def doc_of(view: MatchView) -> dict:
    return {"view": view.view, "status": view.status}


def finished_bot_match(http: httpx.Client, game: str = "pixies", players: int = 2) -> dict:
    """A match the server's random bots play in every seat, once it is over: its summary."""
    body = {"game": game, "players": players, "bots": [{"seat": s, "strength": 0} for s in range(players)]}
    match = http.post("/api/matches", json=body).json()["match"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        summary = http.get(f"/api/matches/{match}").json()
        if summary["state"] == "finished":
            return summary
        time.sleep(0.1)
    raise AssertionError(f"{match} did not finish")
