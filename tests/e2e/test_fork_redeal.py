"""Forks deal again what no seat could see (SPEC 11), over a real server on Redis.

The origin of a fork is finished, so its log, with every shuffle, is public. For every game a
finished match of bots is forked where hidden information exists, and the fork's hidden state
(read from the store the server wrote) is compared with the origin's at the fork point: the
share of positions that hold the same item must be at chance level (what two independent
redeals of that state share), against 100% for an `exact` fork, which says `open_hand`. Every
seat's view and the spectators' view are the origin's; one fork is played to the end and its
public log verifies from the two revealed seeds, the redeal included.
"""

from __future__ import annotations

import asyncio
import hashlib
import random

import httpx
import pytest
from teahouse_client import ServerError, TeahouseClient

from service.games import GAMES, get_game
from service.games.chance import commit_rng
from service.match import replay
from service.store import MatchRecord, open_store
from tests.e2e.helpers import close_all, play_resilient, seat_players, states_by_seq
from tests.support.hidden_parts import HIDDEN
from tests.support.server import ServerProcess

SHORT = {"hieroglyphs": {"mode": "rounds", "round_limit": 2}}
FORKS = 4          # redealt forks per game, for the measured share
CHANCE_RUNS = 200  # independent local redeals, for the chance level
# Pixies keeps its undrawn deck as a set (each reveal draws with the commit's rng): there is no
# order to compare, only the fork's own seed, which the played-out fork's log verifies.
ORDERED = [g for g in GAMES if g != "pixies"]


@pytest.fixture(scope="module")
def server(tmp_path_factory, redis_server):
    proc = ServerProcess(redis_server.url, tmp_path_factory.mktemp("forks") / "server.log").start()
    yield proc
    proc.stop()


def share_equal(a: list[list], b: list[list]) -> tuple[int, int]:
    """(positions holding the same item, positions) over the places of two hidden states."""
    same = total = 0
    for x, y in zip(a, b, strict=True):
        assert len(x) == len(y), "a redeal keeps every place's size"
        same += sum(1 for i, j in zip(x, y, strict=True) if i == j)
        total += len(x)
    return same, total


async def finished_origin(client: TeahouseClient, game_id: str) -> tuple[dict, int, list[dict], int]:
    """A finished match of random bots, and a seq where many items are hidden from every seat."""
    g = get_game(game_id)
    players = g.min_players
    options = SHORT.get(game_id, {})
    match = await client.create_match(game_id, players, options, bots={s: 0 for s in range(players)})
    for _ in range(600):
        if (await client.match(match["match"]))["state"] == "finished":
            break
        await asyncio.sleep(0.1)
    log = await client.log(match["match"])
    states = states_by_seq(game_id, players, options, log["commits"])
    everyone = frozenset(range(players))
    candidates = [n for n in range(2, len(states) - 1)
                  if not g.status(states[n])["finished"] and sum(map(len, HIDDEN[game_id](states[n], everyone))) >= 8]
    assert candidates, f"{game_id}: no seq hides anything from every seat"
    return log, players, states, candidates[len(candidates) // 3]


async def fork_state(store, fork: dict, game_id: str, players: int, options: dict) -> tuple[dict, list]:
    commits = await store.read(fork["match"])
    rec = MatchRecord(id=fork["match"], game=game_id, players=players, options=options, listed=True,
                      seed="", seed_sha256="", created=0)
    return replay.state_at(rec, commits, commits[-1].seq), commits


@pytest.mark.parametrize("game_id", GAMES)
async def test_a_fork_deals_again_what_no_seat_saw(server, redis_server, game_id):
    client = TeahouseClient(server.url)
    store = open_store(redis_server.url)
    g = get_game(game_id)
    log, players, states, n = await finished_origin(client, game_id)
    options = SHORT.get(game_id, {})
    origin_state = states[n]
    everyone = frozenset(range(players))
    hidden_origin = HIDDEN[game_id](origin_state, everyone)

    # exact: the origin's shuffles, and it says so
    exact = await client.fork(log["match"], n, exact=True)
    assert exact["open_hand"] is True and exact["forked_from"]["exact"] is True and exact["seq"] == n
    assert (await client.match(exact["match"]))["open_hand"] is True
    state, commits = await fork_state(store, exact, game_id, players, options)
    assert len(commits) == n and state == origin_state
    assert share_equal(hidden_origin, HIDDEN[game_id](state, everyone)) == (sum(map(len, hidden_origin)),) * 2

    same = total = 0
    forks = []
    for _ in range(FORKS):
        fork = await client.fork(log["match"], n)
        forks.append(fork)
        assert fork["open_hand"] is False and fork["forked_from"] == {
            "match": log["match"], "seq": n, "seed": log["seed"], "exact": False}
        assert fork["seq"] == n + 1 and fork["seed_sha256"] != log["seed_sha256"]
        state, commits = await fork_state(store, fork, game_id, players, options)
        last = commits[-1]
        assert (last.seq, last.seat, last.command, last.move_id) == (n + 1, None, {"type": "redeal"}, "sys:redeal")
        assert [c.events for c in commits[:n]] == [c["events"] for c in log["commits"][:n]]
        # each seat's own hand, and all that is public, are the origin's
        for seat in [*range(players), None]:
            assert g.view(state, seat) == g.view(origin_state, seat), seat
        s, t = share_equal(hidden_origin, HIDDEN[game_id](state, everyone))
        same, total = same + s, total + t
        # the log folds to the same state every time (a second fold, and the server's replay)
        assert replay.state_at(MatchRecord(id="x", game=game_id, players=players, options=options, listed=True,
                                           seed="", seed_sha256="", created=0), commits, n + 1) == state
    # chance: what two independent redeals of the origin's state have in common
    c_same = c_total = 0
    for i in range(CHANCE_RUNS):
        a = g.redeal(origin_state, random.Random(2 * i), everyone)
        b = g.redeal(origin_state, random.Random(2 * i + 1), everyone)
        s, t = share_equal(HIDDEN[game_id](a, everyone), HIDDEN[game_id](b, everyone))
        c_same, c_total = c_same + s, c_total + t
    fork_share, chance = same / total, c_same / c_total
    if game_id in ORDERED:
        print(f"\n{game_id}: fork at seq {n}, {total // FORKS} positions hidden from every seat: exact fork "
              f"100% equal to the origin, redealt forks {fork_share:.1%}, chance {chance:.1%}")
        # four forks' worth of positions: allow the noise of a few dozen draws around chance
        assert fork_share <= chance + 0.2 and fork_share < 0.6, (fork_share, chance)

    # one fork played to the end: its public log verifies from the two revealed seeds
    fork = forks[0]
    fid = fork["match"]
    watcher = await client.connect().open()
    _, conns, _ = await seat_players(client, fid, players, record=False)
    await asyncio.gather(*[play_resilient(c, fid, random.Random(i)) for i, c in enumerate(conns)])
    flog = await client.log(fid)
    assert hashlib.sha256(flog["seed"].encode()).hexdigest() == fork["seed_sha256"]
    assert flog["commits"][n]["said"] and "dealt again" in flog["commits"][n]["said"][0]
    state = g.initial(options, players)
    for c in flog["commits"]:
        seed = log["seed"] if c["seq"] <= n else flog["seed"]
        assert g.decide(state, c["seat"], c["command"], commit_rng(seed, c["seq"])) == c["events"], c["seq"]
        for e in c["events"]:
            state = g.evolve(state, e)
    assert g.status(state)["finished"]
    await close_all(*conns, watcher)
    await store.close()
    await client.aclose()


async def test_fork_refusals(server):
    client = TeahouseClient(server.url)
    live = await client.create_match("khan", 2)
    for body, code in ((dict(seq=0), "match_live"), (dict(seq=0, exact=True), "match_live")):
        with pytest.raises(ServerError) as err:
            await client.fork(live["match"], **body)
        assert err.value.code == code
    finished = (await client.create_match("khan", 2, bots={0: 0, 1: 0}))["match"]
    for _ in range(600):
        if (await client.match(finished))["state"] == "finished":
            break
        await asyncio.sleep(0.1)
    async with httpx.AsyncClient() as http:
        r = await http.post(f"{server.url}/api/matches/{finished}/fork", json={"seq": 3, "exact": "yes"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_field"
        # seq 0: nothing is dealt yet; the fork is a fresh match, not open-handed
        r = await http.post(f"{server.url}/api/matches/{finished}/fork", json={"seq": 0})
        assert r.status_code == 201 and r.json()["open_hand"] is False and r.json()["seq"] == 0
    await client.aclose()
