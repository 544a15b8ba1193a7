"""`teahouse serve | bot | replay`."""

from __future__ import annotations

import argparse
import asyncio
import sys

from service.limits import Limits
from service.store import DEFAULT_URL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="teahouse", description="Teahouse board-game server")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--store", default=DEFAULT_URL,
                       help="sqlite:PATH (default: sqlite:teahouse-data) or redis://HOST:PORT/DB")
    serve.add_argument("--log-level", default="warning")
    serve.add_argument("--bench-games", action="store_true",
                       help="also play the unlisted benchmark games of bench/games (e.g. handcards)")
    Limits.add_arguments(serve)

    bot = sub.add_parser("bot", help="create a match on a running server and play it with bots "
                         "(random SDK bots, or the server's bots of a --strength)")
    bot.add_argument("--game", default="pixies")
    bot.add_argument("--strength", type=int, default=None,
                     help="0 random, 1 greedy, 2-5 ISMCTS: the server's bots play --seats (default all)")
    bot.add_argument("--seats", default=None, help="with --strength: comma-separated seats for the server's bots")
    bot.add_argument("--players", type=int, default=3)
    bot.add_argument("--url", default="http://127.0.0.1:8000")
    bot.add_argument("--seed", type=int, default=0)
    bot.add_argument("--quiet", action="store_true")

    rep = sub.add_parser("replay", help="step through a finished match commit by commit")
    rep.add_argument("match")
    rep.add_argument("--url", default="http://127.0.0.1:8000")
    rep.add_argument("--seat", type=int, default=None, help="watch from this seat (default: spectator)")
    rep.add_argument("--step", action="store_true", help="wait for Enter between commits")

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "bot":
        from clients.python.bot import run_match

        seats = None if args.seats is None else [int(x) for x in args.seats.split(",") if x.strip()]
        asyncio.run(run_match(args.url, args.game, args.players, args.seed, args.quiet,
                              strength=args.strength, bot_seats=seats))
        return 0
    from clients.python.replay import run_replay

    return asyncio.run(run_replay(args.url, args.match, args.seat, args.step))


def _serve(args: argparse.Namespace) -> int:
    import os

    import uvicorn

    if args.bench_games:
        os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # for worker processes, which import the registry anew
        from service.games import enable_bench_games

        enable_bench_games()

    from service.app import create_app

    app = create_app(store_url=args.store, limits=Limits.from_sources(args))
    print(f"Teahouse serving on http://{args.host}:{args.port} (store: {args.store}); "
          f"WebSocket ws://{args.host}:{args.port}/ws", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, ws="websockets-sansio", ws_per_message_deflate=False,
                ws_max_size=1 << 20, log_level=args.log_level, lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
