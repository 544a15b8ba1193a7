"""The bots that play seats of a match (a match created with `bots`), and a bot's one move.

At each position where a bot seat is to act, a bot for it thinks off the event loop (the bot
pool) and sends the runtime its move for that seq only. The move id (`sys:bot:` or, for the
turn clock playing for an absent seat, `sys:clock:` + seq + seat) marks it in the log as played
for the seat, and makes it commit once, whichever node gets there first.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from service.bots import bot_rng
from service.bots import pool as bot_pool
from service.games import Game, IllegalMove
from service.match.committed import Busy, Committed, Submit, system_move_id
from service.ops import logs, metrics
from service.store import MatchRecord, StoreUnavailable
from service.store.outage import Backoff

log = logging.getLogger("teahouse.runtime")


class SeatBots:
    def __init__(self, game: Game, record: MatchRecord, submit: Submit) -> None:
        self.game, self.record, self.submit = game, record, submit
        self._at: Committed | None = None
        self._tasks: dict[int, asyncio.Task] = {}  # seat -> its bot thinking
        self.stopped = False

    @property
    def tasks(self) -> list[asyncio.Task]:
        return list(self._tasks.values())

    def due(self) -> list[int]:
        """The bot seats to act at the latest position."""
        at, bots = self._at, self.record.bots or []
        if at is None or at.seq == 0 or self.stopped or not any(b is not None for b in bots):
            return []
        if at.status["finished"]:
            return []
        return [seat for seat in at.status["to_act"] if seat < len(bots) and bots[seat] is not None]

    def on_commit(self, c: Committed) -> None:
        self._at = c
        self._wake()

    def stop(self) -> None:
        """Start no more bots (the match stops on this node); those thinking give up at the end."""
        self.stopped = True

    def _wake(self) -> None:
        """Start a bot for each bot seat to act that is not already thinking."""
        at = self._at
        for seat in self.due():
            task = self._tasks.get(seat)
            if at is not None and (task is None or task.done()):
                strength = (self.record.bots or [])[seat]
                assert strength is not None
                self._tasks[seat] = asyncio.create_task(self._think(at, seat, strength),
                                                        name=f"bot {self.record.id}:{seat}")

    async def _think(self, at: Committed, seat: int, strength: int) -> None:
        try:
            await self.play_for(at, seat, strength, "bot")
        finally:
            if self._tasks.get(seat) is asyncio.current_task():
                del self._tasks[seat]  # done thinking: the seat may get a new bot task
            if self._at is not at:
                self._wake()  # the match moved on while it thought

    def _moved_on(self, at: Committed) -> bool:
        return self._at is not at or self.stopped

    async def play_for(self, at: Committed, seat: int, strength: int, mark: str) -> None:
        """Think off the event loop, then commit the move for `seat` if the match is still at
        `at`; a bot that fails plays a random legal move instead, so as not to stall the table."""
        logs.MATCH.set(self.record.id)
        seq = at.seq
        try:
            try:
                command: dict[str, Any] | None = (await bot_pool.think(
                    self.game.id, at.state, seat, self.record.players, strength,
                    f"{self.record.bot_seed}/{seq}")).command
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot for %s seat %d failed at seq %d", self.record.id, seat, seq)
                command = None
            if self._moved_on(at):
                return
            if command is not None:
                try:
                    if await self._submit_while_at(at, seat, command, system_move_id(mark, seq, seat)) and mark == "bot":
                        metrics.BOT_MOVES.inc()
                    return
                except IllegalMove:
                    log.error("bot for %s seat %d chose an illegal move at seq %d", self.record.id, seat, seq)
            moves = self.game.legal_moves(at.state, seat)
            if moves:
                fallback = bot_rng(self.record.bot_seed or "", "fallback", seq, seat).choice(moves)
                if await self._submit_while_at(at, seat, fallback, system_move_id(mark, seq, seat)) and mark == "bot":
                    metrics.BOT_MOVES.inc()
        except (IllegalMove, Busy):
            pass  # the match moved on while the bot thought; the new position wakes it again
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot for %s seat %d failed at seq %d", self.record.id, seat, seq)

    async def _submit_while_at(self, at: Committed, seat: int, command: dict[str, Any], move_id: str) -> bool:
        """The server's own move for `at`: while the store is unreachable, try again (with a
        growing wait) as long as the match is still there. True once committed."""
        backoff = Backoff()
        while True:
            try:
                await self.submit(seat, command, move_id, at_seq=at.seq)
                return True
            except StoreUnavailable:
                if self._moved_on(at):
                    return False
                await asyncio.sleep(backoff.delay())
