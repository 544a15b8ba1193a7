"""Sends the outbox's webhook deliveries (protocol/SPEC.md 2.19): at least once, never from the
commit's path.

Every node runs one courier. It asks the store for due pending deliveries, claims each (a lease:
the claim moves the delivery's due time ahead, atomically, so another node skips it; a node that
dies holding it leaves it due again when the lease ends: twice the request's timeout, and
LEASE_SLACK_S for the store's writes), POSTs it with httpx (an async client: nothing blocks the
loop, and the whole request has a deadline), and writes the outcome:
delivered on any 2xx answer; otherwise due again after an exponential backoff (capped), until
`attempts` tries have failed, when it is marked failed. Redirects are not followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import httpx
import orjson

from service.match.hooks import HEADER_EVENT, HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, sign
from service.ops import crash_points, metrics
from service.store import DeliveryRecord, EventStore, StoreUnavailable

log = logging.getLogger("teahouse.webhooks")

LEASE_SLACK_S = 5.0
BATCH = 50
POLL_S = 1.0
MAX_BACKOFF_S = 600.0
CONCURRENT = 8
MAX_ERROR = 200
USER_AGENT = "Teahouse-Webhooks/1"


def backoff_s(base_s: float, attempts: int) -> float:
    """The wait after the `attempts`-th failed try: base, 2 base, 4 base, ... at most MAX_BACKOFF_S."""
    return float(min(MAX_BACKOFF_S, base_s * 2 ** max(0, attempts - 1)))


def body_of(d: DeliveryRecord) -> bytes:
    """A delivery's body: the same bytes on every attempt."""
    return orjson.dumps(d.payload, option=orjson.OPT_SORT_KEYS)


class Courier:
    def __init__(self, store: EventStore, attempts: int, retry_s: float, timeout_s: float) -> None:
        self.store = store
        self.attempts, self.retry_s, self.timeout_s = attempts, retry_s, timeout_s
        self.lease_ms = int((2 * timeout_s + LEASE_SLACK_S) * 1000)
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._sending: set[asyncio.Task] = set()
        self._slots = asyncio.Semaphore(CONCURRENT)
        self._http: httpx.AsyncClient | None = None

    def start(self) -> None:
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout_s), follow_redirects=False,
                                       headers={"User-Agent": USER_AGENT})
        self._task = asyncio.create_task(self._run(), name="webhook courier")

    def wake(self) -> None:
        """New deliveries were written: look now, not at the next poll."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                await self.round()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass  # said once for the node by the store's reachability
            except Exception:
                log.exception("the webhook courier failed; trying again")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_S)
            self._wake.clear()

    async def round(self) -> None:
        """Claim what is due now and start sending it."""
        now = int(time.time() * 1000)
        for delivery_id in await self.store.due_deliveries(now, BATCH):
            await self._slots.acquire()
            try:
                d = await self.store.claim_delivery(delivery_id, now, now + self.lease_ms)
            except BaseException:
                self._slots.release()
                raise
            if d is None:
                self._slots.release()
                continue
            task = asyncio.create_task(self._deliver(d), name=f"webhook {d.id}")
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _deliver(self, d: DeliveryRecord) -> None:
        try:
            await self._attempt(d)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("delivering %s failed; its lease runs out and it is tried again", d.id)
        finally:
            self._slots.release()

    async def _attempt(self, d: DeliveryRecord) -> None:
        hook = next((h for h in await self.store.hooks(d.owner) if h.id == d.hook), None)
        d.attempts += 1
        if hook is None:
            d.status, d.last_error = "failed", "the webhook was deleted"
            await self.store.save_delivery(d)
            metrics.WEBHOOK_ATTEMPTS.labels("failed").inc()
            return
        assert self._http is not None
        body = body_of(d)
        ts = int(time.time())
        headers = {"Content-Type": "application/json", HEADER_ID: d.id, HEADER_EVENT: d.event,
                   HEADER_TIMESTAMP: str(ts), HEADER_SIGNATURE: sign(hook.secret, ts, body)}
        # A fault test stops the node here: the delivery claimed, nothing sent or recorded.
        crash_points.reached("webhooks.claimed")
        try:
            async with asyncio.timeout(self.timeout_s):  # (httpx's timeouts are per phase)
                answer = await self._http.post(hook.url, content=body, headers=headers)
            d.last_status, d.last_error = answer.status_code, None
            ok = 200 <= answer.status_code < 300
            if not ok:
                d.last_error = f"answered HTTP {answer.status_code}"
        except (httpx.HTTPError, TimeoutError) as exc:
            d.last_status, ok = None, False
            d.last_error = (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)[:MAX_ERROR]
        now = int(time.time() * 1000)
        if ok:
            d.status, d.delivered = "delivered", now
        elif d.attempts >= self.attempts:
            d.status = "failed"
        else:
            d.next_at = now + int(backoff_s(self.retry_s, d.attempts) * 1000)
        await self.store.save_delivery(d)
        metrics.WEBHOOK_ATTEMPTS.labels("retry" if d.status == "pending" else d.status).inc()

    async def close(self) -> None:
        tasks = [t for t in (self._task, *self._sending) if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._http is not None:
            await self._http.aclose()
