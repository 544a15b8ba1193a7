"""Every Prometheus metric of a node, in one place (served at GET /metrics).

Each is incremented where the thing happens (runtime, session, store); the gauges that are a
count of something the node holds are read when /metrics is scraped. docs/operators.md lists
them with their meaning.

With `teahouse serve --workers N` a scrape reaches one of the N processes, and still answers for
the whole node: the parent gives every worker one private directory (MULTIPROCESS_ENV, read by
prometheus_client when it is imported), each process keeps its values in memory-mapped files there,
and the scraped one sums them (prometheus_client's multiprocess mode). Counters and histograms are
summed over every process the node ran, exited ones included (a restarted worker's counts add
on); the gauges are summed over the live processes, except `teahouse_store_up`, the least of
them (0 when any worker finds the store unreachable), `teahouse_acks_at_risk`, the largest, and
`teahouse_diverged_matches`, the store's count as last read (the same for every worker). A
gauge read from what a worker holds is written to its file once a second (`publish_forever`)
and by the scraped worker at the scrape.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

disable_created_metrics()  # a `_created` series per counter doubles the scrape for nothing we use
REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: a local append is well under a millisecond, Redis a few, a slow store seconds.
_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

COMMITS = Counter("teahouse_commits", "Commits this node appended to a match's log (moves, starts, clock and bot moves)",
                  ["game"], registry=REGISTRY)
REJECTS = Counter("teahouse_rejects", "Moves the rules refused (a `reject` sent), by the game's code",
                  ["code"], registry=REGISTRY)
ERRORS = Counter("teahouse_errors", "Protocol `error` messages sent to clients, by code (store_unavailable, busy, ...)",
                 ["code"], registry=REGISTRY)
APPEND_SECONDS = Histogram("teahouse_append_seconds", "Time to append one commit to the store (successful appends)",
                           buckets=_LATENCY, registry=REGISTRY)
FANOUT_SECONDS = Histogram("teahouse_fanout_seconds", "From a move's arrival to its patch queued for every watcher "
                           "on this node (moves committed by this node)", buckets=_LATENCY, registry=REGISTRY)
OUTBOX_CUTS = Counter("teahouse_outbox_cuts", "Connections cut (close 4408) because their outbox was full",
                      registry=REGISTRY)
STORE_ERRORS = Counter("teahouse_store_errors", "Store calls that failed because the store was unreachable",
                       registry=REGISTRY)
STORE_OUTAGES = Counter("teahouse_store_outages", "Times this node found its store unreachable after it had "
                        "been reachable", registry=REGISTRY)
STORE_UP = Gauge("teahouse_store_up", "1 if the latest store call succeeded, else 0", multiprocess_mode="livemin",
                 registry=REGISTRY)
CLOCK_EXPIRIES = Counter("teahouse_clock_expiries", "Turn clocks that ran out (a move is then played for the seat)",
                         registry=REGISTRY)
WEBHOOK_ATTEMPTS = Counter("teahouse_webhook_attempts", "Webhook delivery attempts, by outcome: delivered (a 2xx), "
                           "retry (to be tried again), failed (given up, or its hook deleted)", ["outcome"],
                           registry=REGISTRY)
BOT_MOVES = Counter("teahouse_bot_moves", "Moves committed by the server's bots at the table", registry=REGISTRY)
WAIT_TIMEOUTS = Counter("teahouse_wait_timeouts", "Appends whose WAIT for --wait-replicas replicas ran out "
                        "(the move was acknowledged anyway)", registry=REGISTRY)
FINISHED_REPAIRED = Counter("teahouse_finished_repaired", "Matches found over in their log but not marked "
                            "finished, and marked on load", registry=REGISTRY)
REPLAYS = Counter("teahouse_replays", "Replays answered, by how: hit (a finished match's body from the cache), "
                  "miss (a finished match folded and kept), not_modified (304), live (folded for a live "
                  "match), limited (429)", ["how"], registry=REGISTRY)
CONNECTIONS = Gauge("teahouse_connections", "Open WebSocket connections", multiprocess_mode="livesum", registry=REGISTRY)
AUDIENCES = Gauge("teahouse_audiences", "Audiences (a seat of a match, or its spectators) with at least one "
                  "connection on this node", multiprocess_mode="livesum", registry=REGISTRY)
WATCHERS = Gauge("teahouse_watchers", "Connections watching a match (a connection counts once per match)",
                 multiprocess_mode="livesum", registry=REGISTRY)
LOADED_MATCHES = Gauge("teahouse_loaded_matches", "Match runtimes loaded on this node", multiprocess_mode="livesum",
                       registry=REGISTRY)
# (the store's count, the same for every worker: the latest one read)
DIVERGED_MATCHES = Gauge("teahouse_diverged_matches", "Matches stopped because their log went backwards, "
                         "counted in the store (every node reports the same; read at each scrape)",
                         multiprocess_mode="livemostrecent", registry=REGISTRY)
ACKS_AT_RISK = Gauge("teahouse_acks_at_risk", "1 if the store's settings let a power loss drop acknowledged moves "
                     "(or could not be read), 0 if not, -1 until read (service/store/durability.py)",
                     multiprocess_mode="livemax", registry=REGISTRY)
# Seconds: a young collection takes well under a millisecond, a full one over a large heap 100s
# (service/ops/pauses.py).
_PAUSE = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
GC_PAUSE_SECONDS = Histogram("teahouse_gc_pause_seconds", "Duration of each garbage collection (the event "
                             "loop waits for it), by generation (2 = full)", ["generation"], buckets=_PAUSE,
                             registry=REGISTRY)
LOOP_LAG_SECONDS = Histogram("teahouse_loop_lag_seconds", "How late a timer due every 50 ms fired on the "
                             "event loop (a stall of any cause)", buckets=_PAUSE, registry=REGISTRY)
STORE_UP.set(1)


MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's name; set by service.cli for --workers N
SHARED_DIR = os.environ.get(MULTIPROCESS_ENV)  # None: one process, the values live in REGISTRY
PUBLISH_PERIOD_S = 1.0
_watched: dict[Gauge, Callable[[], float]] = {}
_LIVE_FILE = re.compile(r"gauge_live\w+_(\d+)\.db")


def watch(gauge: Gauge, read: Callable[[], float]) -> None:
    """Read `gauge` from `read()` at each scrape (a count the node holds anyway); with several
    worker processes, also once every PUBLISH_PERIOD_S, for the scrapes another worker answers."""
    if SHARED_DIR is None:
        gauge.set_function(read)
    else:
        _watched[gauge] = read


def publish() -> None:
    """Write this process's watched gauges to the shared directory."""
    for gauge, read in _watched.items():
        gauge.set(read())


async def publish_forever() -> None:
    while True:
        publish()
        await asyncio.sleep(PUBLISH_PERIOD_S)


def retire() -> None:
    """This worker stops: its gauges leave the sums now (its counters stay counted)."""
    if SHARED_DIR is not None:
        mark_process_dead(os.getpid(), SHARED_DIR)


def _forget_exited(path: str) -> None:
    """Drop the gauges of workers that died without `retire` (killed): a live-mode gauge file
    is named after its process."""
    for name in os.listdir(path):
        m = _LIVE_FILE.fullmatch(name)
        if m is None:
            continue
        pid = int(m.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, path)
        except PermissionError:  # alive, another user's: not ours to judge
            pass


def exposition() -> bytes:
    if SHARED_DIR is None:
        return generate_latest(REGISTRY)
    publish()
    _forget_exited(SHARED_DIR)
    every_worker = CollectorRegistry()
    MultiProcessCollector(every_worker, path=SHARED_DIR)
    return generate_latest(every_worker)
