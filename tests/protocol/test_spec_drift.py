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
