"""Every seat's chance of winning at every commit of a finished match, by the search bot's
playouts (protocol/SPEC.md 2.14), and the key moments: the commits that moved the chances most.

Once a match is over every card is public, so the estimate may look at every seat's hand; what
no seat could see at a commit (the deck's order, face-down piles) is dealt again for each
playout (`Game.redeal` keeping every seat, as a fork deals: SPEC 11), so a playout does not
know the future draws. From that world every seat plays the search bot's rollout policy (a
random move drawn by kind, as ISMCTS's rollouts do: ismcts.grouped_choice) to the end. The
estimate of a seat is the share of the playouts it won (a shared win split among its winners).

A fixed number of playouts per commit bounds the work: at most `playouts` x commits x
ROLLOUT_CAP plies per match. It is deterministic: commit n's playouts draw from a generator
seeded by sha256 of the match's seed and n, so anyone holding the revealed seed gets the same
figures. A pure function of plain arguments: the server runs it in a worker process.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

from service.bots.ismcts import apply_move, grouped_choice
from service.games import fold, get_game
from service.games.interface import Game, State

METHOD = "playouts"
ROLLOUT_CAP = 3000   # plies at most in one playout; a longer one is judged by its scores then
KEY_MOMENTS = 3      # the largest swings marked
MIN_SWING = 0.05     # a swing smaller than this is no key moment, whatever the playouts


def commit_stream(seed: str, seq: int) -> random.Random:
    digest = hashlib.sha256(f"teahouse-analysis/{seed}/{seq}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def analyse(game_id: str, options: dict[str, Any], players: int, rules_version: int,
            commits: list[dict[str, Any]], seed: str, playouts: int) -> dict[str, Any]:
    """`commits`: the log as [{"seq", "seat", "events"}]. Returns `chances` (one row per seq from
    0 to the last, one estimate per seat, each row summing to 1) and `key_moments`."""
    game = get_game(game_id)
    state = game.initial(options, players)
    rows: list[list[float]] = [[1.0 / players] * players]  # seq 0: nothing has happened yet
    for c in commits:
        state = fold(game, c["events"], state, rules_version)
        rows.append([round(p, 6) for p in estimate(game, state, players, playouts, commit_stream(seed, c["seq"]))])
    return {"method": METHOD, "playouts": playouts, "chances": rows,
            "key_moments": key_moments(rows, commits, noise_floor(playouts))}


def estimate(game: Game, state: State, players: int, playouts: int, rng: random.Random) -> list[float]:
    status = game.status(state)
    if status["finished"]:
        return share(status["result"], players)
    if game.redeal is None or not status["to_act"]:
        return [1.0 / players] * players
    everyone = frozenset(range(players))
    won = [0.0] * players
    for _ in range(playouts):
        world = game.redeal(state, rng, everyone)
        for seat, part in enumerate(play_out(game, world, players, rng)):
            won[seat] += part
    return [w / playouts for w in won]


def play_out(game: Game, state: State, players: int, rng: random.Random) -> list[float]:
    """One playout to the end: each seat's share of the win."""
    for _ in range(ROLLOUT_CAP):
        status = game.status(state)
        if status["finished"]:
            return share(status["result"], players)
        if not status["to_act"]:
            break
        actor = rng.choice(status["to_act"])
        moves = game.legal_moves(state, actor)
        after = apply_move(game, state, actor, grouped_choice(moves, rng), rng) if moves else None
        if after is None:
            break
        state = after
    return leaders(game, state, players)


def share(result: Mapping[str, Any] | None, players: int) -> list[float]:
    winners = (result or {}).get("winners") or []
    if not winners:
        return [1.0 / players] * players
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]


def leaders(game: Game, state: State, players: int) -> list[float]:
    """A playout cut short: the win goes to the seats ahead by the game's evaluation hint."""
    points = game.evaluate(state) if game.evaluate is not None else [0.0] * players
    best = max(points)
    ahead = [seat for seat in range(players) if points[seat] == best]
    return [1.0 / len(ahead) if seat in ahead else 0.0 for seat in range(players)]


def noise_floor(playouts: int) -> float:
    """The smallest swing that is more than the playouts' noise: two estimates of k playouts
    each differ by up to 0.5 * sqrt(2 / k) (one standard deviation) with nothing changed, so a
    swing counts from twice that, 1 / sqrt(2k) * 2 = sqrt(2 / k)."""
    return max(MIN_SWING, (2 / max(1, playouts)) ** 0.5)


def key_moments(rows: list[list[float]], commits: list[dict[str, Any]], floor: float) -> list[dict[str, Any]]:
    """The KEY_MOMENTS commits whose chances moved most from the step before (the largest change
    of any seat's chance, at least `floor`), in seq order, each with the seat whose chance rose
    most. The last commit (the result replacing the estimate) counts like any other."""
    swings = []
    for c in commits:
        n = c["seq"]
        if n >= len(rows):
            break
        deltas = [after - before for before, after in zip(rows[n - 1], rows[n], strict=True)]
        swing = max(abs(d) for d in deltas)
        if swing >= floor:
            gainer = max(range(len(deltas)), key=lambda s: (deltas[s], -s))
            swings.append({"seq": n, "seat": c["seat"], "swing": round(swing, 6), "for": gainer})
    top = sorted(swings, key=lambda m: (-m["swing"], m["seq"]))[:KEY_MOMENTS]
    return sorted(top, key=lambda m: m["seq"])
