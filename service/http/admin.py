"""The admin API: list every match, export a match's log as a file, delete a match.

Switched on by a non-empty Limits.admin_token; every request carries
`Authorization: Bearer <admin_token>`, compared in constant time. docs/operators.md describes
the routes and the export format.
"""

from __future__ import annotations

import dataclasses
import hmac
from collections.abc import Callable
from typing import Any

import msgpack
import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.match.lobby import Lobby, LobbyError
from service.store import MatchRecord

PAGE_MAX = 500
FORMATS = {"jsonl": ("application/x-ndjson", "jsonl"), "msgpack": ("application/msgpack", "msgpack")}


def _check(request: Request, token: str) -> None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    given = value.strip().encode() if scheme.lower() == "bearer" else b""
    if not hmac.compare_digest(given, token.encode()):
        raise LobbyError("admin_unauthorized", "the admin API takes Authorization: Bearer <admin token>", 401)


def export_record(rec: MatchRecord) -> dict[str, Any]:
    """The record as stored, for the operator: the seed included, seat token hashes and the
    spectator key's hash left out."""
    data = dataclasses.asdict(rec)
    data.pop("spectator_key_hash", None)
    for seat in data["seats"]:
        seat.pop("token_hash", None)
    return data


def routes(lobby: Callable[[], Lobby], token: str, summary: Callable[[MatchRecord], dict[str, Any]],
           guarded: Callable[[Any], Any], int_param: Callable[..., int]) -> list[Route]:
    """The admin routes (none when `token` is empty). `guarded` turns LobbyErrors into answers."""
    if not token:
        return []

    @guarded
    async def list_all(request: Request) -> Response:
        _check(request, token)
        q = request.query_params
        offset = int_param(q.get("offset"), "offset", 0, 0, 1 << 31)
        limit = int_param(q.get("limit"), "limit", 100, 1, PAGE_MAX)
        recs = await lobby().store.all_matches(offset, limit)
        body = {"matches": [summary(r) for r in recs], "offset": offset, "limit": limit,
                "next_offset": offset + len(recs) if len(recs) == limit else None}
        return Response(orjson.dumps(body), media_type="application/json")

    @guarded
    async def export(request: Request) -> Response:
        _check(request, token)
        fmt = request.query_params.get("format", "jsonl")
        if fmt not in FORMATS:
            raise LobbyError("bad_field", f"format must be one of: {', '.join(FORMATS)}")
        match_id = request.path_params["match"]
        rec = await lobby().record(match_id)
        items = [{"record": export_record(rec)}, *({"commit": c.public()} for c in await lobby().store.read(match_id))]
        if fmt == "jsonl":
            data = b"".join(orjson.dumps(item) + b"\n" for item in items)
        else:
            data = b"".join(msgpack.packb(item, use_bin_type=True) for item in items)
        media, ext = FORMATS[fmt]
        return Response(data, media_type=media,
                        headers={"Content-Disposition": f'attachment; filename="{match_id}.{ext}"'})

    @guarded
    async def delete(request: Request) -> Response:
        _check(request, token)
        match_id = request.path_params["match"]
        rec = await lobby().record(match_id)
        if not rec.finished and await lobby().store.last_seq(match_id) > 0:
            raise LobbyError("match_live", "a match being played cannot be deleted; wait for its end", 409)
        await lobby().store.delete_match(match_id)
        await lobby().forget(match_id)
        return Response(status_code=204)

    return [
        Route("/admin/matches", list_all, methods=["GET"]),
        Route("/admin/matches/{match}/log", export, methods=["GET"]),
        Route("/admin/matches/{match}", delete, methods=["DELETE"]),
    ]
