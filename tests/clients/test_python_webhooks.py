"""The Python SDK's webhook surface (SPEC 2.19): `verify_webhook` accepts a delivery signed by
the SPEC's recipe (computed here with hmac) and refuses a changed body, another secret, an old
timestamp and missing headers; and against a real server the SDK registers, lists and deletes a
hook, whose `your_turn` a real receiver on loopback gets, and reads the delivery log."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json

import pytest
from teahouse_client import ServerError, TeahouseClient, WebhookSignatureError, verify_webhook

from tests.support.webhook_receiver import Receiver

SECRET = "whsec_Vq0mW3xq8Jb1Yt6nGd2sKc9uLr5aHe7fPz4iTo0yRkM"


def _sign(secret: str, stamp: str, body: bytes) -> str:
    return "v1=" + hmac.new(secret.encode("utf-8"), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def test_verify_webhook_accepts_the_specs_signature_and_refuses_others():
    body = json.dumps({"id": "dlv_x", "event": "your_turn", "match": "m", "seq": 1}).encode()
    stamp = "1780000000"
    headers = {"teahouse-timestamp": stamp, "Teahouse-Signature": _sign(SECRET, stamp, body)}
    now = 1780000010.0
    assert verify_webhook(SECRET, headers, body, now=now) == json.loads(body)
    for secret, hdrs, raw, at in [
        (SECRET, headers, body + b" ", now),
        ("whsec_other", headers, body, now),
        (SECRET, headers, body, now + 3600),
        (SECRET, {"teahouse-timestamp": stamp}, body, now),
        (SECRET, {**headers, "teahouse-timestamp": "1780000001"}, body, now),
        (SECRET, {**headers, "teahouse-timestamp": "soon"}, body, now),
    ]:
        with pytest.raises(WebhookSignatureError):
            verify_webhook(secret, hdrs, raw, now=at)


async def test_the_sdk_registers_lists_reads_the_log_and_deletes(sqlite_server):
    receiver = await Receiver().start()
    try:
        async with TeahouseClient(sqlite_server.url) as client:
            me = await client.create_player("Hook")
            with pytest.raises(ServerError) as err:
                await client.create_webhook(me["key"], "http://example.org/hook")
            assert err.value.code == "bad_webhook_url"
            hook = await client.create_webhook(me["key"], receiver.url, ["your_turn"])
            assert await client.webhooks(me["key"]) == [{k: hook[k] for k in ("id", "url", "events", "created")}]
            match = (await client.create_match("pixies", 2, {"first_player": 0}, bots={1: 0}))["match"]
            await client.take_seat(match, 0, player_key=me["key"])
            got = await receiver.wait_for(lambda g: len(g) >= 1)
            payload = verify_webhook(hook["secret"], got[0].headers, got[0].body)
            assert (payload["event"], payload["match"], payload["seq"]) == ("your_turn", match, 1)
            for _ in range(100):
                log = await client.webhook_deliveries(me["key"])
                if log["deliveries"] and log["deliveries"][0]["status"] == "delivered":
                    break
                await asyncio.sleep(0.1)
            assert log["total"] == 1 and log["deliveries"][0]["id"] == payload["id"]
            await client.delete_webhook(me["key"], hook["id"])
            assert await client.webhooks(me["key"]) == []
            with pytest.raises(ServerError) as err:
                await client.delete_webhook(me["key"], hook["id"])
            assert err.value.code == "unknown_webhook"
    finally:
        await receiver.stop()
