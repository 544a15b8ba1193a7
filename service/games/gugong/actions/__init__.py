"""The seven location actions (§5.4-§5.10), one module each, and the table the turn uses.

Each module offers `check(s, seat, cmd) -> plan` (raises IllegalMove), `run(ctx, seat, plan)`
and `candidates(s, seat)` (the parameter sets legal_moves tries). A card action of a
location type runs the very same code (§5.3, D16).
"""

from __future__ import annotations

from types import ModuleType

from service.games.gugong.actions import canal, decrees, intrigue, jade, palace, travel, wall

ACTIONS: dict[str, ModuleType] = {
    "TRAVEL": travel,
    "WALL": wall,
    "JADE": jade,
    "INTRIGUE": intrigue,
    "PALACE": palace,
    "DECREE": decrees,
    "CANAL": canal,
}
