"""The webhook notifications a match's log implies (protocol/SPEC.md 2.19), as plain functions.

Nothing here is a source of truth: a notification is a product of the log and the registered
hooks, derived after the commit it follows, so that a hook never holds up a move. Its id is a
hash of (match, seq, player, event, hook), so deriving it again (another node, a restart, the
sweep after a crash) names the same delivery, which the store keeps once (`add_deliveries`).

  - `your_turn`: the commit made the seat one of the seats to act, which it was not before;
  - `finished`: the commit ended the match (the result, and the player's rating change if rated);
  - `clock_low`: under a time control, the seat to act has less than a tenth of its allowance
    left (the seconds per move, or under Fischer the starting bank): due at that time at the
    position, if the position still stands then.

A hook hears only of what happened after it was registered. An app's own hook (owner `<app>:*`)
hears of every seat its users hold, as if each had registered it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from service.games import fold, get_game
from service.match import time_control
from service.store import Commit, DeliveryRecord, HookRecord, MatchRecord

LOW_FRACTION = 0.1
Hooks = Mapping[str, Sequence[HookRecord]]  # player id -> that player's hooks


def delivery_id(match: str, seq: int, player: str, event: str, hook: str) -> str:
    digest = hashlib.sha256("\n".join((match, str(seq), player, event, hook)).encode()).hexdigest()
    return "dlv_" + digest[:32]


def match_url(site: str, match: str) -> str:
    """The web client's page of the match."""
    return f"{site}/web/#/match/{match}"


def seat_players(record: MatchRecord) -> list[str | None]:
    return [s.player for s in record.seats]


def app_hooks_owner(app: str) -> str:
    """Who owns an app's own hooks, which hear of all its users."""
    return f"{app}:*"


def app_owner(player: str) -> str | None:
    """The owner of the hooks of the app whose user `player` is; None for a player that is no
    app's user (a key's player, a bot)."""
    app, sep, _ = player.partition(":")
    return app_hooks_owner(app) if sep and app != "bot" else None


def owners_of(players: Iterable[str | None]) -> set[str]:
    """Whose hooks may hear of these players: the players, and the apps of those that are apps' users."""
    out: set[str] = set()
    for p in players:
        if p is not None:
            out.add(p)
            owner = app_owner(p)
            if owner is not None:
                out.add(owner)
    return out


def _deliveries(record: MatchRecord, hooks: Hooks, seat: int, event: str, seq: int, ts: int,
                extra: dict[str, Any]) -> list[DeliveryRecord]:
    player = seat_players(record)[seat]
    if player is None:
        return []
    out: list[DeliveryRecord] = []
    for hook in [*hooks.get(player, ()), *hooks.get(app_owner(player) or "", ())]:
        if event not in hook.events or ts < hook.created:
            continue
        did = delivery_id(record.id, seq, player, event, hook.id)
        payload = {"id": did, "event": event, "match": record.id, "game": record.game, "seat": seat, "seq": seq,
                   "player": player, "ts": ts, "url": match_url(hook.site, record.id), **extra}
        out.append(DeliveryRecord(id=did, owner=hook.owner, hook=hook.id, event=event, match=record.id, seq=seq,
                                  payload=payload, created=ts, next_at=ts))
    return out


def implied(record: MatchRecord, hooks: Hooks, before: Mapping[str, Any] | None, commit: Commit,
            after: Mapping[str, Any], ratings: Sequence[Mapping[str, Any]] | None) -> list[DeliveryRecord]:
    """The `your_turn` and `finished` deliveries of one commit: `before` and `after` are the
    game's status at seq-1 (None: none yet) and at the commit; `ratings` the match's rating
    changes, if it ended rated."""
    out: list[DeliveryRecord] = []
    was = set((before or {}).get("to_act") or []) if before is not None and not before.get("finished") else set()
    players = seat_players(record)
    for seat, player in enumerate(players):
        if player is None or not owners_of([player]) & set(hooks):
            continue
        if after["finished"] and not (before or {}).get("finished"):
            rating = next((dict(r) for r in ratings or () if r.get("player") == player), None)
            out += _deliveries(record, hooks, seat, "finished", commit.seq, commit.ts,
                               {"result": after.get("result"), "rating": rating})
        elif not after["finished"] and seat in (after.get("to_act") or []) and seat not in was:
            out += _deliveries(record, hooks, seat, "your_turn", commit.seq, commit.ts, {})
    return out


def low_times(record: MatchRecord, status: Mapping[str, Any], ts: int,
              banks: Sequence[int] | None) -> dict[int, int]:
    """Per seat to act at a position reached at `ts`: when its time falls below a tenth of its
    allowance (ms since the epoch). Empty without a clock."""
    if status.get("finished"):
        return {}
    tc = record.time_control or ({"type": "per_move", "seconds": record.turn_seconds} if record.turn_seconds else None)
    if tc is None:
        return {}
    out: dict[int, int] = {}
    for seat in status.get("to_act") or []:
        if tc["type"] == "fischer":
            if banks is None:
                continue
            allowance, left = tc["bank_seconds"] * 1000, banks[seat]
        else:
            seconds = time_control.per_move_seconds(tc) or 0
            allowance = left = seconds * 1000
        out[seat] = ts + left - int(allowance * LOW_FRACTION)
    return out


def clock_low(record: MatchRecord, hooks: Hooks, seq: int, seat: int, due: int, deadline: int) -> list[DeliveryRecord]:
    """The `clock_low` deliveries of `seat` at the position `seq`, due at `due`."""
    return _deliveries(record, hooks, seat, "clock_low", seq, due, {"deadline": deadline})


def from_log(record: MatchRecord, hooks: Hooks, commits: Sequence[Commit], after: int,
             ratings: Sequence[Mapping[str, Any]] | None) -> list[DeliveryRecord]:
    """Every `your_turn` and `finished` delivery of the commits after seq `after`, from the whole
    log `commits` (folded from the start: a status needs the state before it)."""
    game = get_game(record.game)
    state = game.initial(record.options, record.players)
    before: dict[str, Any] | None = None
    out: list[DeliveryRecord] = []
    for c in commits:
        state = fold(game, c.events, state, record.rules_version)
        status = dict(game.status(state))
        if c.seq > after:
            out += implied(record, hooks, before, c, status, ratings)
        before = status
    return out
