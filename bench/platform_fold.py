"""Engine-side figures for every registered game, in process (no server):

- fold speed: events/s when re-folding a whole random playout's events from `initial`
  (what a replay, a fork or a runtime without a snapshot does);
- patch size: for every commit of the playouts and every audience (each seat, and the
  spectators), the msgpack bytes of the `patch` message the server would send (a
  protocol.patch.diff between consecutive documents {"view", "status"}, as
  service/match/projection.py builds them) against the bytes of the full `view` message;
- the server-side cost per commit and audience of view + status + diff + encode.

Run:
  .venv/bin/python bench/platform_fold.py [--playouts 5] [--players N] [--budget 1.0]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
import traceback

import _support as S  # noqa: F401 - puts the repository on sys.path

from protocol import messages
from protocol.codec import encode
from protocol.patch import diff
from protocol.v2 import KeyTable, compact_patch
from service.games import GAMES, enable_bench_games, fold, get_game
from service.games.playout import playout

MATCH = "bench-match-id"  # 14 characters, like a real match id (token_urlsafe(9) = 12)


def measure(game_id: str, players: int, playouts: int, budget: float) -> dict:
    game = get_game(game_id)
    logs: list[list[dict]] = []
    patch_bytes: dict[str, list[int]] = {}
    v2_bytes: dict[str, list[int]] = {}
    full_bytes: dict[str, list[int]] = {}
    project_s: list[float] = []
    diff_s: list[float] = []
    commits = 0
    for k in range(playouts):
        events: list[dict] = []
        docs: dict[int | None, dict] = {}
        tables: dict[int | None, KeyTable] = {}
        for step in playout(game, players, f"fold-{game_id}-{players}-{k}"):
            events += step.events
            commits += 1
            for audience in [*range(players), None]:
                name = "spectator" if audience is None else "seat"
                t = time.perf_counter()
                doc = {"view": game.view(step.after, audience), "status": game.status(step.after)}
                prev = docs.get(audience)
                if prev is not None:
                    t_diff = time.perf_counter()
                    ops = diff(prev, doc)
                    diff_s.append(time.perf_counter() - t_diff)
                    message = messages.patch(MATCH, step.seq, ops)
                    pb = encode(message, "msgpack")
                    project_s.append(time.perf_counter() - t)
                    patch_bytes.setdefault(name, []).append(len(pb))
                    v2 = encode(compact_patch(1, step.seq, message, tables[audience]), "v2.msgpack")
                    v2_bytes.setdefault(name, []).append(len(v2))
                else:
                    tables[audience] = KeyTable()
                    tables[audience].learn(doc)
                full_bytes.setdefault(name, []).append(len(encode(messages.view(MATCH, step.seq, audience, doc),
                                                                  "msgpack")))
                docs[audience] = doc
        logs.append(events)
    initial = game.initial({}, players)
    # The machine is shared: fold in short rounds and keep the fastest round's rate, in CPU
    # time of this (single-threaded) process, which other jobs taking the cores do not inflate.
    speed = 0.0
    t_end = time.perf_counter() + budget
    while time.perf_counter() < t_end or speed == 0.0:
        folded, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < budget / 5:
            for events in logs:
                fold(game, events, initial)
                folded += len(events)
        speed = max(speed, folded / max(time.process_time() - c0, 1e-9))
    return {
        "commits": commits / playouts, "events": sum(map(len, logs)) / playouts, "speed": speed,
        "patch": {a: statistics.median(v) for a, v in patch_bytes.items()},
        "v2": {a: statistics.median(v) for a, v in v2_bytes.items()},
        "patch90": {a: S.percentile(v, 90) for a, v in patch_bytes.items()},
        "full": {a: statistics.median(v) for a, v in full_bytes.items()},
        "project_us": statistics.median(project_s) * 1e6 if project_s else float("nan"),
        "diff_us": statistics.median(diff_s) * 1e6 if diff_s else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--playouts", type=int, default=5, help="random playouts per game (default 5)")
    ap.add_argument("--players", type=int, default=None,
                    help="seats per match (default: 4, clamped to each game's range)")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of re-folding per game (default 1)")
    args = ap.parse_args()
    games = [*GAMES, *enable_bench_games()]  # and the unlisted benchmark game handcards
    print(f"platform_fold: games {', '.join(games)}; {args.playouts} random playouts each; machine: {S.machine()}")
    print(f"{'game':<12} {'seats':>5} {'commits':>7} {'events':>7} {'fold events/s':>14} "
          f"{'audience':<9} {'patch B p50':>11} {'p90':>6} {'full view B':>11} {'patch/full':>10} "
          f"{'v2 patch B':>10} {'view+diff+enc us':>16} {'of it diff us':>13}")
    for game_id in games:
        game = get_game(game_id)
        players = max(game.min_players, min(game.max_players, args.players or 4))
        try:
            r = measure(game_id, players, args.playouts, args.budget)
        except Exception:  # noqa: BLE001 - an engine under construction must not hide the others
            print(f"{game_id:<12} {players:>5} failed: {traceback.format_exc().strip().splitlines()[-1]}")
            continue
        for i, audience in enumerate(("seat", "spectator")):
            head = (f"{game_id:<12} {players:>5} {r['commits']:>7.0f} {r['events']:>7.0f} {r['speed']:>14,.0f}"
                    if i == 0 else f"{'':<12} {'':>5} {'':>7} {'':>7} {'':>14}")
            p, f = r["patch"][audience], r["full"][audience]
            tail = f"{r['project_us']:>16.0f} {r['diff_us']:>13.0f}" if i == 0 else ""
            print(f"{head} {audience:<9} {p:>11.0f} {r['patch90'][audience]:>6.0f} {f:>11.0f} "
                  f"{p / f:>10.1%} {r['v2'][audience]:>10.0f} {tail}")
    print("commits/events: per playout (mean). fold events/s: best of 5 rounds re-folding every playout's "
          "events from initial, per CPU second of this process. patch/full view B: median msgpack bytes of the whole "
          "`patch` / `view` message over every commit; 'seat' pools all seats. v2 patch B: median bytes "
          "of the same patch in protocol v2 (SPEC §12). view+diff+enc us: median "
          "time per commit and audience to build the document, diff it and encode the patch; "
          "'of it diff us': protocol.patch.diff alone.")


if __name__ == "__main__":
    main()
