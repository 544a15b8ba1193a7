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
    digest = hashlib.sha256(f"teahouse/v1/{seed}/{seq}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))
