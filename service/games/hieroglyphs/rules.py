"""Chinese Squared (Ch2): the rules, in the order of the rulebook (spec sections 4-6).

Setup, the turn (play a card with an optional meaning claim, move, resolve the stop), the
actions at the bases and the Emperor under the increasing-cost rule, the end of the turn,
scoring and the end of the game.

`decide` validates a command and returns the events it causes; every random outcome (the
shuffles, the first player, a claim's distractors and the position of the right answer) is
drawn here and written into the event. `evolve` applies one event, including every step
with no choice in it (top-up, pick-up, refills, normalisation, the end-of-game checks).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import Any, TypedDict

from service.games.hieroglyphs.data import (
    BASE_ORDER,
    BASE_ROLE,
    BASES,
    BLOCKS,
    COIN_CAP,
    COINS_PER_PLAYER,
    DEFAULT_CONTENT,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_TARGET,
    HAND_SIZE,
    OPTIONS_PER_CLAIM,
    SLOT_DEAL_ORDER,
    SLOTS,
    TELEPORTS,
    ContentError,
    card_char,
    compile_content,
    distractors,
    is_distractor,
    kind,
)
from service.games.hieroglyphs.movement import check_path
from service.games.interface import Command, Event, IllegalMove, Rng, State, Status
from service.games.kit import Evolver

MIN_PLAYERS, MAX_PLAYERS = 2, 4

# The actions each kind of stop offers; every one of them is priced by the increasing-cost rule
# except `minister_resolve` (the Minister's free exchange step).
BASE_ACTIONS = {
    "TEACHER": ("study", "view_task"),
    "GENERAL": ("blast",),
    "MINISTER": ("minister_draw", "minister_resolve"),
    "SPY": ("spy_swap",),
}
EMPEROR_ACTIONS = ("attach", "detach", "declare")


OPTION_KEYS = (
    "mode", "target", "round_limit", "max_rounds", "task_selection", "meaning_check",
    "content", "first_player", "deck_order", "task_order", "claim_options",
)


# --- Options and the state before the start (spec 4.1) ----------------------------------------


def initial(options: dict[str, Any], seats: int) -> State:
    if not isinstance(seats, int) or isinstance(seats, bool) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count", f"Chinese Squared is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {seats!r}")
    opts = _check_options(options, seats)
    content = opts.pop("_content")
    return {
        "players": seats,
        "options": opts,
        "content": content,
        "phase": "waiting",
        "round": 0,
        "first": None,
        "active": None,
        "chooser": None,
        "slots": {},
        "deck": [],
        "hands": [[] for _ in range(seats)],
        "coins": [0] * seats,
        "bank": 0,
        "positions": [None] * seats,
        "start_bases": [None] * seats,
        "tasks": [None] * seats,
        "task_viewed": [False] * seats,
        "attached": [[] for _ in range(seats)],
        "task_offer": [],
        "task_deck": [],
        "revealed_tasks": [],
        "completed": [[] for _ in range(seats)],
        "removed": [],
        "studied": [[] for _ in range(seats)],
        "claims": 0,
        "passes": 0,
        "turn": _fresh_turn(),
        "result": None,
    }


def _check_options(options: Any, seats: int) -> dict[str, Any]:
    if not isinstance(options, dict):
        _bad("options must be an object")
    unknown = sorted(str(k) for k in options if k not in OPTION_KEYS)
    if unknown:
        _bad(f"unknown option(s): {', '.join(unknown)}; known: {', '.join(OPTION_KEYS)}")
    mode = options.get("mode", "target")
    if mode not in ("target", "rounds"):
        _bad("mode must be 'target' or 'rounds'")
    opts: dict[str, Any] = {"mode": mode}
    if mode == "target":
        if "round_limit" in options:
            _bad("round_limit belongs to rounds mode; target mode ends at max_rounds")
        opts["target"] = _int_option(options, "target", DEFAULT_TARGET[seats], 1)
        opts["max_rounds"] = _int_option(options, "max_rounds", DEFAULT_MAX_ROUNDS, 1)
    else:
        for key in ("target", "max_rounds"):
            if key in options:
                _bad(f"{key} does not apply in rounds mode")
        if "round_limit" not in options:
            _bad("rounds mode needs an integer round_limit of at least 1")
        opts["round_limit"] = _int_option(options, "round_limit", 0, 1)
    selection = options.get("task_selection", "choose")
    if selection not in ("choose", "random"):
        _bad("task_selection must be 'choose' or 'random'")
    opts["task_selection"] = selection
    check = options.get("meaning_check", "multiple_choice")
    if check not in ("multiple_choice", "off"):
        _bad("meaning_check must be 'multiple_choice' or 'off'")
    opts["meaning_check"] = check

    if "content" in options:
        try:
            content = compile_content(options["content"])
        except ContentError as err:
            raise IllegalMove("bad_options", f"content set rejected: {err}") from None
    else:
        content = DEFAULT_CONTENT
    opts["_content"] = content

    first = options.get("first_player")
    if first is not None and (not _is_int(first) or not 0 <= first < seats):
        _bad(f"first_player must be a seat number from 0 to {seats - 1}")
    opts["first_player"] = first
    opts["deck_order"] = _permutation_option(options, "deck_order", content["card_ids"], "card ids")
    opts["task_order"] = _permutation_option(options, "task_order", content["task_ids"], "task ids")
    opts["claim_options"] = _claim_options(options.get("claim_options"), content)
    return opts


def _int_option(options: dict[str, Any], key: str, default: int, least: int) -> int:
    value = options.get(key, default)
    if not _is_int(value) or value < least:
        _bad(f"{key} must be an integer of at least {least}, not {value!r}")
    return int(value)


def _permutation_option(options: dict[str, Any], key: str, ids: list[str], what: str) -> list[str] | None:
    value = options.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or sorted(value) != sorted(ids):
        _bad(f"{key} must list every one of the content set's {len(ids)} {what} exactly once")
    return list(value)


def _claim_options(value: Any, content: dict[str, Any]) -> dict[str, list[str]]:
    """Fixed multiple-choice options per character: {char: [4 glosses in display order]}."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        _bad("claim_options must map characters to lists of 4 glosses")
    chars = content["chars"]
    fixed: dict[str, list[str]] = {}
    for char in sorted(value):
        glosses = value[char]
        if char not in chars:
            _bad(f"claim_options: {char!r} is not a character of the content set")
        if (not isinstance(glosses, list) or len(glosses) != OPTIONS_PER_CLAIM
                or not all(isinstance(g, str) for g in glosses) or len(set(glosses)) != OPTIONS_PER_CLAIM):
            _bad(f"claim_options[{char!r}] must be {OPTIONS_PER_CLAIM} distinct glosses")
        own = chars[char]["gloss"]
        if own not in glosses:
            _bad(f"claim_options[{char!r}] must include the character's own gloss {own!r}")
        eligible = set(distractors(chars, char))
        bad = [g for g in glosses if g != own and g not in eligible]
        if bad:
            _bad(f"claim_options[{char!r}]: {', '.join(map(repr, bad))} are not eligible distractors")
        fixed[char] = list(glosses)
    return fixed


# --- Setup (4.2): the shuffles, the start bases, the tasks ------------------------------------


def _start(state: State, rng: Rng) -> list[Event]:
    opts, content = state["options"], state["content"]
    deck = opts["deck_order"]
    if deck is None:
        deck = list(content["card_ids"])
        rng.shuffle(deck)
    tasks = opts["task_order"]
    if tasks is None:
        tasks = list(content["task_ids"])
        rng.shuffle(tasks)
    first = opts["first_player"]
    if first is None:
        first = rng.randrange(state["players"])
    return [{"type": "setup_shuffled", "deck_order": list(deck), "task_order": list(tasks), "first_player": first}]


def _on_setup_shuffled(s: State, e: Event) -> None:
    content = s["content"]
    if sorted(e["deck_order"]) != sorted(content["card_ids"]) or sorted(e["task_order"]) != sorted(content["task_ids"]):
        raise ValueError("setup_shuffled does not hold permutations of the content set's cards and tasks")
    deck = list(e["deck_order"])
    s["slots"] = {cell: None for cell in SLOTS}
    for cell in SLOT_DEAL_ORDER:
        s["slots"][cell] = deck.pop(0) if deck else None
    n, first = s["players"], e["first_player"]
    for k in range(n):
        seat = (first + k) % n
        s["hands"][seat], deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
    s["deck"] = deck
    s["bank"] = COINS_PER_PLAYER * n
    s["first"] = first
    s["chooser"] = first
    s["task_offer"] = list(e["task_order"])
    s["phase"] = "setup_bases"


def _choose_base(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "setup_bases")
    base = _field(cmd, "base", str)
    if base not in BASES:
        raise IllegalMove("unknown_base", f"the bases are {', '.join(BASE_ORDER)}")
    if base in state["start_bases"]:
        raise IllegalMove("base_taken", f"another player already starts on the {base.title()}")
    return [{"type": "start_base_chosen", "seat": seat, "base": base}]


def _on_start_base_chosen(s: State, e: Event) -> None:
    s["positions"][e["seat"]] = BASES[e["base"]]
    s["start_bases"][e["seat"]] = e["base"]
    s["chooser"] = (e["seat"] + 1) % s["players"]
    if s["chooser"] != s["first"]:
        return
    if s["options"]["task_selection"] == "choose":
        s["phase"] = "setup_tasks"
        return
    # Variant taskSelection: random: each player in seat order is dealt the top task.
    for k in range(s["players"]):
        seat = (s["first"] + k) % s["players"]
        s["tasks"][seat] = s["task_offer"].pop(0)
    _begin_play(s)


def _pick_task(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "setup_tasks")
    task = _field(cmd, "task", str)
    if task not in state["task_offer"]:
        raise IllegalMove("task_not_available", f"task {task!r} is not on offer")
    return [{"type": "task_picked", "seat": seat, "task": task}]


def _on_task_picked(s: State, e: Event) -> None:
    s["tasks"][e["seat"]] = e["task"]
    s["task_offer"].remove(e["task"])
    s["chooser"] = (e["seat"] + 1) % s["players"]
    if s["chooser"] == s["first"]:
        _begin_play(s)


def _begin_play(s: State) -> None:
    s["task_deck"], s["task_offer"] = s["task_offer"], []
    s["chooser"] = None
    s["round"] = 1
    s["active"] = s["first"]
    if not _start_turn(s):
        _pass_on(s)


# --- The turn (5.1): who sends what -----------------------------------------------------------


Decider = Callable[[State, int, Command, Rng], list[Event]]


def decide(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
    # The shared preamble (service.games.preamble) has checked the command's shape, type and
    # fields, and that the game is running.
    kind_ = command["type"]
    if seat is None:
        return _start(state, rng) if kind_ == "start" else _timeout(state)
    handler = _DECIDE[kind_]
    if seat not in status(state)["to_act"]:
        raise IllegalMove("not_your_turn", "it is not your turn")
    return handler(state, seat, command, rng)


# --- Play a card, with an optional meaning claim (5.3, 9) -------------------------------------


def _play_card(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "play")
    card = _field(cmd, "card", str)
    claim = _field(cmd, "claim", bool, default=False)
    if card not in state["hands"][seat]:
        raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    event: Event = {"type": "card_played", "seat": seat, "card": card, "claim": claim}
    if claim:
        if state["options"]["meaning_check"] == "off":
            raise IllegalMove("invalid_option", "meaning claims are switched off in this match")
        event["challenge"] = _challenge(state, card_char(card), rng)
    return [event]


def _challenge(state: State, char: str, rng: Rng) -> dict[str, Any]:
    """Spec 9.2 and R4: the card's gloss plus 3 eligible distractors, in a random order."""
    chars = state["content"]["chars"]
    gloss = chars[char]["gloss"]
    fixed = state["options"]["claim_options"].get(char)
    if fixed is not None:
        options = list(fixed)
    else:
        options = [gloss, *rng.sample(distractors(chars, char), OPTIONS_PER_CLAIM - 1)]
        rng.shuffle(options)
    return {"options": options, "correct_index": options.index(gloss)}


def _on_card_played(s: State, e: Event) -> None:
    seat, card = e["seat"], e["card"]
    s["hands"][seat].remove(card)
    s["turn"]["played"] = card
    if e["claim"]:
        challenge = e["challenge"]
        _check_challenge(s, card_char(card), challenge)
        s["claims"] += 1
        s["turn"]["claim"] = {
            "options": list(challenge["options"]),
            "correct_index": challenge["correct_index"],
            # The sealed answer: one string, unique per claim, that no view may carry while
            # the claim is pending (the canary looks for it through `secrets`).
            "seal": f"claim-{s['claims']}-answer-{challenge['correct_index']}",
        }
        s["phase"] = "meaning"
    else:
        _drown(s, card)


def _check_challenge(s: State, char: str, challenge: dict[str, Any]) -> None:
    """Spec 8: a recorded challenge must be the card's gloss plus eligible distractors. A bad one
    is a server bug, not a player's mistake, so it is no IllegalMove."""
    chars = s["content"]["chars"]
    options, index = challenge["options"], challenge["correct_index"]
    if (len(options) != OPTIONS_PER_CLAIM or len(set(options)) != OPTIONS_PER_CLAIM
            or not 0 <= index < OPTIONS_PER_CLAIM or options[index] != chars[char]["gloss"]
            or not all(is_distractor(chars, char, o) for i, o in enumerate(options) if i != index)):
        raise ValueError(f"malformed challenge for {char}: {challenge!r}")


def _answer(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "meaning")
    if "choice" not in cmd:
        raise IllegalMove("bad_command", "'choice' is required: an option index 0-3, or null for no answer")
    choice = cmd["choice"]
    if choice is not None and (not _is_int(choice) or not 0 <= choice < OPTIONS_PER_CLAIM):
        raise IllegalMove("invalid_option", f"choose an option from 0 to {OPTIONS_PER_CLAIM - 1}, or null")
    correct = choice == state["turn"]["claim"]["correct_index"]
    return [{"type": "meaning_answered", "seat": seat, "choice": choice, "correct": correct}]


def _timeout(state: State) -> list[Event]:
    """The system's answer for a claimer who let the time run out (9.4): no answer, no coin."""
    if state["phase"] != "meaning":
        raise IllegalMove("nothing_to_time_out", "only a pending meaning claim can time out")
    return [{"type": "meaning_answered", "seat": state["active"], "choice": None, "correct": False}]


def _on_meaning_answered(s: State, e: Event) -> None:
    seat, claim = e["seat"], s["turn"]["claim"]
    right = e["choice"] == claim["correct_index"]
    if right and s["coins"][seat] < COIN_CAP:
        s["coins"][seat] += 1
        s["bank"] -= 1
    s["turn"]["claim"] = {"options": claim["options"], "correct_index": claim["correct_index"],
                          "choice": e["choice"], "correct": right}
    _drown(s, s["turn"]["played"])


def _drown(s: State, card: str) -> None:
    """The played card is revealed and sinks to the bottom of the deck (10.2); its tone gives the steps."""
    s["deck"].append(card)
    s["turn"]["steps"] = s["content"]["chars"][card_char(card)]["steps"]
    s["phase"] = "move"


# --- Move, and the stop (5.4, 5.5) ------------------------------------------------------------


def _move(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "move")
    path = _field(cmd, "path", list)
    if not all(isinstance(c, str) for c in path):
        raise IllegalMove("bad_command", "'path' must be a list of cell ids")
    check_path(state["positions"][seat], state["turn"]["steps"], path)
    return [{"type": "moved", "seat": seat, "path": list(path)}]


def _on_moved(s: State, e: Event) -> None:
    seat = e["seat"]
    if e["path"]:
        s["positions"][seat] = e["path"][-1]
    stop = s["positions"][seat]
    s["turn"]["stop"] = stop
    where = kind(stop)
    if where == "slot":
        card = s["slots"][stop]
        if card is not None:
            s["hands"][seat].append(card)
            s["slots"][stop] = None
        if s["deck"]:
            s["slots"][stop] = s["deck"].pop(0)
        _close_turn(s, seat, [])
    elif where == "teleport":
        s["phase"] = "teleport"
    elif where == "base":
        _fill_hand(s, seat)                      # the refill comes before the base's action
        s["phase"] = "base"
    else:
        s["phase"] = "emperor"                   # no refill on arrival (10.23)


def _teleport(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_phase(state, "teleport")
    to = _field(cmd, "to", str, default=None, nullable=True)
    if to is not None and (to not in TELEPORTS or to == state["positions"][seat]):
        raise IllegalMove("invalid_teleport_target", "jump to one of the other three teleports, or stay (null)")
    return [{"type": "teleported", "seat": seat, "to": to}]


def _on_teleported(s: State, e: Event) -> None:
    seat = e["seat"]
    if e["to"] is not None:
        s["positions"][seat] = e["to"]
    _fill_hand(s, seat)
    _close_turn(s, seat, [])


# --- The actions at a stop and the increasing-cost rule (5.6, 5.7) ----------------------------


def _need_place(state: State, seat: int, action: str) -> None:
    """Phase, then place: a base's action only at that base, an Emperor action only there."""
    phase = state["phase"]
    if phase == "base":
        role = BASE_ROLE[state["positions"][seat]]
        if action not in BASE_ACTIONS[role]:
            raise IllegalMove("action_not_available_here", f"the {role.title()} does not offer {action}")
    elif phase == "emperor":
        if action not in EMPEROR_ACTIONS:
            raise IllegalMove("action_not_available_here", f"the Emperor does not offer {action}")
    else:
        raise IllegalMove("wrong_phase", f"{action} needs a stop at a base or the Emperor")


def price(state: State) -> int:
    """The increasing-cost rule: the k-th action of a stop costs k - 1 coins."""
    return int(state["turn"]["actions"])


def _need_price(state: State, seat: int) -> None:
    cost = price(state)
    if state["coins"][seat] < cost:
        raise IllegalMove("insufficient_yuanka", f"this action costs {cost} coins; you have {state['coins'][seat]}")


def _pay(s: State, seat: int) -> None:
    cost = price(s)
    s["coins"][seat] -= cost
    s["bank"] += cost
    s["turn"]["actions"] += 1


def _study(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "study")
    card = _field(cmd, "card", str)
    if card not in state["hands"][seat]:
        raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    if card in state["studied"][seat]:
        raise IllegalMove("card_already_studied", f"you have already studied {card}")
    _need_price(state, seat)
    return [{"type": "teacher_studied", "seat": seat, "card": card}]


def _on_teacher_studied(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    s["studied"][e["seat"]].append(e["card"])
    s["turn"]["studied"] += 1


def _view_task(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "view_task")
    if state["tasks"][seat] is None:
        raise IllegalMove("no_active_task", "you have no task to look at")
    if state["task_viewed"][seat]:
        raise IllegalMove("task_already_viewed", "you have already seen this task's answer")
    _need_price(state, seat)
    return [{"type": "teacher_task_viewed", "seat": seat}]


def _on_teacher_task_viewed(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    s["task_viewed"][e["seat"]] = True


def _blast(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "blast")
    block = _field(cmd, "block", str)
    if block not in BLOCKS:
        raise IllegalMove("unknown_block", f"the blocks are B1 to B{len(BLOCKS)}")
    if block in state["turn"]["blasted"]:
        raise IllegalMove("block_already_blasted", f"{block} has already been blown up this turn")
    _need_price(state, seat)
    return [{"type": "general_blasted", "seat": seat, "block": block}]


def _on_general_blasted(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    cells = BLOCKS[e["block"]]
    for cell in cells:                           # first the old cards go to the bottom...
        if s["slots"][cell] is not None:
            s["deck"].append(s["slots"][cell])
            s["slots"][cell] = None
    for cell in cells:                           # ...then the slots refill from the top
        if s["deck"]:
            s["slots"][cell] = s["deck"].pop(0)
    s["turn"]["blasted"].append(e["block"])


def _minister_draw(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "minister_draw")
    end = _field(cmd, "from", str)
    if end not in ("top", "bottom"):
        raise IllegalMove("bad_command", "'from' must be 'top' or 'bottom'")
    if not state["deck"]:
        raise IllegalMove("deck_empty", "the deck is empty; there is nothing to draw")
    _need_price(state, seat)
    return [{"type": "minister_drew", "seat": seat, "from": end}]


def _on_minister_drew(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    deck = s["deck"]
    take = min(3, len(deck))
    if e["from"] == "top":
        drawn, s["deck"] = deck[:take], deck[take:]
    else:
        drawn, s["deck"] = deck[len(deck) - take:], deck[:len(deck) - take]
    s["turn"]["pool"] = [*(s["turn"]["pool"] or []), *drawn]


def _minister_resolve(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "minister_resolve")
    swaps = _field(cmd, "swaps", list)
    pool = state["turn"]["pool"]
    if pool is None:
        raise IllegalMove("no_open_pool", "draw from the Minister first")
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(c, str) for c in p) for p in swaps):
        raise IllegalMove("bad_command", "'swaps' must be a list of [hand card, pool card] pairs")
    gives, takes = [p[0] for p in swaps], [p[1] for p in swaps]
    hand = state["hands"][seat]
    if (len(set(gives)) != len(gives) or len(set(takes)) != len(takes)
            or not all(c in hand for c in gives) or not all(c in pool for c in takes)):
        raise IllegalMove("invalid_swap", "each swap pairs a distinct card of your hand with a distinct pool card")
    return [{"type": "minister_resolved", "seat": seat, "swaps": [list(p) for p in swaps]}]


def _on_minister_resolved(s: State, e: Event) -> None:
    hand, pool = s["hands"][e["seat"]], s["turn"]["pool"]
    for give, take in e["swaps"]:                # each pair changes places in hand and pool
        hand[hand.index(give)] = take
        pool[pool.index(take)] = give
    _close_pool(s)


def _close_pool(s: State) -> None:
    if s["turn"]["pool"] is not None:
        s["deck"].extend(s["turn"]["pool"])
        s["turn"]["pool"] = None


def _spy_swap(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "spy_swap")
    own = _field(cmd, "own_card", str)
    target = _field(cmd, "target", int)
    target_card = _field(cmd, "target_card", str)
    if not 0 <= target < state["players"] or target == seat:
        raise IllegalMove("spy_target_invalid", "the Spy swaps with another player")
    if own not in state["hands"][seat]:
        raise IllegalMove("card_not_in_hand", f"{own} is not in your hand")
    if target_card not in state["hands"][target]:
        raise IllegalMove("card_not_in_target_hand", f"{target_card} is not in that player's hand")
    _need_price(state, seat)
    return [{"type": "spy_swapped", "seat": seat, "own_card": own, "target": target, "target_card": target_card}]


def _on_spy_swapped(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    mine, theirs = s["hands"][e["seat"]], s["hands"][e["target"]]
    mine[mine.index(e["own_card"])] = e["target_card"]
    theirs[theirs.index(e["target_card"])] = e["own_card"]
    s["turn"]["spy_swaps"].append(e["target"])


def _attach(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "attach")
    card = _field(cmd, "card", str)
    if state["tasks"][seat] is None:
        raise IllegalMove("no_active_task", "you have no task to attach cards to")
    if card not in state["hands"][seat]:
        raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    _need_price(state, seat)
    return [{"type": "attached", "seat": seat, "card": card}]


def _on_attached(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    s["hands"][e["seat"]].remove(e["card"])
    s["attached"][e["seat"]].append(e["card"])


def _detach(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "detach")
    card = _field(cmd, "card", str)
    if card not in state["attached"][seat]:
        raise IllegalMove("card_not_attached", f"{card} is not attached to your task")
    _need_price(state, seat)
    return [{"type": "detached", "seat": seat, "card": card}]


def _on_detached(s: State, e: Event) -> None:
    _pay(s, e["seat"])
    s["attached"][e["seat"]].remove(e["card"])
    s["hands"][e["seat"]].append(e["card"])


def _declare(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    _need_place(state, seat, "declare")
    order = _field(cmd, "order", list)
    task = state["tasks"][seat]
    if task is None:
        raise IllegalMove("no_active_task", "you have no task to declare")
    attached = state["attached"][seat]
    if (not all(isinstance(c, str) for c in order) or len(order) != len(attached)
            or sorted(order) != sorted(attached)):
        raise IllegalMove("order_not_permutation", "the order must list every attached card exactly once")
    _need_price(state, seat)
    answer = state["content"]["tasks"][task]["answer"]
    correct = [card_char(c) for c in order] == answer
    return [{"type": "declared", "seat": seat, "task": task, "order": list(order), "correct": correct}]


def _on_declared(s: State, e: Event) -> None:
    seat, task, order = e["seat"], e["task"], list(e["order"])
    _pay(s, seat)
    answer = s["content"]["tasks"][task]["answer"]
    right = [card_char(c) for c in order] == answer
    s["attached"][seat] = []
    if task not in s["revealed_tasks"]:
        s["revealed_tasks"].append(task)
    s["turn"]["declarations"].append({"task": task, "order": order, "correct": right})
    if right:
        s["completed"][seat].append(task)
        s["removed"].extend(order)
        s["tasks"][seat] = s["task_deck"].pop(0) if s["task_deck"] else None
        s["task_viewed"][seat] = False
        opts = s["options"]
        if opts["mode"] == "target" and len(s["completed"][seat]) >= opts["target"]:
            _finish(s, "TARGET_REACHED", winner=seat)
        elif s["tasks"].count(None) == s["players"] and not s["task_deck"]:
            _finish(s, "NO_TASKS")
        return
    s["deck"].extend(order)                      # the attached cards sink in the declared order
    if s["task_deck"]:
        s["tasks"][seat] = s["task_deck"].pop(0)
        s["task_deck"].append(task)
        s["task_viewed"][seat] = False


# --- The end of the turn (5.8) and the start of the next (5.2) --------------------------------


def _end_turn(state: State, seat: int, cmd: Command, rng: Rng) -> list[Event]:
    if state["phase"] not in ("base", "emperor"):
        raise IllegalMove("wrong_phase", "the turn ends by itself in this phase")
    returned = _field(cmd, "return", list, default=[])
    hand = state["hands"][seat]
    surplus = max(0, len(hand) - HAND_SIZE)
    if surplus and not returned:
        raise IllegalMove("must_return_cards", f"you hold {len(hand)} cards; return {surplus} to the deck")
    if (len(returned) != surplus or not all(isinstance(c, str) for c in returned)
            or len(set(returned)) != len(returned) or not all(c in hand for c in returned)):
        raise IllegalMove("return_count_mismatch",
                          f"return exactly {surplus} distinct card(s) from your hand (the surplus over {HAND_SIZE})")
    return [{"type": "turn_ended", "seat": seat, "return": list(returned)}]


def _on_turn_ended(s: State, e: Event) -> None:
    _close_turn(s, e["seat"], list(e["return"]))


def _close_turn(s: State, seat: int, returned: list[str]) -> None:
    hand = s["hands"][seat]
    for card in returned:
        hand.remove(card)
    s["deck"].extend(returned)
    _fill_hand(s, seat)
    _close_pool(s)
    s["turn"] = _fresh_turn()
    _pass_on(s)


def _pass_on(s: State) -> None:
    """Steps 3-5 of 5.8: the next seat, the round checks, its turn start; automatic passes chain."""
    n = s["players"]
    while True:
        nxt = (s["active"] + 1) % n
        if nxt == s["first"]:
            opts = s["options"]
            if opts["mode"] == "rounds" and s["round"] >= opts["round_limit"]:
                _finish(s, "ROUND_LIMIT")
                return
            if opts["mode"] == "target" and s["round"] >= opts["max_rounds"]:
                _finish(s, "MAX_ROUNDS")
                return
            s["round"] += 1
        s["active"] = nxt
        if _start_turn(s):
            return
        if s["passes"] >= n:
            _finish(s, "STALLED")
            return


def _start_turn(s: State) -> bool:
    """Top up the active player's hand; an empty hand passes the turn (returns False)."""
    seat = s["active"]
    _fill_hand(s, seat)
    if not s["hands"][seat]:
        s["passes"] += 1
        return False
    s["passes"] = 0
    s["phase"] = "play"
    return True


def _fill_hand(s: State, seat: int) -> None:
    hand, deck = s["hands"][seat], s["deck"]
    while len(hand) < HAND_SIZE and deck:
        hand.append(deck.pop(0))


class TurnRecord(TypedDict):
    """What the current turn has done so far (spec 5.1); cleared when the turn ends."""

    played: str | None             # the card played this turn (public)
    claim: dict[str, Any] | None   # {options, correct_index, seal} pending; {options, correct_index, choice, correct} after
    steps: int | None              # from the played card, once it is drowned
    stop: str | None               # the cell the move ended on
    actions: int                   # actions taken at this stop; the next costs this many coins
    blasted: list[str]             # blocks the General hit this turn
    pool: list[str] | None         # the open Minister pool (private to the acting player)
    studied: int                   # Teacher studies this turn (others see only the count)
    spy_swaps: list[int]           # target seats of this turn's Spy swaps
    declarations: list[dict[str, Any]]   # {task, order, correct} of this turn's declarations


def _fresh_turn() -> TurnRecord:
    return {"played": None, "claim": None, "steps": None, "stop": None, "actions": 0,
            "blasted": [], "pool": None, "studied": 0, "spy_swaps": [], "declarations": []}


# --- Scoring and the end (6) ------------------------------------------------------------------


def _finish(s: State, reason: str, winner: int | None = None) -> None:
    n = s["players"]
    correct = [len(c) for c in s["completed"]]

    def key(seat: int) -> tuple[int, int]:
        return (-correct[seat], -s["coins"][seat])

    order = sorted(range(n), key=lambda seat: (key(seat), seat))
    groups = [list(g) for _, g in groupby(order, key=key)]
    if winner is not None:                       # the target ends the game with one winner
        rest = [seat for seat in order if seat != winner]
        groups = [[winner], *[list(g) for _, g in groupby(rest, key=key)]]
    s["phase"] = "over"
    s["active"] = None
    s["result"] = {"reason": reason, "winners": list(groups[0]), "ranking": groups, "scores": correct}


def status(state: State) -> Status:
    phase = state["phase"]
    if phase == "over":
        r = state["result"]
        ranks = [0] * state["players"]
        place = 1
        for group in r["ranking"]:               # shared places repeat: 1, 1, 3
            for seat in group:
                ranks[seat] = place
            place += len(group)
        return {"phase": phase, "to_act": [], "finished": True,
                "result": {"scores": list(r["scores"]), "ranking": [seat for g in r["ranking"] for seat in g],
                           "winners": list(r["winners"]), "ranks": ranks}}
    if phase == "waiting":
        to_act: list[int] = []
    elif phase in ("setup_bases", "setup_tasks"):
        to_act = [state["chooser"]]
    else:
        to_act = [state["active"]]
    return {"phase": phase, "to_act": to_act, "finished": False, "result": None}


# --- Reading command fields -------------------------------------------------------------------


def _need_phase(state: State, phase: str) -> None:
    if state["phase"] != phase:
        raise IllegalMove("wrong_phase", f"this needs phase {phase!r}; the game is in {state['phase']!r}")


_MISSING = object()


def _field(cmd: Command, key: str, typ: type, default: Any = _MISSING, nullable: bool = False) -> Any:
    value = cmd.get(key, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise IllegalMove("bad_command", f"{cmd['type']!r} needs the field {key!r}")
        return default
    if value is None and nullable:
        return None
    if typ is int:
        ok = _is_int(value)
    else:
        ok = isinstance(value, typ) and not (typ is not bool and isinstance(value, bool))
    if not ok:
        raise IllegalMove("bad_command", f"field {key!r} must be a {typ.__name__}, not {value!r}")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bad(message: str) -> None:
    raise IllegalMove("bad_options", message)


# --- evolve: the entries an event touches, copied on write ------------------------------------


def evolve(state: State, event: Event) -> State:
    draft = _Draft(state)
    _APPLY[event["type"]](draft, event)
    return {**state, **draft}


class _Draft(dict):
    """The entries of the next state that an event touched, copied on write: a top-level entry
    is copied (deeply) the first time an evolver reads it, so an event pays only for what it
    touches; the rest, and options and content which never change, stay shared with the
    previous state (DESIGN: evolve never mutates its input). The next state is the previous
    one with these entries over it. The copy is made in dict's __missing__, so every later
    read of the entry is a plain dict lookup (in C): the evolvers only index with [], which
    is what copies."""

    __slots__ = ("_base",)

    def __init__(self, state: State) -> None:
        super().__init__()
        self._base = state

    def __missing__(self, key: str) -> Any:
        value = self._base[key]
        if type(value) in _NESTED and key not in _SHARED:
            value = _COPIERS.get(key, _shallow)(value)
        dict.__setitem__(self, key, value)
        return value


_SHARED = frozenset(("options", "content"))


_NESTED = (list, dict)


def _copy(value: Any) -> Any:
    if type(value) is list:
        return [_copy(v) if type(v) in _NESTED else v for v in value]
    if type(value) is dict:
        return {k: _copy(v) if type(v) in _NESTED else v for k, v in value.items()}
    return value


def _shallow(value: Any) -> Any:
    return value.copy()


def _per_seat(value: list[list[str]]) -> list[list[str]]:
    return [list(v) for v in value]


def _turn(t: dict[str, Any]) -> dict[str, Any]:
    # The lists the evolvers append to or edit; `claim` is only ever replaced whole, and the
    # declarations appended are never edited afterwards.
    pool = t["pool"]
    return {**t, "blasted": list(t["blasted"]), "pool": None if pool is None else list(pool),
            "spy_swaps": list(t["spy_swaps"]), "declarations": list(t["declarations"])}


# How deep each entry of the state must be copied before the evolvers may edit it in place;
# every other list or dict holds only strings, numbers, booleans and None.
_COPIERS: dict[str, Callable[[Any], Any]] = {
    "hands": _per_seat, "attached": _per_seat, "completed": _per_seat, "studied": _per_seat,
    "turn": _turn, "result": _copy,
}


# --- The tables -------------------------------------------------------------------------------


_DECIDE: dict[str, Decider] = {
    "choose_base": _choose_base,
    "pick_task": _pick_task,
    "play_card": _play_card,
    "answer": _answer,
    "move": _move,
    "teleport": _teleport,
    "study": _study,
    "view_task": _view_task,
    "blast": _blast,
    "minister_draw": _minister_draw,
    "minister_resolve": _minister_resolve,
    "spy_swap": _spy_swap,
    "attach": _attach,
    "detach": _detach,
    "declare": _declare,
    "end_turn": _end_turn,
}


_APPLY: dict[str, Evolver] = {
    "setup_shuffled": _on_setup_shuffled,
    "start_base_chosen": _on_start_base_chosen,
    "task_picked": _on_task_picked,
    "card_played": _on_card_played,
    "meaning_answered": _on_meaning_answered,
    "moved": _on_moved,
    "teleported": _on_teleported,
    "teacher_studied": _on_teacher_studied,
    "teacher_task_viewed": _on_teacher_task_viewed,
    "general_blasted": _on_general_blasted,
    "minister_drew": _on_minister_drew,
    "minister_resolved": _on_minister_resolved,
    "spy_swapped": _on_spy_swapped,
    "attached": _on_attached,
    "detached": _on_detached,
    "declared": _on_declared,
    "turn_ended": _on_turn_ended,
}
