"""The web client's files as the server serves them, without a browser."""

from __future__ import annotations

import httpx

from clients.web.make_pixies_cards import OUT, render


def test_pixies_card_table_is_current():
    assert OUT.read_text() == render(), "run: .venv/bin/python clients/web/make_pixies_cards.py"


def test_server_serves_the_page_the_app_and_the_sdk(web_server):
    with httpx.Client(base_url=web_server.url, timeout=10) as http:
        root = http.get("/", follow_redirects=False)
        assert root.status_code in (302, 307) and root.headers["location"].endswith("/web/")
        page = http.get("/web/")
        assert page.status_code == 200 and 'src="/web/app.js"' in page.text
        for path in ("/web/app.js", "/web/render.js", "/web/pixies-cards.js", "/web/style.css", "/js/teahouse.js"):
            r = http.get(path)
            assert r.status_code == 200, path
        assert "javascript" in http.get("/js/teahouse.js").headers["content-type"]
        assert 'from "/js/teahouse.js"' in http.get("/web/app.js").text
