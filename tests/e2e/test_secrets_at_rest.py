"""What the lobby publishes and what the store holds keep a live match's secrets.

- While a match is live, no summary (`GET /api/matches`, `GET /api/matches/{id}`, the create
  and fork answers) carries an option that fixes chance, nor the seed; the summary only names the
  options that were fixed. After the end, options and seed are public with the log.
- Seat tokens, spectator keys and seat invites are stored only as their sha256: neither the Redis keys nor the
  SQLite rows hold one, whatever their encoding.

The options that fix chance are listed here from each game's doc ("options that fix chance"),
not read from the engine's declaration, which the test checks against this list.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sqlite3
from pathlib import Path

import httpx
import orjson
import pytest
import redis
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from service.games import GAMES, get_game
from service.store import open_store

# From each spec's hidden-information section and docs/games/<id>.md: every option that fixes
# something the rules hide (a deck's order, a draw pile, the travel piles, the decrees left in
# the box, the dice of days to come, the claim options, the content's answers). The start player
# is not among them: it is public from the first commit.
CHANCE_OPTIONS = {
    "pixies": {"deck_orders"},
    "china": {"deck_order", "reshuffle_order"},
    "gugong": {"dice", "draw_pile", "travel_tokens", "decrees"},
    "khan": {"deck_order"},
    "hieroglyphs": {"deck_order", "task_order", "claim_options", "content"},
}


def chance_fixing_options(game_id: str, players: int) -> dict:
    """Valid values for a game's chance-fixing options: a deal taken from a start with another rng."""
    g = get_game(game_id)
    (started, *_) = g.decide(g.initial({}, players), None, {"type": "start"}, random.Random(99))
    if game_id == "pixies":
        return {"deck_orders": [["B13", "G02", "R16", "Y01"], [], ["J03", "B01", "G01"]]}
    if game_id == "china":
        order = started["order"]
        return {"deck_order": order, "reshuffle_order": list(reversed(order))}
    if game_id == "gugong":
        tokens = [started["map"][c] for c in sorted(started["map"])] + started["pile_a"] + started["pile_b"]
        return {"draw_pile": started["draw_pile"], "dice": [started["dice"]], "travel_tokens": tokens,
                "decrees": started["decrees"]}
    if game_id == "khan":
        return {"deck_order": started["deck_order"]}
    return {"deck_order": started["deck_order"], "task_order": started["task_order"]}


def leaks(summary: dict, options: dict) -> list[str]:
    """The chance-fixing values (as whole JSON values, and each list element) found in a summary."""
    text = orjson.dumps(summary)
    found = []
    for name, value in options.items():
        if name in summary.get("options", {}):
            found.append(name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, list) and len(item) >= 3 and orjson.dumps(item) in text:
                found.append(f"{name}: {item!r}")
        if isinstance(value, list) and len(value) >= 3 and orjson.dumps(value) in text:
            found.append(f"{name} (whole)")
    return found


@pytest.mark.parametrize("game_id", GAMES)
def test_each_game_declares_its_chance_fixing_options_secret(game_id):
    assert get_game(game_id).secret_options >= CHANCE_OPTIONS[game_id]


@pytest.mark.parametrize("game_id", GAMES)
async def test_a_live_summary_hides_chance_and_the_seed(sqlite_server, game_id):
    g = get_game(game_id)
    players = g.min_players
    options = chance_fixing_options(game_id, players)
    base = sqlite_server.url
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = (await http.post("/api/matches", json={"game": game_id, "players": players,
                                                          "options": options})).json()
        mid = created["match"]
        for _ in range(players):
            assert (await http.post(f"/api/matches/{mid}/seats", json={})).status_code == 201
        summaries = [created, (await http.get(f"/api/matches/{mid}")).json(),
                     *[m for m in (await http.get("/api/matches")).json() if m["match"] == mid]]
        assert len(summaries) == 3
        for summary in summaries:
            assert leaks(summary, options) == [], summary
            assert sorted(summary["fixed_chance"]) == sorted(options), "the summary says chance was fixed"
            assert "seed" not in summary
            assert summary["seed_sha256"]


async def test_after_the_end_options_and_seed_are_public(sqlite_server):
    options = chance_fixing_options("pixies", 2)
    client = TeahouseClient(sqlite_server.url)
    conns = []
    try:
        mid = (await client.create_match("pixies", 2, options))["match"]
        seats = [await client.take_seat(mid) for _ in range(2)]
        live = await client.match(mid)
        assert "seed" not in live and "deck_orders" not in live["options"]
        for s in seats:
            conn = await client.connect().open()
            conns.append(conn)
            await conn.join(mid, s["token"])
        await asyncio.gather(*(play_seat(c, c.matches[mid], random.Random(i)) for i, c in enumerate(conns)))
        done = await client.match(mid)
        assert done["state"] == "finished"
        assert done["options"] == options
        assert hashlib.sha256(done["seed"].encode()).hexdigest() == done["seed_sha256"]
    finally:
        for c in conns:
            await c.close()
        await client.aclose()


def _redis_bytes(url: str) -> bytes:
    """Every byte Redis holds for every key, read by type."""
    r = redis.Redis.from_url(url)
    out = []
    try:
        for key in r.scan_iter("*"):
            out.append(key)
            kind = r.type(key)
            if kind == b"string":
                out.append(r.get(key))
            elif kind == b"hash":
                for f, v in r.hgetall(key).items():
                    out += [f, v]
            elif kind == b"stream":
                for _, fields in r.xrange(key):
                    for f, v in fields.items():
                        out += [f, v]
            elif kind == b"list":
                out += r.lrange(key, 0, -1)
            elif kind == b"set":
                out += list(r.smembers(key))
            elif kind == b"zset":
                out += [m for m, _ in r.zrange(key, 0, -1, withscores=True)]
            else:
                raise AssertionError(f"unexpected key type {kind!r}")
    finally:
        r.close()
    return b"\n".join(x for x in out if x)


def _sqlite_bytes(directory: Path) -> bytes:
    """Every value of every row of every table of the SQLite files, plus the files' raw bytes."""
    out = []
    files = [p for p in directory.rglob("*") if p.is_file()]
    assert files, f"no store files under {directory}"
    for path in files:
        out.append(path.read_bytes())
        if path.suffix in ("", ".db", ".sqlite", ".sqlite3") and path.read_bytes()[:16] == b"SQLite format 3\x00":
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
                for t in tables:
                    for row in db.execute(f'SELECT * FROM "{t}"'):
                        for v in row:
                            out.append(v if isinstance(v, bytes) else str(v).encode())
            finally:
                db.close()
    return b"\n".join(out)


async def test_the_store_holds_token_hashes_never_tokens(server, store_url, tmp_path):
    client = TeahouseClient(server.url)
    try:
        mid = (await client.create_match("khan", 2))["match"]
        tokens = [(await client.take_seat(mid, name=f"p{i}"))["token"] for i in range(2)]
        # a private match's spectator key is kept as its hash too, like a seat token
        private = (await client.http.post("/api/matches", json={"game": "khan", "players": 2,
                                                               "spectators": "link"})).json()
        tokens.append(private["spectator_key"])
        # and so are the invites of each seat (SPEC 2.4), used or not
        invited = (await client.http.post("/api/matches", json={"game": "khan", "players": 2})).json()
        tokens += [i["invite"] for i in invited["invites"]]
        await client.take_seat(invited["match"], invite=invited["invites"][1]["invite"])
        live = await client.match(mid)
        assert live["state"] == "live" and "seed" not in live
        store = open_store(store_url)
        try:
            seed = (await store.get_match(mid)).seed
        finally:
            await store.close()
        # the seed the store holds is in no answer anyone can get while the match is live
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            for path in (f"/api/matches/{mid}", "/api/matches", f"/api/matches/{mid}/replay",
                         f"/api/matches/{mid}/log", f"/api/matches/{mid}/reference"):
                body = (await http.get(path)).content
                assert seed.encode() not in body, f"{path} publishes the seed of a live match"
        conn = await client.connect(record=True).open()
        try:
            await conn.spectate(mid)
            await conn.join(mid, tokens[0])
            await conn.ping()
        finally:
            await conn.close()
        assert conn.frames and all(seed.encode() not in f for f in conn.frames)
    finally:
        await client.aclose()
    held = _redis_bytes(store_url) if store_url.startswith("redis") else _sqlite_bytes(tmp_path / "data")
    assert mid.encode() in held, "the dump must see the match at all"
    for token in tokens:
        assert hashlib.sha256(token.encode()).hexdigest().encode() in held or \
            hashlib.sha256(token.encode()).digest() in held, "the seat's hash is what is kept"
        for form in (token.encode(), token.encode().hex().encode(), orjson.dumps(token)):
            assert form not in held, "a seat token is stored in clear"
