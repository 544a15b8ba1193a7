"""Setup (§3): the state before the start, the options that fix chance, and the start itself."""

from __future__ import annotations

from typing import Any

from service.games.gugong import data
from service.games.gugong.engine import push
from service.games.interface import Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own_item

MIN_PLAYERS = 2
MAX_PLAYERS = 5

OPTION_KEYS = ("start_player", "dice", "location_cards", "draw_pile", "travel_tokens", "decrees",
               "random_start_hands")


def initial(options: dict[str, Any], players: int) -> State:
    if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count", f"Gùgōng is played by {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    opts = validate_options(options, players)
    side = data.side_for(players)
    return {
        "phase": "waiting",
        "n": players,
        "options": opts,
        "side": side,
        "routes": data.routes_for(side),
        "wall_threshold": data.wall_threshold(players),
        "day": 0,
        "start_player": None,
        "medal": None,
        "dice": None,
        "locations": {},
        "draw_pile": [],
        "map": {c: None for c in data.CITIES},
        "pile_a": [],
        "pile_b": [],
        "travel_discard": [],
        "in_transit": None,
        "decrees": [],
        "boxed_decrees": [],
        "decree_servants": {},
        "jade_spots": [True for _ in data.jade_costs(side)],
        "wall": [],
        "canal": {r: [None for _ in data.ROUTES[r]] for r in data.routes_for(side)},
        "arrivals": [],
        "stamp": 0,
        "players": [_new_player() for _ in range(players)],
        "turn": None,
        "stack": [],
        "result": None,
        "breakdown": None,
    }


def _new_player() -> dict[str, Any]:
    return {
        "pool": data.BOARD["servants"]["pool"],
        "supply": data.BOARD["servants"]["supply"],
        "foreman": "locked",
        "hand": [],
        "discard": [],
        "tokens": [],
        "vp": 0,
        "jade": 0,
        "envoy": 0,
        "arrival_vp": None,
        "intrigue": 0,
        "stamp": 0,
        "slots": {k: 0 for k in data.REWARD_KINDS},
        "decrees": [],
        "traveller": None,
    }


def validate_options(options: Any, players: int) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise IllegalMove("bad_options", "Options must be an object.")
    unknown = sorted(k for k in options if k not in OPTION_KEYS)
    if unknown:
        raise IllegalMove("bad_options", f"Unknown option(s) {unknown}; known: {list(OPTION_KEYS)}.")
    out: dict[str, Any] = {}
    if "start_player" in options:
        v = options["start_player"]
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < players:
            raise IllegalMove("bad_options", f"start_player must be a seat from 0 to {players - 1}.")
        out["start_player"] = v
    if "dice" in options:
        v = options["dice"]
        if not isinstance(v, list) or len(v) > data.BOARD["days"]:
            raise IllegalMove("bad_options", "dice must be a list with one entry (null or 3 faces) per day, at most 4.")
        for day, roll in enumerate(v, start=1):
            if roll is None:
                continue
            if not isinstance(roll, list) or len(roll) != len(data.DICE):
                raise IllegalMove("bad_options", f"dice for day {day} must list one face per die, in die order.")
            for die, face in enumerate(roll):
                if not isinstance(face, int) or isinstance(face, bool) or face not in data.DICE[die]:
                    raise IllegalMove("bad_options", f"illegal_die_face: die {die + 1} has no face {face!r} (day {day}).")
        out["dice"] = [None if r is None else list(r) for r in v]
    if "location_cards" in options:
        v = options["location_cards"]
        if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(c, str) for k, c in v.items()) \
                or sorted(v) != sorted(data.LOCATIONS) or sorted(v.values()) != sorted(data.LOCATION_CARDS):
            raise IllegalMove("bad_options", f"location_cards must map each of {data.LOCATIONS} to one of the "
                                             f"location cards {data.LOCATION_CARDS}, each once.")
        out["location_cards"] = dict(v)
    if "draw_pile" in options:
        v = options["draw_pile"]
        if not isinstance(v, list) or not all(isinstance(c, str) for c in v) or sorted(v) != sorted(data.DRAW_CARDS):
            raise IllegalMove("bad_options", f"draw_pile must list the draw-pile cards {data.DRAW_CARDS} in order, top first.")
        out["draw_pile"] = list(v)
    if "travel_tokens" in options:
        v = options["travel_tokens"]
        if not isinstance(v, list) or not all(isinstance(t, str) for t in v) or sorted(v) != sorted(data.TOKENS):
            raise IllegalMove("bad_options", "travel_tokens must list all 32 token ids once: the first 12 go to the "
                                             "cities in id order, the rest form pile A then pile B.")
        out["travel_tokens"] = list(v)
    if "decrees" in options:
        v = options["decrees"]
        per = data.DECREES_IN_PLAY_PER_LEVEL
        ok = isinstance(v, list) and all(isinstance(d, str) and d in data.DECREES for d in v) and len(set(v)) == len(v)
        if ok:
            levels = [data.DECREES[d]["level"] for d in v]
            ok = all(levels.count(lv) == per for lv in data.DECREE_LEVELS) and len(v) == per * len(data.DECREE_LEVELS)
        if not ok:
            raise IllegalMove("bad_options", f"decrees must name {per} decrees of each level, each once.")
        out["decrees"] = list(v)
    if "random_start_hands" in options:
        v = options["random_start_hands"]
        if not isinstance(v, bool):
            raise IllegalMove("bad_options", "random_start_hands (the expert variant) must be true or false.")
        out["random_start_hands"] = v
    return out


def fixed_dice(s: State, day: int) -> list[int] | None:
    rolls = s["options"].get("dice") or []
    return list(rolls[day - 1]) if day - 1 < len(rolls) and rolls[day - 1] is not None else None


def roll_dice(ctx: Turn, day: int) -> list[int]:
    fixed = fixed_dice(ctx.state, day)
    if fixed is not None:
        return fixed
    return [ctx.rng.choice(faces) for faces in data.DICE]


def start(ctx: Turn) -> None:
    """§3: every random outcome of setup is drawn here and written into `game_started`."""
    s, rng, opts = ctx.state, ctx.rng, ctx.state["options"]
    n = s["n"]
    first = opts["start_player"] if "start_player" in opts else rng.randrange(n)
    if "location_cards" in opts:
        locations = dict(opts["location_cards"])
    else:
        cards = list(data.LOCATION_CARDS)
        rng.shuffle(cards)
        locations = dict(zip(data.LOCATIONS, cards, strict=True))
    draw = list(opts["draw_pile"]) if "draw_pile" in opts else _shuffled(rng, data.DRAW_CARDS)
    tokens = list(opts["travel_tokens"]) if "travel_tokens" in opts else _shuffled(rng, sorted(data.TOKENS))
    on_map = dict(zip(data.CITIES, tokens[: len(data.CITIES)], strict=True))
    rest = tokens[len(data.CITIES):]
    half = (len(rest) + 1) // 2    # an odd remainder puts the extra token on pile A (§3.3)
    if "decrees" in opts:
        chosen = list(opts["decrees"])
    else:
        chosen = []
        for level in data.DECREE_LEVELS:
            tiles = sorted(d for d in data.DECREES if data.DECREES[d]["level"] == level)
            chosen += sorted(rng.sample(tiles, data.DECREES_IN_PLAY_PER_LEVEL))
    boxed = sorted(d for d in data.DECREES if d not in chosen)
    dice = roll_dice(ctx, 1)
    hands: list[list[str]] = [[] for _ in range(n)]
    if opts.get("random_start_hands"):
        pool = _shuffled(rng, data.START_CARDS)
        size = data.BOARD["hand_size"]
        for k in range(n):
            hands[(first + k) % n] = pool[k * size:(k + 1) * size]
    else:
        for k in range(n):
            hands[(first + k) % n] = list(data.START_SETS[k + 1])
    ctx.emit({
        "type": "game_started",
        "start_player": first,
        "locations": locations,
        "draw_pile": draw,
        "map": on_map,
        "pile_a": rest[:half],
        "pile_b": rest[half:],
        "decrees": chosen,
        "boxed_decrees": boxed,
        "dice": dice,
        "hands": hands,
    })
    push(ctx, {"kind": "next_turn", "from": first})


def _on_game_started(s: State, e: Event) -> None:
    n = s["n"]
    s["phase"] = "day"
    s["day"] = 1
    s["start_player"] = e["start_player"]
    s["locations"] = dict(e["locations"])
    s["draw_pile"] = list(e["draw_pile"])
    s["map"] = dict(e["map"])
    s["pile_a"] = list(e["pile_a"])
    s["pile_b"] = list(e["pile_b"])
    s["decrees"] = list(e["decrees"])
    s["boxed_decrees"] = list(e["boxed_decrees"])
    s["decree_servants"] = {d: [] for d in e["decrees"]}
    s["dice"] = list(e["dice"])
    for seat, hand in enumerate(e["hands"]):
        own_item(s, "players", seat)["hand"] = list(hand)
    # Intrigue markers start stacked in turn order, the start player at the bottom (§3.9).
    for k in range(n):
        own_item(s, "players", (e["start_player"] + k) % n)["stamp"] = k
    s["stamp"] = n


def _shuffled(rng: Any, items: list[str]) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


APPLY: dict[str, Evolver] = {
    "game_started": _on_game_started,
}
