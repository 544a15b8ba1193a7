"""Where a commit's randomness comes from.

The rng handed to `decide` for commit `seq` is seeded from the match seed and `seq` alone,
so anyone holding the revealed seed can re-run `decide` over the log and check every
shuffle and roll. The match publishes `seed_commitment(seed)` before the first commit.
"""

from __future__ import annotations

import hashlib
import random
import secrets


def new_seed() -> str:
    return secrets.token_hex(32)


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def commit_rng(seed: str, seq: int) -> random.Random:
    """The same numbers as `random.Random(int(sha256(f"teahouse/v1/{seed}/{seq}")))`, seeded only
    when first drawn from: most commits draw nothing (a card played), and hashing and seeding
    the generator cost more than the rest of deciding such a move."""
    return _SeededOnUse(f"teahouse/v1/{seed}/{seq}")


def lazy_rng(seed: int | float) -> random.Random:
    """The same numbers as `random.Random(seed)`, seeded only when first drawn from: a bot that
    tries every legal move hands each its own generator, and most moves draw nothing."""
    return _SeededOnUse(seed)


class _SeededOnUse(random.Random):
    # random.Random's Python methods all draw through random() or getrandbits() (and getstate
    # reads the state): those seed first, then the instance's own bound C methods take over.
    # A string is a commit's material (hashed as SPEC says); a number seeds as random.Random's.
    def __init__(self, material: str | int | float) -> None:  # no super().__init__: that would seed now
        self._material: str | int | float | None = material
        self.gauss_next = None

    def _seed_now(self) -> None:
        material, self._material = self._material, None
        if isinstance(material, str):
            super().seed(int.from_bytes(hashlib.sha256(material.encode()).digest(), "big"))
        elif material is not None:
            super().seed(material)
        self.random = super().random  # type: ignore[method-assign]
        self.getrandbits = super().getrandbits  # type: ignore[method-assign]

    def random(self) -> float:
        self._seed_now()
        return self.random()

    def getrandbits(self, k: int, /) -> int:
        self._seed_now()
        return self.getrandbits(k)

    def getstate(self) -> tuple:
        self._seed_now()
        return super().getstate()

    def seed(self, *args, **kwargs) -> None:  # type: ignore[override]
        self._material = None  # seeded by hand: the commit's seed no longer applies
        super().seed(*args, **kwargs)

    def setstate(self, state: tuple) -> None:
        self._material = None
        super().setstate(state)
