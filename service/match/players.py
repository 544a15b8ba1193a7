"""Who a player is: an id and a display name, proven by a player key or by an app's token.

A player key is a 256-bit random secret shown once to whoever made the player; the store keeps
only its sha256, as for seat tokens. Third-party apps registered by the operator (`--apps FILE`)
vouch for their own users with short signed JWTs (`iss` the app, `sub` the user, `exp`), which
PyJWT verifies; such a player's id is `<app>:<sub>`. The server's bots are players too:
`bot:strength-N`, one per strength, so each strength has a rating.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from service.bots import STRENGTHS
from service.match.apps import AppError, Apps
from service.match.lobby import LobbyError, bot_player, hash_token
from service.store import EventStore, PlayerRecord

MAX_NAME = 40
APP_ITSELF = "*"  # an app's token with this `sub` stands for the app, not one of its users
__all__ = ["Players", "bot_player", "check_name"]


def new_player_id() -> str:
    """12 URL-safe characters without ':' (ids with ':' belong to apps and bots)."""
    while True:
        pid = secrets.token_urlsafe(9)
        if pid[0] != "-":
            return pid


def check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise LobbyError("bad_field", f"name must be a non-empty string of at most {MAX_NAME} characters")
    return name.strip()


@dataclass
class Players:
    store: EventStore
    apps: Apps

    async def create(self, name: object) -> tuple[PlayerRecord, str]:
        """A new player and its key (shown once: the caller must hand it over and forget it)."""
        name = check_name(name)
        key = secrets.token_urlsafe(32)
        while True:
            player = PlayerRecord(id=new_player_id(), name=name, created=int(time.time() * 1000),
                                  key_hash=hash_token(key))
            if await self.store.put_player(player):
                return player, key

    async def get(self, player_id: str) -> PlayerRecord:
        player = await self.store.get_player(player_id)
        if player is None:
            bot = next((n for n in STRENGTHS if bot_player(n) == player_id), None)
            if bot is not None:  # the server's bots are players without a record
                return PlayerRecord(id=player_id, name=f"bot (strength {bot})", created=0)
            raise LobbyError("unknown_player", f"no player has the id {player_id[:80]!r}", 404)
        return player

    def app_itself(self, credential: str) -> str | None:
        """The app a credential stands for when it is an app's token for itself (`sub` "*"), else None."""
        if "." not in credential:
            return None
        try:
            app, sub, _ = self.apps.verify(credential)
        except AppError:
            return None  # (authenticate says why)
        return app if sub == APP_ITSELF else None

    async def authenticate(self, credential: str) -> PlayerRecord:
        """The player a bearer credential proves: a player key, or an app's JWT (it has dots)."""
        if "." in credential:
            try:
                app, sub, name = self.apps.verify(credential)
            except AppError as exc:
                raise LobbyError("bad_player_token", str(exc), 401) from None
            if sub == APP_ITSELF:
                raise LobbyError("bad_player_token", "a token whose sub is '*' stands for the app itself: it "
                                 "manages the app's webhooks only (SPEC 2.19), and is no player", 401)
            pid = f"{app}:{sub}"
            player = await self.store.get_player(pid)
            if player is None:
                await self.store.put_player(PlayerRecord(id=pid, name=name or sub[:MAX_NAME],
                                                         created=int(time.time() * 1000)))
                player = await self.store.get_player(pid)
            assert player is not None
            return player
        player = await self.store.player_for_key(hash_token(credential))
        if player is None:
            raise LobbyError("bad_player_key", "this player key belongs to no player", 401)
        return player
