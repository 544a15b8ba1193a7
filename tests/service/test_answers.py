"""service/http/answers.py against protocol/SPEC.md section 2: every error is a status of 400 or
above with `{"error": {"code", "message"}}`; 408 and 413 close the connection rather than read the
rest of the body; 429 and 503 say when to come back in Retry-After; a failure is `500 internal`."""

from __future__ import annotations

import logging

import orjson
import pytest
from starlette.requests import Request
from starlette.responses import Response

from service.http.answers import guarded, int_param, json
from service.match.lobby import LobbyError
from service.store import StoreUnavailable


def request(match: str | None = "m1") -> Request:
    return Request({"type": "http", "method": "GET", "path": "/api/matches/m1", "headers": [],
                    "query_string": b"", "path_params": {"match": match} if match else {}})


async def answer(exc: BaseException | None) -> Response:
    async def route(request: Request) -> Response:
        if exc is not None:
            raise exc
        return json({"ok": True})
    return await guarded(route)(request())


def error_of(response: Response) -> dict:
    body = orjson.loads(response.body)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return body["error"]


async def test_an_answer_that_raised_nothing_is_the_routes_own():
    response = await answer(None)
    assert response.status_code == 200 and orjson.loads(response.body) == {"ok": True}
    assert response.media_type == "application/json"


async def test_a_lobby_error_is_its_status_code_and_sentence():
    response = await answer(LobbyError("seat_taken", "seat 1 is taken", 409))
    assert response.status_code == 409
    assert error_of(response) == {"code": "seat_taken", "message": "seat 1 is taken"}
    assert "connection" not in response.headers and "retry-after" not in response.headers


@pytest.mark.parametrize(("code", "status"), [("body_timeout", 408), ("body_too_large", 413)])
async def test_a_body_not_wanted_closes_the_connection(code, status):
    response = await answer(LobbyError(code, "...", status))
    assert response.status_code == status and error_of(response)["code"] == code
    assert response.headers["connection"] == "close"


async def test_rate_limited_says_the_whole_seconds_to_wait():
    exc = LobbyError("rate_limited", "try again later", 429)
    exc.retry_after_s = 12.2
    response = await answer(exc)
    assert response.status_code == 429 and response.headers["retry-after"] == "13"


async def test_an_unreachable_store_is_503_store_unavailable_after_one_second():
    response = await answer(StoreUnavailable("redis is down"))
    assert response.status_code == 503 and response.headers["retry-after"] == "1"
    assert error_of(response)["code"] == "store_unavailable"


async def test_a_failure_is_500_internal_logged_and_says_nothing_changed(caplog):
    with caplog.at_level(logging.ERROR, logger="teahouse.app"):
        response = await answer(KeyError("a bug"))
    assert response.status_code == 500
    error = error_of(response)
    assert error["code"] == "internal" and "nothing was changed" in error["message"]
    assert "a bug" not in error["message"]
    assert any(r.exc_info and "GET /api/matches/m1 failed" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("raw", "value"), [(None, 7), ("", 7), ("0", 0), ("3", 3), ("10", 10)])
def test_an_integer_parameter_in_range_or_its_default(raw, value):
    assert int_param(raw, "seq", 7, 0, 10) == value


@pytest.mark.parametrize(("raw", "says"), [("x", "seq must be an integer"), ("1.5", "seq must be an integer"),
                                           ("11", "seq must be from 0 to 10"), ("-1", "seq must be from 0 to 10")])
def test_an_integer_parameter_out_of_range_or_not_one_is_bad_field(raw, says):
    with pytest.raises(LobbyError) as raised:
        int_param(raw, "seq", 7, 0, 10)
    assert (raised.value.code, raised.value.status, raised.value.message) == ("bad_field", 400, says)
