"""service/match/replay.py against SPEC.md 2.9 and 11: the state right after any commit `seq` is
the fold of commits 1..seq (DESIGN.md, Event sourcing); what an audience sees at `seq` is the
document it had then (`view`: the game's view for that audience, `status`); a finished match's
step carries its `commit` (seat, command, time); every step carries the story up to `seq` (`log`,
one `{seq, seat, said}` per commit, and `said`, the sentences of commit `seq`), the same for every
audience; and no audience's answer holds what its rules spec hides (tests/support/hidden.py).

The logs are made by playing real games with random legal moves under a seed, as a live match
would write them."""

from __future__ import annotations

import orjson
import pytest

from service.games import GAMES, get_game
from service.match import replay
from tests.support.hidden import forbidden
from tests.support.played import Played, play


@pytest.fixture(scope="module")
def finished() -> Played:
    m = play("pixies", 2)
    assert m.record.finished, "a random pixies match ends"
    return m


@pytest.fixture(scope="module")
def live() -> Played:
    m = play("pixies", 3, moves=6)
    assert not m.record.finished
    return m


def test_the_state_at_any_seq_is_the_fold_of_the_log_up_to_it(finished):
    for seq, expected in enumerate(finished.states):
        assert replay.state_at(finished.record, finished.commits, seq) == expected


def test_commits_after_seq_are_ignored(finished):
    # The whole log is given, the state is the one at seq.
    assert replay.state_at(finished.record, finished.commits, 3) == finished.states[3]
    assert replay.state_at(finished.record, finished.commits[:3], 3) == finished.states[3]


@pytest.mark.parametrize("seat", [None, 0, 1])
def test_each_audience_sees_its_own_document_at_every_seq(finished, seat):
    game = get_game("pixies")
    for seq in range(len(finished.commits) + 1):
        got = replay.at(finished.record, finished.commits, seq, seat)
        assert (got["match"], got["seq"], got["seat"]) == ("Xq3vN8kPz2Lm", seq, seat)
        assert got["view"] == game.view(finished.states[seq], seat)
        status = game.status(finished.states[seq])
        assert got["status"] == {k: status[k] for k in ("phase", "to_act", "finished", "result")}


def test_a_finished_match_shows_the_commit_of_each_step(finished):
    assert "commit" not in replay.at(finished.record, finished.commits, 0, None), "seq 0 has no commit"
    for c in finished.commits:
        got = replay.at(finished.record, finished.commits, c.seq, 0)
        assert got["commit"] == {"seat": c.seat, "command": c.command, "ts": c.ts}


def test_a_live_match_shows_no_commit(live):
    for seq in range(len(live.commits) + 1):
        assert "commit" not in replay.at(live.record, live.commits, seq, None)


@pytest.mark.parametrize("which", ["finished", "live"])
def test_the_story_up_to_seq_and_the_sentences_of_seq(which, request):
    m: Played = request.getfixturevalue(which)
    full = replay.at(m.record, m.commits, len(m.commits), None)["log"]
    assert [(e["seq"], e["seat"]) for e in full] == [(c.seq, c.seat) for c in m.commits]
    assert all(isinstance(e["said"], list) and all(isinstance(s, str) for s in e["said"]) for e in full)
    assert full[0]["said"], "the start is told"
    start = replay.at(m.record, m.commits, 0, None)
    assert (start["log"], start["said"]) == ([], [])
    for seq in range(1, len(m.commits)):
        got = replay.at(m.record, m.commits, seq, None)
        assert got["log"] == full[:seq], "one entry per commit from 1 to seq, as the whole story tells them"
        assert got["said"] == full[seq - 1]["said"]


def test_the_story_is_the_same_for_every_audience(live):
    for seq in range(len(live.commits) + 1):
        told = [replay.at(live.record, live.commits, seq, a)["log"] for a in (None, 0, 1, 2)]
        assert all(t == told[0] for t in told)


@pytest.mark.parametrize("game_id", GAMES)
def test_no_audience_is_shown_what_its_rules_hide(game_id):
    game = get_game(game_id)
    players = max(game.min_players, 3) if game.max_players >= 3 else game.min_players
    m = play(game_id, players, moves=12, pick=7)
    checked = 0
    for seq in range(len(m.commits) + 1):
        for audience in (None, *range(players)):
            hidden = forbidden(game_id, m.states[seq], audience)
            if not hidden:
                continue
            sent = orjson.dumps(replay.at(m.record, m.commits, seq, audience))
            leaked = [s for s in hidden if orjson.dumps(s) in sent]
            assert not leaked, f"seq {seq}, audience {audience}: {leaked[:5]}"
            checked += len(hidden)
    assert checked, "the match hid something from someone, or this test checks nothing"
