"""What the commit path's modules are tested with: a real SQLite store, real games, and
connections that keep the messages they are sent (as a client's socket would deliver them)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from service.match.lobby import Lobby
from service.store import open_store


class Inbox:
    """A watcher on the json encoding: every message it was sent, decoded, in order."""

    encoding = "json"

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.raw: list[bytes] = []

    def deliver(self, data: bytes) -> None:
        self.messages.append(orjson.loads(data))
        self.raw.append(data)

    def types(self) -> list[str]:
        return [m["type"] for m in self.messages]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


@pytest.fixture
async def store(tmp_path):
    s = open_store(f"sqlite:{tmp_path / 'db'}")
    yield s
    await s.close()


@pytest.fixture
async def lobby(store):
    lb = Lobby(store)
    yield lb
    await lb.close()


async def started(lobby: Lobby, game: str = "pixies", players: int = 2, **create: Any) -> str:
    """A match whose seats are all taken (so it is started); its id."""
    rec = await lobby.create(game, players, **create)
    for _ in range(players - len([b for b in create.get("bots") or []])):
        await lobby.take_seat(rec.id)
    return rec.id
