"""The web client's files as the server serves them, without a browser."""

from __future__ import annotations

import httpx


def test_server_serves_the_page_the_app_and_the_sdk(web_server):
    with httpx.Client(base_url=web_server.url, timeout=10) as http:
        root = http.get("/", follow_redirects=False)
        assert root.status_code in (302, 307) and root.headers["location"].endswith("/web/")
        page = http.get("/web/")
        assert page.status_code == 200 and 'src="/web/app.js"' in page.text
        for path in ("/web/app.js", "/web/render.js", "/web/style.css", "/js/teahouse.js"):
            r = http.get(path)
            assert r.status_code == 200, path
        assert "javascript" in http.get("/js/teahouse.js").headers["content-type"]
        assert 'from "/js/teahouse.js"' in http.get("/web/app.js").text


def test_the_pixies_board_gets_its_card_faces_from_the_reference_route(web_server):
    with httpx.Client(base_url=web_server.url, timeout=10) as http:
        m = http.post("/api/matches", json={"game": "pixies", "players": 2}).json()
        ref = http.get(f"/api/matches/{m['match']}/reference").json()["reference"]
        card = next(c for c in ref["cards"] if c["id"] == "B06")
        # the fields render.js reads
        assert {"id", "number", "colour", "spirals", "crosses", "condition"} <= set(card)
        assert card["condition"]["colour"] == "blue"
