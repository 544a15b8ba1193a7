"""Tells the operator, once, whether the store can lose moves the server acknowledged on a power
loss: read when the node starts (again each few seconds until the store answers), then written
to the log, to `/health/ready`'s body and to the `teahouse_acks_at_risk` gauge. The verdict
itself is service/store/durability.py's."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from service.ops import metrics
from service.store import EventStore, StoreUnavailable
from service.store.durability import Durability

log = logging.getLogger("teahouse.durability")

RETRY_S = 5.0  # while the store does not answer at start


class DurabilityCheck:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.verdict: Durability | None = None
        self._task: asyncio.Task[None] | None = None
        metrics.ACKS_AT_RISK.set(-1)  # not read yet

    async def start(self, first_wait_s: float) -> None:
        """Read the settings now (a store that answers within `first_wait_s` has its verdict
        before the first request); else keep trying beside the node's work."""
        try:
            self.report(await asyncio.wait_for(self.store.durability(), first_wait_s))
        except (StoreUnavailable, TimeoutError):
            self._task = asyncio.create_task(self._read(), name="durability-check")
        except Exception as exc:  # a warning must never keep the node from starting
            self.report(unreadable(exc))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _read(self) -> None:
        while True:
            try:
                verdict = await self.store.durability()
            except StoreUnavailable:
                await asyncio.sleep(RETRY_S)
                continue
            except Exception as exc:
                verdict = unreadable(exc)
            self.report(verdict)
            return

    def report(self, verdict: Durability) -> None:
        self.verdict = verdict
        metrics.ACKS_AT_RISK.set(1 if verdict.at_risk else 0)
        if verdict.at_risk:
            log.warning("acknowledged moves could be lost on power loss: %s", verdict.detail)
        else:
            log.info("store durability: %s", verdict.detail)

    def public(self) -> dict[str, Any]:
        """What /health/ready shows."""
        if self.verdict is None:
            return {"acks_at_risk": None, "known": False,
                    "detail": "the store's durability settings have not been read yet (the store has not answered)",
                    "settings": {}}
        return self.verdict.public()


def unreadable(exc: Exception) -> Durability:
    log.exception("the store's durability settings could not be read")
    return Durability(True, False, f"the store's durability settings could not be read ({type(exc).__name__}): "
                      "acknowledged moves may be lost on power loss; check the store's settings by hand "
                      "(docs/operators.md, Durability)")
