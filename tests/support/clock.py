"""A clock a test moves by hand, for the parts that take one (`clock=`): the buckets and windows
then see exactly the seconds the test says have passed, however slow the machine is."""

from __future__ import annotations


class Clock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
