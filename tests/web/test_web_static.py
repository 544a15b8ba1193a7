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


def test_static_files_come_gzipped_with_etags_and_revalidate_with_304(web_server):
    from tests.support.server import ROOT

    on_disk = (ROOT / "clients" / "web" / "app.js").read_bytes()
    with httpx.Client(base_url=web_server.url, timeout=10) as http:
        r = http.get("/web/app.js", headers={"accept-encoding": "gzip"})
        assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
        assert int(r.headers["content-length"]) < len(on_disk) / 2  # the bytes on the wire
        assert r.content == on_disk  # httpx unzips: the same file
        assert r.headers["vary"].lower() == "accept-encoding" and r.headers["cache-control"] == "no-cache"
        etag = r.headers["etag"]
        assert etag.startswith('"') and etag.endswith('"')  # strong (RFC 9110 8.8.3)
        plain = http.get("/web/app.js", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == on_disk and plain.headers["etag"] == etag
        again = http.get("/web/app.js", headers={"if-none-match": etag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
        assert http.get("/web/app.js", headers={"if-none-match": '"other"'}).status_code == 200
        head = http.head("/js/teahouse.js", headers={"accept-encoding": "identity"})
        assert head.status_code == 200 and head.content == b""
        assert int(head.headers["content-length"]) == len((ROOT / "clients" / "js" / "teahouse.js").read_bytes())
        index = http.get("/web/", headers={"accept-encoding": "gzip"})
        assert index.status_code == 200 and 'src="/web/app.js"' in index.text and index.headers["etag"]
        font = http.get("/web/fonts/NotoSansSC-subset.woff2")
        assert font.headers["content-type"] == "font/woff2" and "max-age=" in font.headers["cache-control"]
        assert "content-encoding" not in font.headers  # woff2 is compressed already
        assert http.get("/web/no-such-file.js").status_code == 404
        assert http.get("/web/../pyproject.toml").status_code == 404
        assert http.post("/web/app.js").status_code == 405


def test_json_answers_a_page_reads_come_gzipped_when_accepted(web_server):
    with httpx.Client(base_url=web_server.url, timeout=10) as http:
        m = http.post("/api/matches", json={"game": "pixies", "players": 2}).json()["match"]
        for path in (f"/api/matches/{m}/reference", "/api/games"):
            plain = http.get(path, headers={"accept-encoding": "identity"})
            assert "content-encoding" not in plain.headers and len(plain.content) > 1024, path
            r = http.get(path, headers={"accept-encoding": "gzip"})
            assert r.headers["content-encoding"] == "gzip" and "accept-encoding" in r.headers["vary"].lower(), path
            assert int(r.headers["content-length"]) < len(plain.content) / 2, path  # the bytes on the wire
            assert r.json() == plain.json()
        small = http.get(f"/api/matches/{m}", headers={"accept-encoding": "gzip"})
        assert small.status_code == 200 and ("content-encoding" not in small.headers) == (len(small.content) < 1024)


def test_a_match_page_loads_only_its_own_game_board(pages, api):
    match = api.post("/api/matches", json={"game": "khan", "players": 2}).json()["match"]
    page = pages.new("khan")
    boards: list[str] = []
    page.on("request", lambda r: "/web/boards/" in r.url and boards.append(r.url.rsplit("/", 1)[-1]))
    page.goto(f"{pages.base}/web/#/match/{match}")
    page.wait_for_selector("svg.k-map")
    assert {b for b in boards if b.endswith(".js")} == {"index.js", "generic.js", "khan.js"}
    assert pages.errors == []
