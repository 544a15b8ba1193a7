"""SPEC.md against the server's constants and codes, so the document cannot quietly go stale."""

from __future__ import annotations

import re
from pathlib import Path

from tools.make_vectors import SPEC

ROOT = Path(__file__).resolve().parents[2]
TEXT = SPEC.read_text()


def _section(number: int) -> str:
    m = re.search(rf"^## {number}\. .*?(?=^## \d+\. |\Z)", TEXT, re.S | re.M)
    assert m
    return m.group(0)


def test_the_http_error_codes_the_server_raises_are_in_section_2():
    listed = set(re.findall(r"^\| \d{3} \| `([a-z_]+)` \|", _section(2), re.M))
    raised: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        raised |= set(re.findall(r'(?:LobbyError|problem)\(\s*"([a-z_]+)"', path.read_text()))
    assert raised, "found no LobbyError in service/"
    assert raised <= listed, raised - listed


def test_the_http_statuses_match_section_2():
    rows = dict((code, int(status)) for status, code in re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", _section(2), re.M))
    for path in (ROOT / "service").rglob("*.py"):
        for code, status in re.findall(r'LobbyError\(\s*"([a-z_]+)"[^)]*?,\s*(\d{3})\)', path.read_text(), re.S):
            assert rows[code] == int(status), code


def test_close_codes_and_limits_match_the_server():
    from service.ops.limits import Limits
    from service.ws import handshake, session

    closes = _section(8)
    assert re.search(rf"^\| {handshake.CLOSE_UNSUPPORTED} \|", closes, re.M)
    assert re.search(rf"^\| {session.CLOSE_SLOW} \|", closes, re.M)
    assert re.search(rf"^\| {session.CLOSE_IDLE} \| server \| idle: the connection watched no match for "
                     rf"{Limits.idle_socket_s:g} seconds", closes, re.M)
    limits = _section(9)
    assert f"| {session.MAX_FRAME} bytes (a text frame counts its UTF-8 bytes)" in limits
    assert re.search(rf"outbox\) \| {session.OUTBOX} \|", limits)
    assert f"(`join` + `spectate`) | {Limits.matches_per_connection} | `error` `too_many_matches`" in limits
    assert f"when the connection watches {Limits.matches_per_connection} (" in _section(7)


def test_the_transport_limit_is_the_edges():
    from service.ws import edge

    assert edge.MAX_MESSAGE_BYTES == 1048576
    assert "1 MiB (1048576 bytes)" in _section(8)


def test_resync_window_and_remembered_rejections():
    from service.match import projection, runtime

    limits = _section(9)
    assert f"last {projection.RECENT} per audience" in limits
    assert f"last {runtime.REMEMBERED_REJECTIONS} per match" in limits
    assert f"{runtime.DECIDE_ATTEMPTS} times" in _section(7)


def test_the_http_limits_are_the_guards_constants():
    from service.ops.limits import Limits

    http = " ".join(_section(2).split())
    assert f"A body is at most {Limits.max_body_bytes} bytes (413 `body_too_large`)" in http
    assert f"within {Limits.body_timeout_s:g} seconds of its headers (408 `body_timeout`)" in http
    assert f"arrive within {Limits.header_timeout_s:g} seconds of the connection opening" in http


def test_the_shared_move_codes_are_in_section_7_2_and_every_game_doc():
    """The preamble's codes, in its order, are SPEC 7.2's table; every game's doc names them
    and none says `wrong_phase` for a command after the end."""
    from service.games import GAMES, preamble

    table = re.search(r"<!-- shared move codes -->(.*?)<!-- /shared move codes -->", _section(7), re.S)
    assert table
    listed = re.findall(r"^\| `([a-z_]+)` \|", table.group(1), re.M)
    shared = [preamble.BAD_COMMAND, preamble.GAME_OVER, preamble.UNKNOWN_COMMAND, preamble.SYSTEM_ONLY,
              preamble.UNKNOWN_FIELD, preamble.NOT_STARTED, preamble.ALREADY_STARTED]
    assert listed == shared
    code = (ROOT / "service" / "games" / "preamble.py").read_text()
    raised = re.findall(r"IllegalMove\(([A-Z_]+)", code)
    assert {getattr(preamble, name) for name in raised} == set(shared)
    for game_id in GAMES:
        doc = (ROOT / "docs" / "games" / f"{game_id}.md").read_text()
        for c in shared:
            assert f"`{c}`" in doc, f"docs/games/{game_id}.md does not name {c}"
        assert not re.search(r"`wrong_phase`[^\n|]*\|[^\n]*after the (game )?end", doc), game_id
        assert not re.search(r"after the (game )?end[^\n]*`wrong_phase`", doc), game_id


def test_every_game_doc_names_its_secret_options():
    from service.games import GAMES, get_game

    for game_id in GAMES:
        doc = (ROOT / "docs" / "games" / f"{game_id}.md").read_text()
        line = re.search(r"^Secret options: (.*?)\. They fix", doc, re.M)
        assert line, f"docs/games/{game_id}.md does not list its secret options"
        assert set(re.findall(r"`([a-z_]+)`", line.group(1))) == set(get_game(game_id).secret_options)


def test_spec_and_asyncapi_give_one_order_for_the_answer_to_join():
    """SPEC 3.3 lists the answer to join: document, finished, clock, then presence, which ends
    it (3.1); AsyncAPI agrees."""
    steps = re.search(r"^### 3\.3 .*?^1\. (.*?)^A connection may", TEXT, re.S | re.M)
    assert steps
    order = [m for m in re.findall(r"^\d\. (?:the frames|`([a-z_]+)`)", "1. " + steps.group(1), re.M)]
    assert order == ["", "finished", "clock", "presence"]
    asyncapi = (ROOT / "protocol" / "asyncapi.yaml").read_text()
    join = re.search(r'summary: "Play a seat with its token\. (.*?)"', asyncapi)
    assert join
    said = [w for w in re.findall(r"\b(view|finished|presence|clock)\b", join.group(1))]
    assert said == ["view", "finished", "clock", "presence"]


def test_the_per_connection_request_limits_are_the_defaults():
    from service.ops.limits import Limits

    limits = _section(9)
    assert f"a burst of {Limits.request_burst}, then {Limits.requests_per_second:g} a second" in limits
    assert f"| {Limits.outbound_bytes_per_second} a second (a burst of one second)" in limits
    assert f"legal moves per `legal_moves` answer | {Limits.legal_moves_page} |" in limits
    assert f"pages of at most {Limits.legal_moves_page} moves" in _section(3)
    errors = _section(7)
    assert f"request burst ({Limits.request_burst}) is spent, beyond {Limits.requests_per_second:g} a second" in errors
    assert f"byte budget ({Limits.outbound_bytes_per_second} bytes a second)" in errors


def test_the_operator_limits_clients_meet_are_the_defaults():
    from service.ops.limits import Limits
    from service.ws import handshake

    http = " ".join(_section(2).split())
    assert f"created {Limits.matches_per_address_per_minute} matches in the last minute" in http
    assert f"are over {Limits.options_max_bytes} bytes" in http
    assert f"as many live matches as it may ({Limits.live_matches_per_node})" in http
    assert re.search(rf"^\| {handshake.CLOSE_TOO_MANY} \| server \| too many connections: the client address already "
                     rf"holds {Limits.connections_per_address} connections", _section(8), re.M)
    assert f"already has {Limits.spectators_per_match} spectator connections" in _section(7)
    assert f"when it holds {Limits.live_matches_per_node} live matches" in _section(7)


# -- the contradictions an independent client found, each kept resolved ---------------------------

def _asyncapi_schemas() -> dict:
    from tools.make_vectors import asyncapi_schemas

    return asyncapi_schemas()


def test_welcome_protocol_is_the_connections_version_in_spec_and_asyncapi():
    from protocol.versions import SUBPROTOCOLS

    row = re.search(r"^\| `protocol` \| integer \| (.*) \|$", _section(5), re.M)
    assert row and "`1` for `teahouse.v1.*`" in row.group(1) and "`2` for `teahouse.v2.*`" in row.group(1)
    assert "`welcome.protocol` is `2`" in _section(12)
    versions = sorted({version for version, _ in SUBPROTOCOLS.values()})
    assert _asyncapi_schemas()["welcome"]["properties"]["protocol"]["enum"] == versions == [1, 2]


def test_asyncapi_has_the_v2_view_fields_error_match_and_the_new_fields():
    schemas = _asyncapi_schemas()
    assert {"ref", "keys", "paths", "sentences"} <= set(schemas["view"]["properties"])
    assert {"match", "seq", "retry_after_ms"} <= set(schemas["error"]["properties"])
    assert "at" in schemas["move"]["properties"]
    for kind in ("join", "spectate", "resync"):
        assert "ref" in schemas[kind]["properties"], kind
    assert schemas["presence"]["properties"]["reply"]["enum"] == ["join", "spectate", "resync"]


def test_the_bot_move_id_spec_2_4_gives_is_the_one_the_server_commits():
    from service.match.committed import system_move_id

    pattern = re.search(r"with the move id `([a-z:]+)<seq>:<seat>`", _section(2))
    assert pattern
    # (tests/e2e/test_bots_at_table.py reads the same ids in a real match's log)
    assert pattern.group(1) + "2:1" == system_move_id("bot", 2, 1) == "sys:bot:2:1"
    # and no other page names them otherwise
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), SPEC]:
        assert not re.search(r"(?<!sys:)\b(?:bot|clock):<seq>", page.read_text()), page.name


def test_the_create_fields_are_one_list_and_spec_2_4_gives_the_same():
    from service.http.lobby_routes import CREATE_FIELDS

    table = re.search(r"^### 2\.4 .*?\n\n(\| field .*?)\n\n", TEXT, re.S | re.M)
    assert table
    assert re.findall(r"^\| `([a-z_]+)` \|", table.group(1), re.M) == list(CREATE_FIELDS)
    assert "refused with `400\nunknown_field`" in _section(2)


def test_admin_routes_with_the_admin_api_off_are_404_in_spec_and_operators_md():
    row = re.search(r"^\| 401 \| `admin_unauthorized` \| (.*) \|$", _section(2), re.M)
    assert row and "switched off" in row.group(1) and "`404 Not Found`" in row.group(1)
    assert "the `/admin` routes do not exist, 404" in (ROOT / "docs" / "operators.md").read_text()


def test_the_summary_table_of_2_1_is_one_table():
    part = re.search(r"^### 2\.1 .*?(?=^### 2\.2 )", TEXT, re.S | re.M)
    assert part
    blocks = [b for b in part.group(0).split("\n\n") if b.startswith("|")]
    assert len(blocks) == 1, "a table row after prose is not part of the table"
    assert "| `result` |" in blocks[0]


def test_the_byte_counts_of_12_4_are_the_vectors():
    import orjson

    from tools.make_vectors import VECTORS

    said = re.search(r"^That is the v1 patch of 5\.3 \((\d+) bytes of JSON\) in (\d+) bytes of msgpack, (\d+) of "
                     r"them the sentence's text\.$", _section(12), re.M)
    assert said
    v1 = (VECTORS / "patch.json").read_bytes()
    (v2,) = [e for e in orjson.loads((VECTORS / "v2.json").read_bytes()) if e["name"] == "patch"]
    (sentence,) = orjson.loads(v1)["said"]
    assert [int(n) for n in said.groups()] == [len(v1), len(bytes.fromhex(v2["msgpack_hex"])), len(sentence.encode())]


def test_the_advice_for_4406_names_every_subprotocol():
    from protocol.versions import SUBPROTOCOLS

    row = re.search(r"^\| 4406 \| .*$", _section(8), re.M)
    assert row
    assert set(re.findall(r"`(teahouse\.v\d\.[a-z]+)`", row.group(0))) == set(SUBPROTOCOLS)


def test_the_changelog_is_numbered_newest_first():
    rows = re.findall(r"^\| (\d+) \| (\d{4}-\d{2}-\d{2}) \|", _section(12), re.M)
    numbers = [int(n) for n, _ in rows]
    assert numbers == sorted(numbers, reverse=True) and numbers[-1] == 1
    dates = [d for _, d in rows]
    assert dates == sorted(dates, reverse=True)
    assert "Rows are\nnewest first" in _section(12)


def test_the_close_vector_names_v2():
    import orjson

    from protocol.versions import SPOKEN, unsupported_reason
    from tools.make_vectors import VECTORS

    close = orjson.loads((VECTORS / "close.json").read_bytes())
    assert close["reason"] == unsupported_reason(close["offered"])
    assert "teahouse.v2" in close["reason"] and SPOKEN in close["reason"]
    # what the reason says the server speaks is every subprotocol of SPEC 1.3's table, v2 first
    table = re.search(r"^### 1\.3 .*?^(\| subprotocol .*?)\n\n", TEXT, re.S | re.M)
    assert table
    documented = set()
    for cell in re.findall(r"^\| (`teahouse[^|]*) \|", table.group(1), re.M):
        documented |= set(re.findall(r"`(teahouse\.v\d\.[a-z]+)`", cell))
    spoken = close["reason"].split("; speak ", 1)[1]
    named = [f"{head}.{enc}" for head, encs in re.findall(r"(teahouse\.v\d)\.([a-z|]+)", spoken)
             for enc in encs.split("|")]
    assert set(named) == documented == {f"teahouse.v{v}.{e}" for v in (1, 2) for e in ("msgpack", "json")}
    assert close["code"] == 4406


def test_the_text_plain_vector_is_refused_as_the_server_does():
    import orjson

    from tools.make_vectors import VECTORS

    (call,) = [c for c in orjson.loads((VECTORS / "http.json").read_bytes()) if c["name"] == "create_text_plain"]
    assert call["status"] == 415 and call["response"]["error"]["code"] == "unsupported_media_type"


def test_the_writing_a_client_guide_comes_first_and_its_messages_are_valid():
    import orjson

    from protocol.messages import parse_client

    guide = re.search(r"^### 1\.6 Writing a client\n(.*?)(?=^## 2\. )", TEXT, re.S | re.M)
    assert guide, "the guide is the last part of section 1, before the lobby"
    text = guide.group(1)
    for pitfall in ("Integer map keys", "Legal moves come in pages", "Presence after answers", "Stale moves"):
        assert f"*{pitfall}.*" in text, pitfall
    sent = [orjson.loads(m) for m in re.findall(r"`(\{\"type\": [^`]*\})`", text) if "<" not in m]
    assert [m["type"] for m in sent] == ["hello"]
    for m in sent:
        assert parse_client(m) == m
    for step in ("POST /api/matches", "POST /api/matches/{match}/seats", "`teahouse.v1.json`", '"reply": "join"',
                 '"at": <your seq>'):
        assert step in text, step


def _message_tables() -> dict[str, list[list[str]]]:
    """Each message subsection of SPEC 4 and 5: its field table's rows, as lists of cells."""
    out = {}
    for m in re.finditer(r"^### [45]\.\d+ `([a-z_]+)`\n(.*?)(?=^### |^## )", TEXT, re.S | re.M):
        table = re.search(r"^\| field \|.*\n\|[-|]+\|\n((?:\|.*\n)+)", m.group(2), re.M)
        out[m.group(1)] = [[c.strip() for c in row.strip().strip("|").split(" | ")]
                           for row in table.group(1).splitlines()] if table else []
    return out


def test_every_message_has_the_same_fields_and_required_fields_in_spec_and_asyncapi():
    """Sections 4 and 5 (and 12.2 for the v2 view) against asyncapi's schemas: the same field
    names, and a field is required in asyncapi exactly when SPEC says so (client messages: the
    `required` column; server messages: every field whose row does not call it optional or
    `... only`)."""
    from protocol.messages import CLIENT_TYPES

    tables = _message_tables()
    schemas = _asyncapi_schemas()
    assert set(tables) >= set(CLIENT_TYPES) | {"welcome", "view", "patch", "error", "presence", "legal_moves"}
    v2_view = {"ref", "keys", "paths", "sentences"}  # SPEC 12.2, optional in a v1 view
    for kind, rows in tables.items():
        schema = schemas[kind]
        fields = {row[0].strip("`") for row in rows}
        assert fields | {"type"} | (v2_view if kind == "view" else set()) == set(schema["properties"]), kind
        if kind in CLIENT_TYPES:
            required = {row[0].strip("`") for row in rows if row[2] == "yes"}
            assert all(row[2] == "yes" or row[2].startswith("no") for row in rows), kind
        else:
            required = {row[0].strip("`") for row in rows
                        if not re.search(r"\boptional\b|` only\b", " ".join(row[1:]), re.I)}
        assert set(schema["required"]) - {"type"} == required, kind
