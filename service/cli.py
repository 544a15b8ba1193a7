"""`teahouse serve | bot | replay | verify | backup | restore`."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sqlite3
import sys

from service.ops.limits import Limits, env_name
from service.store import DEFAULT_URL, SHARED_SCHEMES

STORE_ENV = "TEAHOUSE_STORE_URL"  # --workers: how the parent hands its store to each process
# What `make serve` (and `teahouse serve` with its defaults) listens on.
DEFAULT_SERVER_URL = "http://127.0.0.1:8000"


def _server_url() -> str:
    return os.environ.get("TEAHOUSE_URL") or DEFAULT_SERVER_URL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="teahouse", description="Teahouse board-game server")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--store", default=DEFAULT_URL,
                       help="sqlite:PATH (default: sqlite:teahouse-data), redis://HOST:PORT/DB, or "
                            "redis+cluster://HOST:PORT[,HOST:PORT...] (seed nodes of a Redis Cluster)")
    serve.add_argument("--log-level", default="warning")
    serve.add_argument("--log-format", choices=("json", "text"), default=os.environ.get("TEAHOUSE_LOG_FORMAT"),
                       help="one JSON object per line, or text (default: $TEAHOUSE_LOG_FORMAT, else text on a "
                            "terminal and json otherwise; docs/operators.md, Logs)")
    serve.add_argument("--no-access-log", dest="access_log", action="store_false",
                       help="do not log a line per HTTP request and per WebSocket session")
    serve.add_argument("--workers", type=int, default=1,
                       help="server processes sharing the port and the store (N > 1 needs a redis:// store)")
    serve.add_argument("--bench-games", action="store_true",
                       help="also play the unlisted benchmark games of bench/games (e.g. handcards)")
    Limits.add_arguments(serve)

    bot = sub.add_parser("bot", help="create a match on a running server and play it with bots "
                         "(random SDK bots, or the server's bots of a --strength)")
    bot.add_argument("--game", default="pixies")
    bot.add_argument("--strength", type=int, default=None,
                     help="0 random, 1 greedy, 2-5 search (rollouts or ISMCTS): the server's bots play --seats (default all)")
    bot.add_argument("--seats", default=None, help="with --strength: comma-separated seats for the server's bots")
    bot.add_argument("--players", type=int, default=3)
    bot.add_argument("--url", default=_server_url(),
                     help=f"the server (default: $TEAHOUSE_URL, else {DEFAULT_SERVER_URL})")
    bot.add_argument("--seed", type=int, default=0)
    bot.add_argument("--quiet", action="store_true")

    rep = sub.add_parser("replay", help="step through a finished match commit by commit")
    rep.add_argument("match")
    rep.add_argument("--url", default=_server_url(),
                     help=f"the server (default: $TEAHOUSE_URL, else {DEFAULT_SERVER_URL})")
    rep.add_argument("--seat", type=int, default=None, help="watch from this seat (default: spectator)")
    rep.add_argument("--step", action="store_true", help="wait for Enter between commits")

    ver = sub.add_parser("verify", help="check a game record (GET /api/matches/ID/record) without the server: "
                         "the seed commitment, every commit re-decided from the seed, every state hash")
    ver.add_argument("file", help="the record, JSON Lines (- for standard input)")

    back = sub.add_parser("backup", help="copy a live SQLite store to a new file with SQLite's online backup "
                          "(the server may go on running; a Redis store is exported with the admin API instead)")
    back.add_argument("--store", default=DEFAULT_URL, help="sqlite:PATH, as given to serve (default: %(default)s)")
    back.add_argument("out", help="the backup file to write (never overwritten)")

    res = sub.add_parser("restore", help="write backups into an empty store: SQLite backup files "
                         "(teahouse backup) and admin export files (GET /admin/matches/ID/log)")
    res.add_argument("--store", required=True, help="the empty store: sqlite:PATH, redis://... or redis+cluster://...")
    res.add_argument("sources", nargs="+", help="backup files and export files (JSON Lines or msgpack)")

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "verify":
        return _verify(args.file)
    if args.command in ("backup", "restore"):
        return _backup(args) if args.command == "backup" else asyncio.run(_restore(args))
    return _client_command(args)


def _verify(path: str) -> int:
    """Exit 0 when the record checks out, 1 naming the first bad seq, 2 when it cannot be read."""
    from service.match.verify import read_lines, verify

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        lines = read_lines(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"teahouse verify: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    verdict = verify(lines)
    print(f"teahouse verify: {verdict.sentence()}", file=sys.stdout if verdict.ok else sys.stderr)
    return 0 if verdict.ok else 1


def _backup(args: argparse.Namespace) -> int:
    from service.store.backup import sqlite_backup

    if not args.store.startswith("sqlite:"):
        print("teahouse backup: only an SQLite store is backed up this way; export a Redis store's matches "
              "with the admin API (docs/operators.md, Backup and restore)", file=sys.stderr)
        return 2
    try:
        pages = sqlite_backup(args.store.removeprefix("sqlite:").removeprefix("//"), args.out)
    except (OSError, sqlite3.Error) as exc:
        print(f"teahouse backup: {exc}", file=sys.stderr)
        return 1
    print(f"teahouse backup: {args.out}: {pages} pages")
    return 0


async def _restore(args: argparse.Namespace) -> int:
    from service.store import StoreUnavailable, open_store
    from service.store.backup import restore_files

    store = open_store(args.store)
    try:
        matches, commits = await restore_files(store, args.sources)
    except (OSError, ValueError, TypeError, sqlite3.Error, StoreUnavailable) as exc:
        print(f"teahouse restore: {exc}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    print(f"teahouse restore: {matches} matches, {commits} commits written to {args.store}")
    return 0


def _client_command(args: argparse.Namespace) -> int:
    """bot and replay: a refusal or an unreachable server is one line on stderr, not a traceback."""
    import httpx
    import websockets
    from teahouse_client import ServerError
    from teahouse_client.bot import run_match

    from service.replay_cli import run_replay

    try:
        if args.command == "bot":
            seats = None if args.seats is None else [int(x) for x in args.seats.split(",") if x.strip()]
            asyncio.run(run_match(args.url, args.game, args.players, args.seed, args.quiet,
                                  strength=args.strength, bot_seats=seats))
            return 0
        return asyncio.run(run_replay(args.url, args.match, args.seat, args.step))
    except ServerError as exc:
        print(f"teahouse {args.command}: {exc.message} ({exc.code})", file=sys.stderr)
    except (httpx.TransportError, OSError, websockets.InvalidHandshake) as exc:
        print(f"teahouse {args.command}: cannot reach the server at {args.url} ({type(exc).__name__}); "
              f"is it running? (make serve, or --url / TEAHOUSE_URL)", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"teahouse {args.command}: interrupted", file=sys.stderr)
    return 1


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    if args.bench_games:
        os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # for worker processes, which import the registry anew
        from service.games import enable_bench_games

        enable_bench_games()

    import functools
    import logging
    import logging.config
    import shutil
    import tempfile

    from service.app import create_app
    from service.http.deadlines import DeadlineProtocol
    from service.ops import logs, metrics
    from service.ws.edge import EdgeProtocol

    log_config = logs.config(args.log_format or logs.default_format(), args.log_level, args.access_log)
    logging.config.dictConfig(log_config)
    limits = Limits.from_sources(args)
    # HTTP: uvicorn's own protocol with deadlines for slow requests (service.http.deadlines);
    # /ws: our WebSocket edge, handed each upgraded connection (service.ws.edge)
    options: dict = dict(host=args.host, port=args.port, http=functools.partial(DeadlineProtocol, limits),
                         loop=_event_loop(), ws=EdgeProtocol, log_level=args.log_level,
                         lifespan="on", log_config=log_config,
                         access_log=False,  # the access log is service/ops/access.py
                         # SIGTERM: stop accepting, close WebSockets with 1012 (the edge), then this
                         timeout_graceful_shutdown=limits.drain_s)
    if args.workers < 1:
        print("--workers must be at least 1", file=sys.stderr)
        return 2
    if args.workers > 1 and not args.store.startswith(SHARED_SCHEMES):
        # Each process caches its matches and learns of new commits from its store: a Redis
        # stream read by every node. The SQLite store wakes its tails in-process only, so a
        # second process would never see the first one's commits.
        print("--workers N > 1 needs a shared store (redis://...); the SQLite store serves one process",
              file=sys.stderr)
        return 2
    logging.getLogger("teahouse.serve").info(
        "Teahouse serving on http://%s:%d (store: %s%s); WebSocket ws://%s:%d/ws", args.host, args.port,
        args.store, f", {args.workers} processes" if args.workers > 1 else "", args.host, args.port)
    if args.workers == 1:
        uvicorn.run(create_app(store_url=args.store, limits=limits), **options)
        return 0
    # N processes, each a whole node (service.app.app_from_env builds it from the environment).
    os.environ[STORE_ENV] = args.store
    for f in dataclasses.fields(Limits):  # the flags given, as the environment each process reads
        raw = getattr(args, f"limit_{f.name}", None)
        if raw is not None:
            os.environ[env_name(f.name)] = raw
    options["http"] = DeadlineProtocol  # each worker process reads its limits from its environment
    # /metrics answers for every worker (service.ops.metrics): a fresh directory for their
    # values, so that no earlier run's counts are summed in; removed when the node stops.
    shared = tempfile.mkdtemp(prefix="teahouse-metrics-")
    os.environ[metrics.MULTIPROCESS_ENV] = shared
    try:
        uvicorn.run("service.app:app_from_env", factory=True, workers=args.workers, **options)
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    return 0


def _event_loop() -> str:
    """uvloop (a dependency, pyproject.toml) where it is installed: a node's CPU per move is
    mostly the event loop and the transport (bench/platform_loop.py). Named rather than
    uvicorn's "auto", so that a broken uvloop install fails loudly instead of falling back."""
    import importlib.util

    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


if __name__ == "__main__":
    sys.exit(main())
