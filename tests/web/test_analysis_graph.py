"""The analysis under the replay's board (SPEC 2.14), in Chromium against a server that runs with
analysis on: one line per seat, the legend gives each seat's chance at the step shown, a click
on the graph goes to the step under it, a key moment's button goes to it; a server without
analysis draws no graph and asks for none."""

from __future__ import annotations

import math
import re
import time

import httpx
import pytest

from tests.e2e.helpers import finished_bot_match
from tests.support.server import sqlite_server
from tests.web.conftest import Pages, shot
from tests.web.test_moments import at_seq

PAD, W = 6, 1000  # clients/web/chances.js: the graph's viewBox width and padding


@pytest.fixture(scope="module")
def analysing(tmp_path_factory):
    env = {"TEAHOUSE_ANALYSIS": "1", "TEAHOUSE_ANALYSIS_PLAYOUTS": "8"}
    with sqlite_server(tmp_path_factory.mktemp("analysing"), env) as proc:
        yield proc


@pytest.fixture
def api_on(analysing):
    with httpx.Client(base_url=analysing.url, timeout=10) as client:
        yield client


@pytest.fixture
def pages_on(browser, analysing):
    p = Pages(browser, analysing.url)
    yield p
    p.close()


def made(api, match: str) -> dict:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        r = api.get(f"/api/matches/{match}/analysis")
        if r.status_code == 200:
            return r.json()
        time.sleep(0.3)
    raise AssertionError("no analysis")


def test_the_graph_draws_a_line_per_seat_and_a_click_goes_there(pages_on, api_on):
    summary = finished_bot_match(api_on, "pixies", 3)
    match, last = summary["match"], summary["seq"]
    doc = made(api_on, match)
    page = pages_on.new("replay")
    page.goto(f"{pages_on.base}/web/#/m/{match}@{last // 2}?as=public")
    at_seq(page, last // 2)
    page.wait_for_selector("#chances-graph")
    assert page.locator("#chances-graph .chance-line").count() == 3

    def legend_says(n: int) -> None:
        """The legend names every seat with its chance at step n, in whole percents."""
        text = page.locator("#chances .legend").inner_text()
        shown = [int(x) for x in re.findall(r"(\d+)%", text)]
        assert shown == [math.floor(p * 100 + 0.5) for p in doc["chances"][n]], (n, text)
        assert all(f"(seat {seat})" in text for seat in range(3))

    legend_says(last // 2)
    # a click a quarter of the way along goes to the step drawn there
    box = page.locator("#chances-graph").bounding_box()
    target = last // 4
    x = box["width"] * (PAD + target / last * (W - 2 * PAD)) / W
    page.locator("#chances-graph").click(position={"x": x, "y": box["height"] / 2})
    at_seq(page, target)
    legend_says(target)
    now = float(page.locator("#chances-now").get_attribute("x1"))
    assert now == pytest.approx(PAD + target / last * (W - 2 * PAD), abs=0.5)
    # each key moment has a button that goes there
    for m in doc["key_moments"]:
        page.locator(f"#key-moments button[data-seq='{m['seq']}']").click()
        at_seq(page, m["seq"])
    assert page.locator("#key-moments button").count() == len(doc["key_moments"])
    page.locator("#chances").scroll_into_view_if_needed()
    shot(page, "replay-analysis")
    assert pages_on.errors == []


def test_without_analysis_there_is_no_graph_and_no_refused_request(pages, api):
    summary = finished_bot_match(api)
    page = pages.new("plain")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/analysis") else None)
    page.goto(f"{pages.base}/web/#/m/{summary['match']}@3?as=public")
    at_seq(page, 3)
    page.wait_for_timeout(300)
    assert page.locator("#chances-graph").count() == 0 and asked == []
    assert pages.errors == []
