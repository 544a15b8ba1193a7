"""CPU per move of a commit's work on the event loop, without I/O: handcards (the rig's game),
4 seats and 8 spectators (5 audiences) on protocol v2 msgpack without sentences, as the rig's
clients ask. Per move: the commit rng and `decide`, the commit packed for the store, the fold,
the sentences, `Projection.advance` (every audience's view, diff and compact patch) and the
frame of every audience encoded once and framed for its connections (service.match.fanout.fan_out
to stand-in connections that only take the bytes). Process CPU time, best of --rounds, so other
jobs on the cores inflate it little; `valgrind --tool=callgrind` on it gives instruction counts.

Run:
  .venv/bin/python bench/platform_commit.py [--matches 100] [--rounds 3]
  .venv/bin/python bench/platform_commit.py --repo /path/to/other/checkout   # the same, other code
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


class _Connection:
    """What fan_out hands a frame to: it keeps the length of the framed bytes, nothing else.
    Where the runtime hands payloads and the transport frames them (service/ws/wire.py), they
    are framed here as the edge frames them, once per broadcast."""

    encoding = "quiet.v2.msgpack"
    frames: Any = None

    def __init__(self) -> None:
        self.bytes = 0

    def deliver(self, data: bytes, framed: bytes | None = None) -> None:
        if framed is None and self.frames is not None:
            framed = self.frames.frame(data, True)
        self.bytes += len(framed if framed is not None else data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=100, help="60-move matches per round")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds; the fastest is kept")
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout whose code is measured")
    args = ap.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    from service.games import enable_bench_games, fold, get_game
    from service.games.chance import commit_rng
    from service.games.preamble import normalized
    from service.match.fanout import fan_out
    from service.match.narration import commit_sentences
    from service.match.projection import Projection
    from service.store import Commit

    try:
        from service.ws.wire import FrameCache
    except ImportError:
        pass  # a checkout whose runtime hands the framed bytes itself
    else:
        _Connection.frames = FrameCache()
    enable_bench_games()
    game = get_game("handcards")
    names = ["Ann", "Bo", "Cy", "Di"]

    def play(k: int) -> int:
        state: dict[str, Any] = game.initial({"seed": k}, 4)
        state = fold(game, game.decide(state, None, {"type": "start"}, commit_rng(f"s{k}", 1)), state, 1)
        seq = 1
        projection = Projection(game, f"m{k}", k)
        audiences: dict[int | None, list[_Connection]] = {a: [_Connection() for _ in range(1 if a is not None else 8)]
                                                          for a in (0, 1, 2, 3, None)}
        for a in audiences:
            projection.watch(a, state, seq)
        while not game.status(state)["finished"]:
            seat = state["turn"]
            command = {"type": "play", "card": state["hands"][seat][k % len(state["hands"][seat])]["id"]}
            events = game.decide(state, seat, command, commit_rng(f"s{k}", seq + 1))
            c = Commit(seq=seq + 1, seat=seat, command=normalized(game.commands, seat, command), events=events,
                       move_id=f"m{seq}", ts=int(time.time() * 1000))
            c.pack()
            state, seq = fold(game, c.events, state, 1), c.seq
            said = commit_sentences(game, c.seat, c.command, c.events, c.move_id, names, state)
            for a, frame in projection.advance(state, seq, said).items():
                fan_out(frame, audiences[a])
        return seq - 1

    play(0)  # warm up
    best = float("inf")
    moves = 0
    for _ in range(args.rounds):
        moves = 0
        c0 = time.process_time()
        for k in range(args.matches):
            moves += play(k)
        best = min(best, time.process_time() - c0)
    print(f"platform_commit: {args.repo.resolve()}; handcards, 5 audiences (4 seats + 8 spectators), "
          f"{moves} moves per round, best of {args.rounds}")
    print(f"CPU per move: {best / moves * 1e6:.1f} us")


if __name__ == "__main__":
    main()
