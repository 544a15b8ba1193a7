"""service.match.committed: the value the commit loop hands on cannot be changed by a subscriber,
and the server's own move ids are the ones a client may not use (SPEC 4.5: `sys:`)."""

from __future__ import annotations

import pytest

from service.match.committed import SYSTEM_MOVE_PREFIX, Committed, system_move_id


def test_system_move_ids_start_with_the_reserved_prefix():
    assert SYSTEM_MOVE_PREFIX == "sys:"
    assert system_move_id("clock", 12, 3) == "sys:clock:12:3"
    assert system_move_id("start") == "sys:start"


def test_a_committed_value_cannot_be_reassigned():
    c = Committed(3, None, {"x": 1}, {"finished": False}, 1000, {})
    with pytest.raises(AttributeError):
        c.seq = 4  # type: ignore[misc]
    assert c._replace(seq=4).seq == 4 and c.seq == 3
