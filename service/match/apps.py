"""Third-party apps that vouch for their own users (`teahouse serve --apps FILE`).

The file is JSON: `{"apps": [{"id": "chess-club", "hmac_secret": "..."},
{"id": "tabletop", "ed25519_public_key": "-----BEGIN PUBLIC KEY-----..."}]}`. An app signs a
short JWT for each user (HS256 with its secret, or EdDSA with its Ed25519 key): `iss` its id,
`sub` the user's id in the app, `exp` at most MAX_LIFETIME_S ahead, and optionally `name`.
PyJWT checks the signature, the expiry and the claims; nothing here parses a token by hand.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.serialization import load_pem_public_key

MAX_LIFETIME_S = 3600  # a token is short: a leaked one stops working within the hour
APP_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_")


class AppError(Exception):
    """A token no registered app vouches for; the message says why."""


@dataclass
class App:
    id: str
    key: Any  # the HMAC secret (bytes) or the Ed25519 public key
    algorithm: str  # "HS256" or "EdDSA"


@dataclass
class Apps:
    by_id: dict[str, App] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path | None) -> Apps:
        if path is None:
            return cls()
        data = json.loads(Path(path).read_text())
        apps: dict[str, App] = {}
        for entry in data.get("apps", []):
            app_id = entry["id"]
            if not app_id or set(app_id) - APP_ID_CHARS or app_id == "bot":
                raise ValueError(f"app id {app_id!r}: lower-case letters, digits, '-' and '_' only (not 'bot')")
            if "hmac_secret" in entry:
                apps[app_id] = App(app_id, entry["hmac_secret"].encode(), "HS256")
            elif "ed25519_public_key" in entry:
                apps[app_id] = App(app_id, load_pem_public_key(entry["ed25519_public_key"].encode()), "EdDSA")
            else:
                raise ValueError(f"app {app_id!r} needs an hmac_secret or an ed25519_public_key")
        return cls(apps)

    def verify(self, token: str) -> tuple[str, str, str | None]:
        """(app id, sub, name) of a valid token; AppError otherwise."""
        try:
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as exc:
            raise AppError(f"not a JWT: {exc}") from None
        app = self.by_id.get(str(unverified.get("iss")))
        if app is None:
            raise AppError("the token's iss is no app registered on this server")
        try:
            claims = jwt.decode(token, app.key, algorithms=[app.algorithm], issuer=app.id,
                                options={"require": ["iss", "sub", "exp"]})
        except jwt.PyJWTError as exc:
            raise AppError(f"the token of app {app.id!r} is refused: {exc}") from None
        if claims["exp"] - time.time() > MAX_LIFETIME_S:
            raise AppError(f"the token lives too long: exp may be at most {MAX_LIFETIME_S} s ahead")
        sub, name = claims["sub"], claims.get("name")
        if not isinstance(sub, str) or not 0 < len(sub) <= 64 or "/" in sub:
            raise AppError("sub must be a string of 1 to 64 characters, without '/' (it is part of a URL path)")
        return app.id, sub, name if isinstance(name, str) and 0 < len(name) <= 40 else None
