"""The files the server serves as they are: the web client (`/web/`, where `/` leads), the
JavaScript SDK it imports (`/js`), each game's view schema (`/api/games/{game}/view-schema`) and
the OpenAPI document of the HTTP routes (`/api/openapi.json`).

They are package data of `clients` and `protocol` (pyproject.toml), found with importlib.resources,
so that an installed wheel serves them exactly as a checkout does; the web client and the SDK are
served from memory, gzipped and with ETags (service/http/packed.py).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from service.games import GAMES
from service.http.packed import PackedFiles


def package_dir(package: str, name: str) -> Path:
    """A directory of a package's data on the file system. StaticFiles and FileResponse serve
    files by path, and pip installs a wheel unpacked, so the resource is a real directory."""
    return Path(str(files(package).joinpath(name)))


WEB = package_dir("clients", "web")
JS = package_dir("clients", "js")


def view_schemas() -> dict[str, bytes]:
    """Each game's view schema (protocol/schemas/<id>.view.json, made by tools/make_view_schemas.py),
    read once at start-up rather than on the event loop per request."""
    folder = files("protocol").joinpath("schemas")
    found = {g: folder.joinpath(f"{g}.view.json") for g in GAMES}
    return {g: path.read_bytes() for g, path in found.items() if path.is_file()}


def openapi_document() -> bytes:
    """protocol/openapi.json (made from protocol/openapi.yaml by tools/make_openapi.py), read once
    at start-up."""
    return files("protocol").joinpath("openapi.json").read_bytes()


async def to_web(request: Request) -> Response:
    return RedirectResponse("/web/")


def routes() -> list[BaseRoute]:
    """The OpenAPI document; the web client and the SDK, each only where its files are installed."""
    document = openapi_document()

    async def openapi(request: Request) -> Response:
        return Response(document, media_type="application/json")

    out: list[BaseRoute] = [Route("/api/openapi.json", openapi)]
    if (WEB / "index.html").exists():
        web = PackedFiles(WEB)
        out += [
            Route("/", to_web),
            Route("/web/", web.one("index.html"), methods=["GET", "HEAD"]),
            Mount("/web", web, name="web"),
        ]
    if (JS / "teahouse.js").exists():
        out.append(Mount("/js", PackedFiles(JS), name="js"))
    return out
