"""Named points where a fault test makes this server process die at once, as `kill -9` would.

`TEAHOUSE_CRASH_AT=<point>[#n]` (read once, at start): the process kills itself with SIGKILL
the n-th time (the first, without `#n`) it reaches that point, so that a test can stop a
multi-step request between any two of its steps deterministically (tests/e2e/test_seat_faults.py).
Unset, which is how a server is run, `reached` compares two strings.
"""

from __future__ import annotations

import os
import signal

ENV = "TEAHOUSE_CRASH_AT"
_AT, _, _NTH = os.environ.get(ENV, "").partition("#")
_left = int(_NTH or 1)


def reached(point: str) -> None:
    """Die here if this is the point (and the time) the environment names."""
    global _left
    if _AT and point == _AT:
        _left -= 1
        if _left == 0:
            os.kill(os.getpid(), signal.SIGKILL)
