"""protocol/openapi.yaml against the server: it is valid OpenAPI 3.1 (openapi-spec-validator), the
JSON served at /api/openapi.json is made from it, every route of the app is in it and every path
in it is a route, and every example in it, replayed against a real server, is answered with the
documented status and media type, a body valid under the documented schema and, for an error, the
example's code.

How an example is a call is the document's own rule (its info.description): within an
operation, the parameter, request body and response examples sharing a name are one call and
its answer. The placeholder match id of SPEC's examples is replaced by a match of this server in
the state the example needs (SETUP)."""

from __future__ import annotations

import asyncio
import copy
import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
import pytest
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from starlette.routing import Mount, Route
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from service.app import create_app
from service.ops.limits import Limits
from service.store.sqlite import SqliteStore
from tests.support.server import sqlite_server
from tools import make_openapi

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "protocol" / "openapi.yaml"
SERVED = ROOT / "protocol" / "openapi.json"
ADMIN_TOKEN = "admin-" + "o" * 32
PLACEHOLDER = "Xq3vN8kPz2Lm"  # the match id of SPEC 2's examples
METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")

# The state of the match each example's call is made on, where its path names the placeholder:
# fresh (no seat taken), half (seat 0 taken), live (every seat taken), finished (by bots), analysed
# (finished, and its analysis made: the server runs with analysis on), played (to its end by
# seats holding tokens) or rematch_asked (played, and seat 0 asked for a rematch).
SETUP = {
    "get": "fresh", "take_seat": "fresh", "take_seat_bad": "fresh", "take_seat_bad_invite": "fresh", "match_reference": "fresh",
    "take_seat_second": "half", "take_seat_taken": "half",
    "take_seat_full": "live", "log_live": "live", "replay_live_seat": "live", "replay_own_seat": "live",
    "fork_live": "live",
    "log": "finished", "record": "finished", "record_live": "live", "replay": "finished", "replay_bad_seq": "finished", "fork": "finished",
    "fork_bad_seq": "finished", "analysis": "analysed", "analysis_live": "live",
    "admin_export": "finished", "admin_delete": "fresh", "admin_delete_live": "live", "admin_unauthorized": "fresh",
    "rematch": "played", "rematch_live": "live", "rematch_without_token": "played",
    "rematch_decline": "rematch_asked", "rematch_decline_none": "played",
}
# The examples whose call carries a seat's token (security scheme seatToken), by seat.
SEAT_TOKEN = {"replay_own_seat": 1, "rematch": 0, "rematch_live": 0, "rematch_decline": 1, "rematch_decline_none": 1}
PLAYER = "pL4yEr9Ex4mp"  # the player id of SPEC 2.15's examples: replaced by a player of this server
# The examples whose call carries that player's key (security scheme playerKey).
PLAYER_KEY = {"me", "create_webhook", "create_webhook_bad_url", "create_webhook_bad_event", "list_webhooks",
              "webhook_deliveries", "webhook_deliveries_bad_limit", "delete_webhook", "delete_webhook_unknown"}
WEBHOOK = "wh_Zk3pQ9xW2mNc4TbV"  # the hook id of SPEC 2.19's examples: replaced by a hook of that player


def document() -> dict[str, Any]:
    return orjson.loads(SERVED.read_bytes())


def resolve(doc: dict[str, Any], node: Any) -> Any:
    """`node`, or what its local `$ref` points at."""
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        node = _walk(doc, node["$ref"])
    return node


def _walk(doc: dict[str, Any], ref: str) -> Any:
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


# -- the document ------------------------------------------------------------------------------------

def test_the_document_is_valid_openapi_3_1():
    source = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    assert source["openapi"].startswith("3.1.")
    validate(source, base_uri=SOURCE.as_uri())  # its view schemas are files beside it
    validate(document())


def test_the_served_json_is_made_from_the_yaml():
    assert SERVED.read_bytes() == make_openapi.render(), "run `python -m tools.make_openapi`"
    # self-contained: no reference outside the document
    text = SERVED.read_text(encoding="utf-8")
    assert '"$ref": "schemas/' not in text and document()["components"]["schemas"]["PixiesView"]["type"] == "object"


def documented(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in doc["paths"].items() for method in item if method in METHODS}


def served(app: Any) -> set[tuple[str, str]]:
    """(path, method) of every route of the app, a mount as `<prefix>/{file}`; HEAD, which
    Starlette adds to each GET, left out."""
    out: set[tuple[str, str]] = set()
    for route in app.routes:
        if isinstance(route, Mount):
            out.add((route.path + "/{file}", "GET"))
        else:
            assert isinstance(route, Route), f"a route of a kind this test does not know: {route!r}"
            out |= {(route.path, m) for m in (route.methods or {"GET"}) if m != "HEAD"}
    return out


def test_every_route_is_documented_and_every_documented_route_is_served(tmp_path: Path):
    # The app as a node with every optional part switched on builds it: the admin routes exist
    # only with an admin token, the web routes only where the web client is installed (a checkout).
    app = create_app(store=SqliteStore(tmp_path / "data"), limits=Limits(admin_token=ADMIN_TOKEN))
    routes, paths = served(app), documented(document())
    assert routes - paths == set(), "routes served but not in protocol/openapi.yaml"
    assert paths - routes == set(), "paths in protocol/openapi.yaml that the app does not serve"


def test_every_operation_has_an_id_a_summary_and_answers_for_errors():
    doc = document()
    ids = [op["operationId"] for item in doc["paths"].values() for m, op in item.items() if m in METHODS]
    assert len(ids) == len(set(ids))
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                assert op.get("summary") and op.get("description"), (path, method)
                if path.startswith(("/api/matches", "/admin")):
                    assert "503" in op["responses"] and "500" in op["responses"], (path, method)


def test_the_examples_named_for_spec_examples_are_those_of_spec():
    """SPEC 2's examples are the vectors of protocol/vectors/http.json: each is in the document
    (but the one of a path outside it) with its name, the same request and the same answer (the
    log's commits shortened)."""
    vectors = {v["name"]: v for v in orjson.loads((ROOT / "protocol" / "vectors" / "http.json").read_bytes())}
    shared = [c for c in CALLS if c.name in vectors]
    assert set(vectors) - {c.name for c in shared} == {"not_found"}
    for c in shared:
        v = vectors[c.name]
        assert c.status == v["status"] and c.media == v["content_type"], c.id
        assert (c.body[1] if c.body else None) == v["body"], c.id
        query = "&".join(f"{k}={val}" for k, val in c.query.items())
        path = c.path.replace("{match}", str(c.path_params.get("match", "")))
        assert path + (f"?{query}" if query else "") == v["path"], c.id
        want = v["response"]
        if c.name == "log":
            want = {**want, "commits": [x for x in want["commits"] if isinstance(x, dict)]}
        assert c.answer == want, c.id


def test_every_http_error_code_of_spec_is_in_the_document():
    section = re.search(r"^## 2\. .*?(?=^## 3\. )", (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8"), re.S | re.M)
    assert section
    codes = set(re.findall(r"^\| \d{3} \| `([a-z_]+)` \|", section.group(0), re.M))
    assert len(codes) > 15
    text = SOURCE.read_text(encoding="utf-8")
    assert {c for c in codes if f"`{c}`" not in text and f"code: {c}" not in text} == set()


def test_the_summary_and_create_schemas_have_the_fields_of_spec_2_1_and_2_4():
    """SPEC 2.1's summary table is the summary schema's fields (those SPEC says come only once
    finished, and `seq`, which lists leave out, not required; `spectator_key` and `invites`, which
    SPEC 2.4 puts in the answer that creates a match, besides); SPEC 2.4's table is the create body's
    fields, and no other field is allowed (SPEC 2: `unknown_field`)."""
    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    doc = document()
    summary = re.search(r"^### 2\.1 .*?(?=^### 2\.2 )", spec, re.S | re.M)
    assert summary
    rows = re.findall(r"^\| `([a-z_0-9]+)` \| [^|]* \| (.*) \|$", summary.group(0), re.M)
    fields = resolve(doc, doc["components"]["schemas"]["MatchFields"])
    assert set(fields["properties"]) == {name for name, _ in rows} | {"spectator_key", "invites"}
    assert "the create answer carries `spectator_key`" in " ".join(spec.split())
    assert "The answer, and no other, also has `invites`" in " ".join(spec.split())
    later = {name for name, meaning in rows if meaning.startswith("only once finished")}
    assert later == {"seed", "bot_seed", "result"}
    # fields SPEC gives to one route only (`ratings`: the summary of one finished match, 2.16)
    one_route = {name for name, meaning in rows if meaning.startswith("only in `GET")}
    assert one_route == {"ratings"}
    assert set(fields["required"]) == {name for name, _ in rows} - later - one_route - {"seq"}
    create = re.search(r"^### 2\.4 .*?\n\n(\| field .*?)\n\n", spec, re.S | re.M)
    assert create
    body = resolve(doc, doc["paths"]["/api/matches"]["post"]["requestBody"]["content"]["application/json"]["schema"])
    assert list(body["properties"]) == re.findall(r"^\| `([a-z_]+)` \|", create.group(1), re.M)
    assert body["additionalProperties"] is False


# -- the examples, replayed ----------------------------------------------------------------------------

@dataclass
class Call:
    path: str
    method: str
    name: str
    status: int
    media: str | None  # of the answer; None: no body
    schema: Any
    answer: Any  # the example's value, None when it has none (externalValue, no body)
    path_params: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: tuple[str, Any] | None = None  # (media type, value)
    admin: bool = False
    seat_token: bool = False

    @property
    def id(self) -> str:
        return f"{self.method} {self.path} {self.name}"


def calls(doc: dict[str, Any]) -> list[Call]:
    out = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            answers: dict[str, tuple[int, str | None, Any, Any]] = {}
            for status, response in op["responses"].items():
                response = resolve(doc, response)
                for media, content in response.get("content", {}).items():
                    for name, example in content.get("examples", {}).items():
                        assert name not in answers, f"{path} {method}: two answers to {name}"
                        answers[name] = (int(status), media, content.get("schema"), resolve(doc, example).get("value"))
                for name in response.get("x-examples", []):
                    assert name not in answers, f"{path} {method}: two answers to {name}"
                    answers[name] = (int(status), None, None, None)
            params = [resolve(doc, p) for p in op.get("parameters", [])]
            bodies = {name: (media, resolve(doc, ex)["value"])
                      for media, content in op.get("requestBody", {}).get("content", {}).items()
                      for name, ex in content.get("examples", {}).items()}
            asked = {n for p in params for n in p.get("examples", {})} | set(bodies)
            assert asked <= set(answers), f"{path} {method}: examples without an answer: {asked - set(answers)}"
            admin = any("adminKey" in s for s in op.get("security", []))
            seat_token = any("seatToken" in s for s in op.get("security", []))
            for name, (status, media, schema, answer) in answers.items():
                call = Call(path, method.upper(), name, status, media, schema, answer, body=bodies.get(name), admin=admin,
                            seat_token=seat_token)
                for p in params:
                    example = p.get("examples", {}).get(name)
                    if example is not None:
                        (call.path_params if p["in"] == "path" else call.query)[p["name"]] = example["value"]
                    else:
                        assert p["in"] != "path", f"{call.id}: no example of the path parameter {p['name']}"
                out.append(call)
    return out


CALLS = calls(document())


def test_every_operation_has_examples_and_each_error_code_is_one_of_spec():
    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    ops = {(path, m) for path, item in document()["paths"].items() for m in item if m in METHODS}
    assert {(c.path, c.method.lower()) for c in CALLS} == ops, "an operation without an example"
    for c in CALLS:
        if c.status >= 400 and isinstance(c.answer, dict):
            assert f"`{c.answer['error']['code']}`" in spec, c.id


class Matches:
    """Matches of the server in the states SETUP names."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self._finished: dict[str, Any] | None = None
        self.tokens: dict[str, dict[int, str]] = {}

    def create(self, **extra: Any) -> str:
        r = self.http.post("/api/matches", json={"game": "pixies", "players": 2, "options": {"first_player": 0}, **extra})
        assert r.status_code == 201, r.text
        return r.json()["match"]

    def player(self) -> dict[str, Any]:
        """A new player of the server, with its key."""
        r = self.http.post("/api/players", json={"name": "Ada"})
        assert r.status_code == 201, r.text
        return r.json()

    def take(self, match: str, seat: int) -> None:
        r = self.http.post(f"/api/matches/{match}/seats", json={"seat": seat, "name": f"p{seat}"})
        assert r.status_code == 201, r.text
        self.tokens.setdefault(match, {})[seat] = r.json()["token"]

    def finished(self) -> dict[str, Any]:
        """One match that the server's random bots played to its end, shared (nothing changes it)."""
        if self._finished is None:
            match = self.create(bots=[{"seat": 0, "strength": 0}, {"seat": 1, "strength": 0}])
            deadline = time.monotonic() + 60
            while (got := self.http.get(f"/api/matches/{match}").json())["state"] != "finished":
                assert time.monotonic() < deadline, got
                time.sleep(0.1)
            self._finished = got
        return self._finished

    def played(self) -> dict[str, Any]:
        """A new match its two seats played to the end with random moves (their tokens kept)."""
        match = self.create()
        for seat in (0, 1):
            self.take(match, seat)
        asyncio.run(_play_out(str(self.http.base_url), match, self.tokens[match]))
        got = self.http.get(f"/api/matches/{match}").json()
        assert got["state"] == "finished", got
        return got

    def in_state(self, state: str) -> dict[str, Any]:
        if state == "finished":
            return self.finished()
        if state == "analysed":
            got = self.finished()
            deadline = time.monotonic() + 60
            while self.http.get(f"/api/matches/{got['match']}/analysis").status_code != 200:
                assert time.monotonic() < deadline, "the analysis was not made"
                time.sleep(0.2)
            return got
        if state in ("played", "rematch_asked"):
            got = self.played()
            if state == "rematch_asked":
                token = self.tokens[got["match"]][0]
                r = self.http.post(f"/api/matches/{got['match']}/rematch", headers={"Authorization": f"Bearer {token}"})
                assert r.status_code == 201, r.text
            return got
        match = self.create()
        for seat in {"fresh": (), "half": (0,), "live": (0, 1)}[state]:
            self.take(match, seat)
        return self.http.get(f"/api/matches/{match}").json()


async def _play_out(url: str, match: str, tokens: dict[int, str]) -> None:
    client = TeahouseClient(url)
    conns = [await client.connect().open() for _ in tokens]
    views = [await c.join(match, tokens[s]) for c, s in zip(conns, sorted(tokens), strict=True)]
    await asyncio.gather(*[play_seat(c, v, random.Random(i)) for i, (c, v) in enumerate(zip(conns, views, strict=True))])
    for c in conns:
        await c.close()
    await client.aclose()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with sqlite_server(tmp_path_factory.mktemp("openapi"), {"TEAHOUSE_ADMIN_TOKEN": ADMIN_TOKEN, "TEAHOUSE_ANALYSIS": "1",
                                                            "TEAHOUSE_ANALYSIS_PLAYOUTS": "2"}) as proc:
        yield proc.url


@pytest.fixture(scope="module")
def http(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=10) as client:
        yield client


@pytest.fixture(scope="module")
def matches(http: httpx.Client) -> Matches:
    return Matches(http)


def test_the_server_serves_the_document(http: httpx.Client):
    r = http.get("/api/openapi.json")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.content == SERVED.read_bytes()


def request_of(call: Call, matches: Matches) -> httpx.Request:
    params, body = dict(call.path_params), copy.deepcopy(call.body)
    if params.get("match") == PLACEHOLDER:
        assert call.name in SETUP, f"{call.id}: SETUP does not say which match its call needs"
        match = matches.in_state(SETUP[call.name])
        params["match"] = match["match"]
        if call.name == "fork_bad_seq":  # SPEC 2.10: the seq at which the match is over, its last
            assert body is not None
            body[1]["seq"] = match["seq"]
    headers: dict[str, str] = {}
    if params.get("player") == PLAYER or call.name in PLAYER_KEY:
        player = matches.player()
        if params.get("player") == PLAYER:
            params["player"] = player["player"]
        if call.name in PLAYER_KEY:
            headers["Authorization"] = f"Bearer {player['key']}"
        if params.get("webhook") == WEBHOOK:
            made = matches.http.post("/api/players/me/webhooks", json={"url": "https://example.org/h"}, headers=headers)
            assert made.status_code == 201, made.text
            params["webhook"] = made.json()["id"]
    if call.name in SEAT_TOKEN:
        assert call.seat_token, f"{call.id}: its operation does not take a seat token"
        headers["Authorization"] = f"Bearer {matches.tokens[params['match']][SEAT_TOKEN[call.name]]}"
    path = call.path
    for name, value in params.items():
        path = path.replace("{" + name + "}", quote(str(value), safe="/"))
    if call.admin and call.status != 401:
        headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"
    content = None
    if body is not None:
        media, value = body
        headers["Content-Type"] = media
        content = value.encode() if isinstance(value, str) else orjson.dumps(value)
    return matches.http.build_request(call.method, path, params=call.query, headers=headers, content=content)


def validator(schema: Any) -> Draft202012Validator:
    """`schema` of the document, with the document's components beside it so that its
    `#/components/...` references resolve (JSON Schema ignores a keyword it does not know)."""
    return Draft202012Validator({**schema, "components": document()["components"]})


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.id)
def test_each_example_is_answered_as_documented(call: Call, matches: Matches):
    r = matches.http.send(request_of(call, matches))
    assert r.status_code == call.status, f"{call.id}: {r.status_code} {r.text[:500]}"
    if call.media is None:
        return
    media = r.headers.get("content-type", "").split(";")[0]
    if call.media != "*/*":
        assert media == call.media, call.id
    if media != "application/json" and not media.endswith("+json"):
        return
    schema = validator(call.schema or {})
    got = r.json()
    errors = sorted(schema.iter_errors(got), key=str)
    assert not errors, f"{call.id}: the answer does not match its schema: {errors[0]}"
    if call.answer is not None:
        assert not sorted(schema.iter_errors(call.answer), key=str), f"{call.id}: the example does not match its schema"
        if call.status >= 400:
            assert got["error"]["code"] == call.answer["error"]["code"], call.id
