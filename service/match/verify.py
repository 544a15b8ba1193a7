"""Checking a game record (service/match/record.py) without the server: the seed against its
commitment, then every commit decided again with the game's rules from the seed (SPEC 10.5)
and folded, each state's hash compared with the record's. The first commit that differs is
named; nothing after it can be trusted."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from service.games import GAMES, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.match.record import FORMAT, FORMAT_VERSION, chance_lists, state_hash


@dataclass
class Verdict:
    ok: bool
    commits: int          # commits checked
    seq: int | None = None  # the first bad commit (0: the header)
    reason: str = ""

    def sentence(self) -> str:
        if self.ok:
            return f"ok: {self.commits} commits re-decided from the seed; every event and state hash matches"
        return f"seq {self.seq}: {self.reason}"


def read_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def verify(lines: Iterable[dict[str, Any]]) -> Verdict:
    it = iter(lines)
    head = next(it, None)
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        return Verdict(False, 0, 0, f"not a game record: the first line's format is not {FORMAT!r}")
    if head.get("version") != FORMAT_VERSION:
        return Verdict(False, 0, 0, f"record format version {head.get('version')!r}; this verifier reads {FORMAT_VERSION}")
    if head.get("game") not in GAMES:
        return Verdict(False, 0, 0, f"unknown game {head.get('game')!r}")
    seed = head.get("seed")
    if not isinstance(seed, str):
        return Verdict(False, 0, 0, "the record has no seed: only a finished match's record can be verified")
    if hashlib.sha256(seed.encode()).hexdigest() != head.get("seed_sha256"):
        return Verdict(False, 0, 0, "the seed does not match the seed_sha256 published at creation")
    game = get_game(head["game"])
    players, options = head["players"], head["options"]
    if head.get("chance") != chance_lists(game.id, options, players):
        return Verdict(False, 0, 0, "the header's chance lists are not the game's component lists (SPEC 10.6)")
    fork = head.get("forked_from") or {}
    rules = head.get("rules_version", game.rules_version)
    redecide = rules == game.rules_version  # an older version's events are folded, not re-decided
    state = game.initial(options, players)
    checked = 0
    for line in it:
        seq = checked + 1
        if line.get("seq") != seq:
            return Verdict(False, checked, seq, f"expected commit {seq}, found {line.get('seq')!r}")
        events, command = line.get("events"), line.get("command")
        if not isinstance(events, list) or not isinstance(command, dict):
            return Verdict(False, checked, seq, "a commit line needs a command object and a list of events")
        if redecide:
            rng_seed = fork["seed"] if fork and seq <= fork.get("seq", 0) else seed
            try:
                decided = game.decide(state, line.get("seat"), command, commit_rng(rng_seed, seq))
            except IllegalMove as err:
                return Verdict(False, checked, seq, f"the rules refuse the command ({err.code}: {err})")
            except Exception as err:  # a tampered command the rules were never meant to see
                return Verdict(False, checked, seq, f"the rules cannot decide the command: {err!r}")
            if decided != events:
                return Verdict(False, checked, seq, "the events are not what the rules decide from the seed")
        try:
            state = fold(game, events, state, rules)
        except Exception as err:  # a tampered event the reducer cannot apply
            return Verdict(False, checked, seq, f"the events do not apply: {err}")
        if state_hash(state) != line.get("state_sha256"):
            return Verdict(False, checked, seq, "the state hash differs from the state the events fold to")
        checked = seq
    if checked != head.get("commits"):
        return Verdict(False, checked, checked + 1, f"the header announces {head.get('commits')} commits, the record holds {checked}")
    return Verdict(True, checked)
