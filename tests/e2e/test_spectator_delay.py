"""The spectator delay (SPEC 2.4): through every route the public audience reads — a spectator's
WebSocket frames, the match summary, the replay, the log, a fork — no commit shows earlier than
the delay allows, over a real server on both stores; seats see their own match live.

The spectator is a raw v1 JSON socket, so that the test reads the exact bytes it was sent."""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import orjson
import websockets
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from protocol.patch import apply
from tests.e2e.helpers import close_all, doc_of, seat_players
from tests.support.server import ServerProcess


class RawSpectator:
    """A v1 JSON socket that spectates a match and keeps every frame with the time it came."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("http://", "ws://") + "/ws"
        self.frames: list[tuple[float, bytes, dict]] = []
        self._arrived = asyncio.Event()

    async def open(self, match: str, key: str | None = None) -> RawSpectator:
        self.ws = await websockets.connect(self.url, subprotocols=[websockets.Subprotocol("teahouse.v1.json")])
        await self.ws.send(orjson.dumps({"type": "hello"}).decode())
        assert orjson.loads(await self.ws.recv())["type"] == "welcome"
        msg = {"type": "spectate", "match": match, **({"key": key} if key is not None else {})}
        await self.ws.send(orjson.dumps(msg).decode())
        self._task = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        async for raw in self.ws:
            data = raw.encode() if isinstance(raw, str) else raw
            self.frames.append((time.time(), data, orjson.loads(data)))
            self._arrived.set()

    def seqs(self) -> list[int]:
        """The seq of every view and patch received, in order."""
        return [m["seq"] for _, _, m in self.frames if m["type"] in ("view", "patch")]

    def doc(self) -> dict:
        """The document as the frames build it (a view, then its patches in order)."""
        doc = None
        for _, _, m in self.frames:
            if m["type"] == "view":
                doc = m["doc"]
            elif m["type"] == "patch":
                doc = apply(doc, m["ops"])
        assert doc is not None
        return doc

    async def wait_for_seq(self, seq: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not self.seqs() or self.seqs()[-1] < seq:
            self._arrived.clear()
            left = deadline - time.monotonic()
            assert left > 0, f"the spectator never got seq {seq}: {self.seqs()}"
            await asyncio.wait_for(self._arrived.wait(), left)

    def errors(self) -> list[dict]:
        return [m for _, _, m in self.frames if m["type"] == "error"]

    async def close(self) -> None:
        await self.ws.close()
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["error"]["code"] == code and body["error"]["message"], body


async def create(http: httpx.AsyncClient, **body) -> dict:
    r = await http.post("/api/matches", json={"game": "pixies", "players": 2, **body})
    assert r.status_code == 201, r.text
    return r.json()


async def step(conns, views, match: str) -> int:
    """One move by the first seat to act (its first legal move); every seat then holds it."""
    seat = views[0].status["to_act"][0]
    moves = await conns[seat].legal_moves(match)
    seq = await conns[seat].move(match, moves[0])
    for v in views:
        await v.wait_for(lambda g, seq=seq: g.seq >= seq)
    return seq


async def check_public_routes(http: httpx.AsyncClient, match: str, live: int, public: int, token: str) -> None:
    """What the public audience reads over HTTP at live seq `live` shows `public` and nothing after."""
    r = await http.get(f"/api/matches/{match}")
    assert r.status_code == 200 and r.json()["seq"] == public, (r.json(), live, public)
    r = await http.get(f"/api/matches/{match}/replay")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["seq"] == public and [e["seq"] for e in body["log"]][-1:] == ([public] if public else [])
    assert all(e["seq"] <= public for e in body["log"])
    for seq in range(public + 1, live + 1):  # refused as past the end: not even the live seq shows
        r = await http.get(f"/api/matches/{match}/replay", params={"seq": seq})
        problem(r, 400, "bad_field")
        assert str(live) not in r.json()["error"]["message"] or live == public
    problem(await http.get(f"/api/matches/{match}/log"), 409, "match_live")
    problem(await http.post(f"/api/matches/{match}/fork", json={"seq": 0}), 409, "match_live")
    # a seat reads its own match live, in its own view and the public one
    auth = {"Authorization": f"Bearer {token}"}
    r = await http.get(f"/api/matches/{match}/replay", params={"seq": live, "seat": 0}, headers=auth)
    assert r.status_code == 200 and r.json()["seq"] == live
    r = await http.get(f"/api/matches/{match}/replay", headers=auth)
    assert r.status_code == 200 and r.json()["seq"] == live
    assert (await http.get(f"/api/matches/{match}", headers=auth)).json()["seq"] == live


async def test_a_delay_in_commits_holds_every_public_route_behind(server):
    n = 3
    client = TeahouseClient(server.url)
    async with httpx.AsyncClient(base_url=server.url) as http:
        # (with a turn clock: its deadline dates the live position, so the spectators get none)
        created = await create(http, spectator_delay={"commits": n}, turn_seconds=600)
        mid = created["match"]
        assert created["spectator_delay"] == {"commits": n} and created["spectators"] == "public"
        spectator = await RawSpectator(server.url).open(mid)
        watcher = await client.connect().open()  # and one on protocol v2 (compact frames), through the SDK
        compact = await watcher.spectate(mid)
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        live = views[0].seq
        assert live == 1  # the start
        for _ in range(6):
            live = await step(conns, views, mid)
            public = max(0, live - n)
            if public:
                await spectator.wait_for_seq(public)
            await asyncio.sleep(0.05)  # (whatever the server would send too early has come by now)
            got = spectator.seqs()
            assert got[-1] == public, (got, live)
            assert got == list(range(got[0], public + 1)), f"a gap in the delayed stream: {got}"
            assert not any(m["type"] == "clock" for _, _, m in spectator.frames)
            assert compact.seq <= public and compact.deadline is None
            assert views[0].deadline is not None, "the seats' clock runs: the test must see it"
            await check_public_routes(http, mid, live, public, seats[0]["token"])
            # the listing carries no seq of a live match
            listed = [m for m in (await http.get("/api/matches")).json() if m["match"] == mid]
            assert listed and "seq" not in listed[0] and listed[0]["spectator_delay"] == {"commits": n}

        # A restarted server reads the delay from the match's record and holds it still.
        server.stop()
        server.start()
        await close_all(*conns, watcher)
        await spectator.close()
        async with httpx.AsyncClient(base_url=server.url) as http2:
            again = await RawSpectator(server.url).open(mid)
            client2 = TeahouseClient(server.url)
            watcher = await client2.connect().open()
            compact = await watcher.spectate(mid)
            assert compact.seq == live - n
            await again.wait_for_seq(live - n)
            await asyncio.sleep(0.05)
            assert again.seqs() == [live - n]
            await check_public_routes(http2, mid, live, live - n, seats[0]["token"])

            # The delay ends with the match: the last commits come at the finish (SPEC 2.4).
            conns = [await client2.connect().open() for _ in range(2)]
            views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
            await asyncio.gather(*[play_seat(c, v, random.Random(i))
                                   for i, (c, v) in enumerate(zip(conns, views, strict=True))])
            log = (await http2.get(f"/api/matches/{mid}/log")).json()
            last = log["seq"]
            await again.wait_for_seq(last)
            for _ in range(100):
                if any(m["type"] == "finished" for _, _, m in again.frames):
                    break
                await asyncio.sleep(0.05)
            got = again.seqs()
            assert got == list(range(live - n, last + 1)), got
            final = (await http2.get(f"/api/matches/{mid}/replay", params={"seq": last})).json()
            assert again.doc() == {"view": final["view"], "status": final["status"]}
            await compact.wait_for(lambda g: g.seq == last)
            assert doc_of(compact) == again.doc()
            assert (await http2.get(f"/api/matches/{mid}")).json()["seq"] == last
            await again.close()
            await close_all(*conns, watcher)
            await client2.aclose()
    await client.aclose()


async def test_a_delay_in_seconds_is_released_by_time_alone(server):
    t = 1
    client = TeahouseClient(server.url)
    async with httpx.AsyncClient(base_url=server.url) as http:
        mid = (await create(http, spectator_delay={"seconds": t}))["match"]
        spectator = await RawSpectator(server.url).open(mid)
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        await spectator.wait_for_seq(1, timeout=5)  # the start, a second after it was made
        for _ in range(2):
            sent = time.time()
            live = await step(conns, views, mid)
            await check_public_routes(http, mid, live, live - 1, seats[0]["token"])
            assert spectator.seqs()[-1] == live - 1
            # no commit follows: a timer releases this one, not before its time
            await spectator.wait_for_seq(live, timeout=5)
            came = next(at for at, _, m in spectator.frames if m.get("seq") == live and m["type"] == "patch")
            assert came >= sent + t - 0.01, f"seq {live} came {came - sent:.3f} s after its move, before {t} s"
            r = await http.get(f"/api/matches/{mid}")
            assert r.json()["seq"] == live
        await spectator.close()
        await close_all(*conns)
    await client.aclose()


async def test_bad_spectator_options_are_refused(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        for body in ({"spectator_delay": {"commits": 0}}, {"spectator_delay": {"seconds": 3601}},
                     {"spectator_delay": {"commits": 1, "seconds": 1}}, {"spectator_delay": 5},
                     {"spectator_delay": {"minutes": 2}}, {"spectator_delay": {"commits": True}},
                     {"spectators": "friends"}, {"spectators": "off", "listed": True}):
            r = await http.post("/api/matches", json={"game": "pixies", "players": 2, **body})
            problem(r, 400, "bad_field")


async def test_every_node_holds_the_same_delay(redis_url, tmp_path):
    """Seats on one node, a spectator and the HTTP routes on another, sharing one Redis: the
    other node follows the commits from the stream and holds the public audience as far behind."""
    n = 2
    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    client = TeahouseClient(nodes[0].url)
    try:
        async with httpx.AsyncClient(base_url=nodes[0].url) as http, \
                httpx.AsyncClient(base_url=nodes[1].url) as other:
            mid = (await create(http, spectator_delay={"commits": n}))["match"]
            spectator = await RawSpectator(nodes[1].url).open(mid)
            seats, conns, views = await seat_players(client, mid, 2, record=False)
            for _ in range(4):
                live = await step(conns, views, mid)
                public = max(0, live - n)
                await spectator.wait_for_seq(public)
                await asyncio.sleep(0.05)
                assert spectator.seqs()[-1] == public and spectator.seqs() == list(range(0, public + 1))
                await check_public_routes(other, mid, live, public, seats[0]["token"])
            await spectator.close()
            await close_all(*conns)
    finally:
        await client.aclose()
        for node in nodes:
            node.stop()
