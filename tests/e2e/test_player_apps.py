"""Third-party apps' users (SPEC 2.17): an operator registers apps in a file (`--apps`, here
TEAHOUSE_APPS), an app signs a short JWT for each user, and the user plays as `<app>:<sub>`.
Tokens are made with PyJWT and keys with cryptography, as an app would make them."""

from __future__ import annotations

import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from teahouse_client import ServerError, TeahouseClient

from tests.support.server import sqlite_server

SECRET = "a shared secret of the chess club, long enough for HS256"


@pytest.fixture(scope="module")
def ed_key():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def server(tmp_path_factory, ed_key):
    tmp = tmp_path_factory.mktemp("apps")
    public = ed_key.public_key().public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    apps = tmp / "apps.json"
    apps.write_text(json.dumps({"apps": [{"id": "club", "hmac_secret": SECRET},
                                         {"id": "table", "ed25519_public_key": public}]}))
    with sqlite_server(tmp, {"TEAHOUSE_APPS": str(apps)}) as proc:
        yield proc


def token(claims: dict, key, alg: str) -> str:
    return jwt.encode({"exp": int(time.time()) + 300, **claims}, key, algorithm=alg)


async def test_an_apps_user_plays_as_app_colon_sub(server, ed_key):
    async with TeahouseClient(server.url) as client:
        hs = token({"iss": "club", "sub": "u-17", "name": "Dana"}, SECRET, "HS256")
        me = await client.me(hs)
        assert (me["player"], me["name"]) == ("club:u-17", "Dana")
        assert await client.player("club:u-17") == me  # the same user again is the same player
        ed = token({"iss": "table", "sub": "42"}, ed_key, "EdDSA")
        assert (await client.me(ed))["player"] == "table:42"
        match = await client.create_match("pixies", 2)
        await client.take_seat(match["match"], 0, player_key=hs)
        await client.take_seat(match["match"], 1, player_key=ed)
        log_rows = (await client.player_matches("club:u-17"))["matches"]
        assert [r["match"] for r in log_rows] == [match["match"]]
        assert [s["player"] for s in log_rows[0]["seats"]] == ["club:u-17", "table:42"]
        assert [s["name"] for s in log_rows[0]["seats"]] == ["Dana", "42"]


@pytest.mark.parametrize("make", [
    lambda k: token({"iss": "club", "sub": "u"}, "another secret that is long enough", "HS256"),  # wrong key
    lambda k: token({"iss": "nobody", "sub": "u"}, SECRET, "HS256"),  # no such app
    lambda k: token({"iss": "club", "sub": "u", "exp": int(time.time()) - 60}, SECRET, "HS256"),  # expired
    lambda k: jwt.encode({"iss": "club", "sub": "u"}, SECRET, algorithm="HS256"),  # no exp
    lambda k: token({"iss": "club", "sub": "u", "exp": int(time.time()) + 86400}, SECRET, "HS256"),  # too long
    lambda k: token({"iss": "table", "sub": "u"}, SECRET, "HS256"),  # HMAC where the app signs with Ed25519
    lambda k: token({"iss": "club"}, SECRET, "HS256"),  # no sub
])
async def test_a_token_no_app_vouches_for_is_refused(server, ed_key, make):
    async with TeahouseClient(server.url) as client:
        with pytest.raises(ServerError) as err:
            await client.me(make(ed_key))
        assert err.value.code == "bad_player_token"
        match = await client.create_match("pixies", 2)
        with pytest.raises(ServerError) as err:
            await client.take_seat(match["match"], 0, player_key=make(ed_key))
        assert err.value.code == "bad_player_token"
        assert not any(s["taken"] for s in (await client.match(match["match"]))["seats"])
