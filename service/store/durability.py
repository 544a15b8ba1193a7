"""Whether a store keeps what the server acknowledged through a power loss, judged from its
settings (read once at start: service/ops/durability.py reports the verdict).

A move is acknowledged once the store has it. Redis has it in memory at once and on disk only
as its `appendfsync` says: `always` fsyncs before answering; `everysec` up to a second later, so
a power loss (not a crash of redis-server alone) drops what was acknowledged in that second,
unless `--wait-replicas` also put it on replicas that a failover promotes. docs/operators.md
("Durability") explains the choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_HOW = "use appendonly yes with appendfsync always, or appendfsync everysec with --wait-replicas (docs/operators.md, Durability)"


@dataclass(frozen=True)
class Durability:
    """`at_risk`: an acknowledged move could be lost on power loss, or the settings could not be
    read (`known` False) and so nothing rules it out. `detail`: one sentence for the operator."""

    at_risk: bool
    known: bool
    detail: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {"acks_at_risk": self.at_risk, "known": self.known, "detail": self.detail,
                "settings": dict(self.settings)}


FSYNCED = Durability(False, True, "every commit is written with fsync before it is acknowledged",
                     {"synchronous": "full"})


def judge_redis(config: Mapping[str, str] | None, wait_replicas: int, replicas: int | None) -> Durability:
    """The verdict for one Redis primary. `config`: its CONFIG GET appendonly/appendfsync (None:
    CONFIG is disabled, renamed or not permitted); `replicas`: its connected replicas (None: not
    read, because --wait-replicas is 0, or INFO is unavailable)."""
    settings: dict[str, Any] = {"wait_replicas": wait_replicas}
    if replicas is not None:
        settings["connected_replicas"] = replicas
    if config is None:
        return Durability(True, False, "the Redis durability settings could not be read (CONFIG GET is disabled, "
                          f"renamed or not permitted): acknowledged moves may be lost on power loss; check by hand and {_HOW}",
                          settings)
    appendonly = config.get("appendonly", "").lower()
    fsync = config.get("appendfsync", "").lower()
    settings.update(appendonly=appendonly, appendfsync=fsync)
    if appendonly != "yes":
        return Durability(True, True, "Redis runs with appendonly no: acknowledged moves since its last snapshot "
                          f"are lost when it stops; {_HOW}", settings)
    if fsync == "always":
        return Durability(False, True, "Redis fsyncs every write before it answers (appendfsync always)", settings)
    replicated = wait_replicas > 0 and (replicas or 0) >= wait_replicas
    if fsync == "everysec" and replicated:
        return Durability(False, True, f"Redis fsyncs every second and each move waits for {wait_replicas} "
                          "replica(s) before it is acknowledged (a WAIT that times out is counted in "
                          "teahouse_wait_timeouts)", settings)
    why = (f"--wait-replicas {wait_replicas} but only {replicas or 0} replica(s) connected" if wait_replicas
           else "no --wait-replicas")
    return Durability(True, True, f"Redis runs with appendfsync {fsync or 'unknown'} and {why}: moves acknowledged in "
                      f"the last second(s) before a power loss are lost; {_HOW}", settings)


def worst(verdicts: Sequence[Durability]) -> Durability:
    """A store of several primaries (Redis Cluster) is as durable as its least durable one."""
    for v in verdicts:
        if v.at_risk:
            return v
    return verdicts[0] if verdicts else Durability(True, False, "no Redis primary answered")
