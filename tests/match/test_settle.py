"""service.match.settle against SPEC 3.9: the commit that ends a match is followed by `finished`
(the result, the revealed seed); the record is marked finished, by the runtime that applied the
commit, by whichever node loads a match whose mark is missing, and later if the store was away."""

from __future__ import annotations

import asyncio

from service.games import get_game
from service.match.lobby import Lobby
from service.match.runtime import MatchRuntime
from service.store import StoreUnavailable
from tests.match.conftest import Inbox, started

PIXIES = get_game("pixies")


async def play_to_the_end(rt: MatchRuntime) -> None:
    k = 0
    while not PIXIES.status(rt.state)["finished"]:
        seat = PIXIES.status(rt.state)["to_act"][0]
        await rt.submit(seat, PIXIES.legal_moves(rt.state, seat)[0], f"m{k}")
        k += 1


class MarkFails:
    """The store, except that marking a match finished fails `times` times (the store is away)."""

    def __init__(self, inner, times: int) -> None:
        self.inner, self.times, self.tries = inner, times, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def mark_finished(self, match_id, result):
        self.tries += 1
        if self.tries <= self.times:
            raise StoreUnavailable("away")
        await self.inner.mark_finished(match_id, result)


async def test_the_last_commit_is_followed_by_finished_and_the_record_is_marked(lobby, store):
    mid = await started(lobby)
    rt = await lobby.runtime(mid)
    watchers = {0: Inbox(), None: Inbox()}
    for audience, w in watchers.items():
        rt.attach(w, audience, None)
    await play_to_the_end(rt)
    record = await store.get_match(mid)
    status = PIXIES.status(rt.state)
    assert record.finished and record.result == status["result"]
    for w in watchers.values():
        assert w.types()[-2:] == ["patch", "finished"]
        finished = w.messages[-1]
        assert finished["seq"] == rt.seq and finished["result"] == status["result"]
        assert finished["seed"] == record.seed
    late = Inbox()
    rt.attach(late, 1, None)
    assert late.types()[:2] == ["view", "finished"], "a connection joining a finished match is told after its document"


async def test_a_mark_the_store_refused_is_written_once_it_is_back(store):
    flaky = MarkFails(store, times=2)
    lobby = Lobby(flaky)
    mid = await started(lobby)
    rt = await lobby.runtime(mid)
    watcher = Inbox()
    rt.attach(watcher, None, None)
    await play_to_the_end(rt)
    assert watcher.types()[-1] == "finished", "the move that ended the match did not fail for the mark"
    for _ in range(100):
        if (await store.get_match(mid)).finished:
            break
        await asyncio.sleep(0.05)
    assert (await store.get_match(mid)).finished and flaky.tries == 3
    await lobby.close()


async def test_a_load_marks_a_match_whose_log_is_over_and_record_never_heard(store):
    flaky = MarkFails(store, times=10**6)  # the node that played it never got the mark written
    first = Lobby(flaky)
    mid = await started(first)
    await play_to_the_end(await first.runtime(mid))
    await first.close()
    assert not (await store.get_match(mid)).finished
    other = Lobby(store)
    rt = await other.runtime(mid)
    record = await store.get_match(mid)
    assert record.finished and record.result == PIXIES.status(rt.state)["result"]
    await other.close()
