"""A folder of static files served from memory: read and gzipped once at start-up, each with a
strong ETag, so a page load costs no disk read, a repeat visit costs a 304, and a phone on a slow
link gets the compressed bytes.

The files' names are not hashed (the web client is plain ES modules, no build), so text files are
served `no-cache` (the browser keeps them and revalidates with the ETag); fonts, which change
only with a release, may be kept for a week.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

# Smaller than this, compression saves less than its header costs.
MIN_GZIP = 512
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
LONG_LIVED = (".woff2", ".woff", ".ttf")
TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
         ".json": "application/json", ".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8",
         ".md": "text/markdown; charset=utf-8", ".ts": "text/plain; charset=utf-8"}


@dataclass(frozen=True)
class Packed:
    body: bytes
    gzipped: bytes | None
    etag: str
    content_type: str
    cache_control: str


def pack(path: Path) -> Packed:
    body = path.read_bytes()
    ctype = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    gz = None
    if len(body) >= MIN_GZIP and ctype.startswith(COMPRESSIBLE):
        # mtime=0: the same file gives the same bytes on every node and every start
        smaller = gzip.compress(body, compresslevel=9, mtime=0)
        gz = smaller if len(smaller) < len(body) else None
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    cache = "public, max-age=604800" if path.suffix in LONG_LIVED else "no-cache"
    return Packed(body, gz, etag, ctype, cache)


def accepts_gzip(headers: Headers) -> bool:
    for part in headers.get("accept-encoding", "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*") and params.replace(" ", "") not in ("q=0", "q=0.0"):
            return True
    return False


def etag_matches(headers: Headers, etag: str) -> bool:
    wanted = headers.get("if-none-match")
    if not wanted:
        return False
    return wanted.strip() == "*" or etag in [t.strip().removeprefix("W/") for t in wanted.split(",")]


class PackedFiles:
    """An ASGI app for a Mount: the files under `directory`, by their relative path."""

    def __init__(self, directory: Path) -> None:
        self.files: dict[str, Packed] = {}
        for path in sorted(directory.rglob("*")):
            if path.is_file() and not any(p.startswith(".") or p == "node_modules" for p in path.relative_to(directory).parts):
                self.files[path.relative_to(directory).as_posix()] = pack(path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Inside a Mount the path is the whole one with the mount's prefix as root_path (older
        # Starlettes pass only the rest): the file's name is what follows the prefix.
        path, root = scope["path"], scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root):]
        await self.serve(path.lstrip("/"), scope, send)

    def one(self, name: str) -> OneFile:
        """An ASGI app that serves always the same file (the page at /web/)."""
        return OneFile(self, name)

    async def serve(self, name: str, scope: Scope, send: Send) -> None:
        method = scope["method"]
        found = self.files.get(name)
        if method not in ("GET", "HEAD"):
            await respond(send, 405, [(b"allow", b"GET, HEAD")], b"")
            return
        if found is None:
            await respond(send, 404, [(b"content-type", b"text/plain; charset=utf-8")], b"Not Found")
            return
        headers = Headers(scope=scope)
        common = [(b"etag", found.etag.encode()), (b"cache-control", found.cache_control.encode()),
                  (b"vary", b"accept-encoding")]
        if etag_matches(headers, found.etag):
            await respond(send, 304, common, b"")
            return
        body, extra = found.body, []
        if found.gzipped is not None and accepts_gzip(headers):
            body, extra = found.gzipped, [(b"content-encoding", b"gzip")]
        out = [(b"content-type", found.content_type.encode()), (b"content-length", str(len(body)).encode()), *common, *extra]
        await respond(send, 200, out, b"" if method == "HEAD" else body, length_set=True)


class OneFile:
    """One file of a PackedFiles as an ASGI app (a class, so that a Route passes it the raw
    scope rather than a Request, as it does for functions)."""

    def __init__(self, files: PackedFiles, name: str) -> None:
        self.files, self.name = files, name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.files.serve(self.name, scope, send)


async def respond(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes, length_set: bool = False) -> None:
    if not length_set:
        headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
