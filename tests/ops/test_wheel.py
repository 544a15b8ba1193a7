"""Teahouse installs as a package: the wheels built from this tree (the server's, and the Python SDK's
it depends on, clients/python), installed into a fresh venv outside the checkout, serve the lobby, the
web client, the JS SDK, the view schemas and the OpenAPI document by themselves; the SDK's wheel installs on its own with
its three dependencies."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.games import GAMES
from tests.support.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
JS = ROOT / "clients" / "js"
SCHEMAS = ROOT / "protocol" / "schemas"

pytestmark = pytest.mark.slow  # a wheel build and an install from the index: tens of seconds


def run(*args: str | Path, cwd: Path) -> None:
    out = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


def checkout_copy(dest: Path) -> Path:
    """The tree's files as git sees them (tracked or new, nothing ignored), copied elsewhere: a build
    in the checkout itself would leave build/ behind, and a stale build/lib gets into the next wheel."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv (no system site packages) with the built wheels and their dependencies from the index."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = checkout_copy(tmp / "source")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp / "dist", source,
        source / "clients" / "python", cwd=tmp)
    wheels = sorted((tmp / "dist").glob("teahouse*.whl"))
    assert [w.name.split("-")[0] for w in wheels] == ["teahouse", "teahouse_client"], wheels
    venv = tmp / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp)
    # (as deploy/Dockerfile does: the server's dependency on teahouse-client is met by its wheel)
    run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet", *wheels, cwd=tmp)
    shutil.rmtree(source)  # nothing of the tree is left to import from
    return venv


@pytest.fixture(scope="module")
def server(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`teahouse serve` of the installed venv, started from an empty directory."""
    cwd = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    with open(cwd / "server.log", "wb") as log:
        proc = subprocess.Popen([installed / "bin" / "teahouse", "serve", "--port", str(port),
                                 "--store", f"sqlite:{cwd / 'data'}", "--log-level", "warning"],
                                cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (cwd / "server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the installed server did not come up"
            try:
                if httpx.get(url + "/health", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_venv_imports_the_installed_package_not_the_checkout(installed: Path, tmp_path: Path):
    out = subprocess.run([installed / "bin" / "python", "-c", "import service, clients, teahouse_client; "
                          "print(service.__file__); print(clients.__file__); print(teahouse_client.__file__)"],
                         cwd=tmp_path, capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    for path in out.stdout.split():
        assert Path(path).is_relative_to(installed), path
    # The server's `clients` holds the served files only: the SDK is not inside it.
    clients = Path(out.stdout.split()[1]).parent
    assert (clients / "web" / "index.html").is_file() and not (clients / "python").exists()


def test_the_sdk_wheel_installs_alone_with_its_three_dependencies(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("sdk")
    source = checkout_copy(tmp / "source") / "clients" / "python"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp / "dist", source, cwd=tmp)
    [wheel] = (tmp / "dist").glob("teahouse_client-*.whl")
    venv = tmp / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp)
    run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet", wheel, cwd=tmp)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([venv / "bin" / "python", "-c", "import importlib.metadata as m, json, teahouse_client, sys; "
                          "print(json.dumps(sorted(d.metadata['Name'].lower() for d in m.distributions()))); "
                          "print('service' in sys.modules or 'protocol' in sys.modules)"],
                         cwd=tmp, capture_output=True, text=True, check=True, env=env).stdout.splitlines()
    installed = set(json.loads(out[0]))
    assert {"teahouse-client", "websockets", "msgpack", "httpx"} <= installed
    assert "teahouse" not in installed and out[1] == "False"


def test_the_lobby_answers_and_the_root_leads_to_the_web_client(server: str):
    games = httpx.get(server + "/api/games")
    assert games.status_code == 200
    assert [g["id"] for g in games.json()] == list(GAMES)
    root = httpx.get(server + "/")
    assert root.is_redirect and root.headers["location"] == "/web/"
    index = httpx.get(server + "/web/")
    assert index.status_code == 200 and index.content == (WEB / "index.html").read_bytes()


def test_every_file_of_the_web_client_and_the_sdk_is_served(server: str):
    """Everything under clients/web (scripts, styles, boards, the font) and the SDK's modules the
    web client imports: each served byte for byte as it is in the tree."""
    files = [(f"/web/{p.relative_to(WEB).as_posix()}", p) for p in sorted(WEB.rglob("*")) if p.is_file()]
    files += [(f"/js/{p.name}", p) for p in sorted(JS.glob("*.js"))]
    assert any(path.endswith(".woff2") for path, _ in files) and any(path == "/js/teahouse.js" for path, _ in files)
    with httpx.Client(base_url=server) as http:
        for path, source in files:
            served = http.get(path)
            assert served.status_code == 200, path
            assert served.content == source.read_bytes(), path


def test_every_view_schema_is_served(server: str):
    with httpx.Client(base_url=server) as http:
        for game_id in GAMES:
            served = http.get(f"/api/games/{game_id}/view-schema")
            assert served.status_code == 200, game_id
            assert served.headers["content-type"] == "application/schema+json"
            assert served.content == (SCHEMAS / f"{game_id}.view.json").read_bytes()


def test_the_openapi_document_is_served(server: str):
    served = httpx.get(server + "/api/openapi.json")
    assert served.status_code == 200 and served.headers["content-type"] == "application/json"
    assert served.content == (ROOT / "protocol" / "openapi.json").read_bytes()
