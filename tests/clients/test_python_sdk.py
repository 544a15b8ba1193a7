"""The Python SDK as its own distribution (clients/python, `teahouse-client`): it depends on
websockets, msgpack and httpx only, documents every public name, offers what the JS SDK
offers, and reads and writes the shared protocol vectors (protocol/vectors) by itself."""

from __future__ import annotations

import ast
import inspect
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest
import teahouse_client
from teahouse_client import bot, client, patch, v2, webhooks, wire

from tests.support.server import ROOT

SDK = ROOT / "clients" / "python"
VECTORS = ROOT / "protocol" / "vectors"
ALLOWED = {"websockets", "msgpack", "httpx"}


def test_the_distribution_depends_on_websockets_msgpack_and_httpx_only():
    project = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    assert project["name"] == "teahouse-client"
    names = {re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower() for d in project["dependencies"]}  # type: ignore[union-attr]
    assert names == ALLOWED
    assert (SDK / "README.md").is_file()


def test_the_package_imports_nothing_but_the_standard_library_and_its_dependencies():
    sources = sorted((SDK / "teahouse_client").glob("*.py"))
    assert {p.stem for p in sources} >= {"__init__", "client", "bot", "patch", "v2", "wire", "webhooks"}
    for source in sources:
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                assert top in sys.stdlib_module_names or top in ALLOWED | {"teahouse_client"}, (source.name, top)


def test_the_installed_package_is_the_one_under_clients_python():
    assert Path(teahouse_client.__file__).resolve().parent == (SDK / "teahouse_client").resolve()


def public_callables() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for module in (teahouse_client, client, bot, patch, v2, wire, webhooks):
        out.append((module.__name__, module))
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj):
                out.append((f"{module.__name__}.{name}", obj))
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr not in ("__init__",):
                        continue
                    if attr == "__init__" and obj.__init__ is object.__init__:
                        continue
                    fn = member.fget if isinstance(member, property) else member
                    if inspect.isfunction(fn) and (attr != "__init__" or inspect.signature(fn).parameters.keys() - {"self"}):
                        out.append((f"{module.__name__}.{name}.{attr}", fn))
            elif inspect.isfunction(obj):
                out.append((f"{module.__name__}.{name}", obj))
    return out


def test_every_public_module_class_method_and_function_has_a_docstring():
    found = public_callables()
    assert len(found) > 60
    # An __init__ may be documented by its class's docstring.
    missing = [name for name, obj in found if not inspect.getdoc(obj)
               and not (name.endswith(".__init__") and inspect.getdoc(_owner(name)))]
    assert missing == []


def _owner(name: str) -> object:
    module, cls, _ = name.rsplit(".", 2)
    return getattr(sys.modules[module], cls)


def js_members(cls: str) -> set[str]:
    """The public methods and getters of a class of clients/js/teahouse.js."""
    source = (ROOT / "clients" / "js" / "teahouse.js").read_text()
    body = source.split(f"export class {cls} ", 1)[1].split("\n}\n", 1)[0]
    return set(re.findall(r"^  (?:async |get |static )?([a-zA-Z]\w*)\(", body, re.M)) - {"constructor"}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


@pytest.mark.parametrize("cls", ["TeahouseClient", "Connection", "MatchView"])
def test_the_python_sdk_offers_every_method_of_the_js_sdk(cls: str):
    members = js_members(cls)
    assert len(members) >= 4
    # The JS SDK closes sockets synchronously and reads the socket URL as wsUrl.
    python = getattr(client, cls)
    missing = [m for m in sorted(members) if not hasattr(python, snake(m))]
    assert missing == [], f"{cls}: {missing}"


# What the Python SDK has beyond the JS SDK, and why: the rest of its surface is the JS SDK's.
PYTHON_ONLY = {
    "TeahouseClient": {"aclose"},  # closes its httpx client (async context manager); JS has nothing to close
    "Connection": {"labelled_moves",  # the labels as a second list; JS hangs them on legalMoves' array
                   "send_raw"},  # a frame as it is, for the server's bad-input tests
    "MatchView": set(),
}


@pytest.mark.parametrize("cls", ["TeahouseClient", "Connection", "MatchView"])
def test_the_js_sdk_offers_every_method_of_the_python_sdk_but_the_listed_ones(cls: str):
    python = getattr(client, cls)
    public = {n for n, v in vars(python).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    js = {snake(m) for m in js_members(cls)}
    assert public - js == PYTHON_ONLY[cls]


# -- the shared vectors, read and written by the SDK alone ------------------------------------

def index() -> list[dict]:
    return json.loads((VECTORS / "index.json").read_text())


def test_every_vector_decodes_to_its_value_and_every_client_message_encodes_to_its_bytes():
    entries = index()
    assert len(entries) > 30
    for entry in entries:
        packed = (VECTORS / f"{entry['name']}.msgpack").read_bytes()
        text = (VECTORS / f"{entry['name']}.json").read_text()
        assert wire.decode(packed, "msgpack") == entry["value"], entry["name"]
        assert wire.decode(text, "json") == entry["value"], entry["name"]
        if entry["direction"] == "client":
            # what the SDK sends is byte for byte what the server's recorded frames are
            assert wire.encode(entry["value"], "msgpack") == packed, entry["name"]
            assert wire.encode(entry["value"], "json") == text, entry["name"]


def test_the_frames_the_vectors_call_undecodable_do_not_decode():
    """invalid.json's bad_frame cases (SPEC 7.1), as clients/js/test/msgpack.test.mjs reads them
    too: wire.decode raises ValueError, as its docstring says."""
    cases = [c for c in json.loads((VECTORS / "invalid.json").read_text()) if c["code"] == "bad_frame"]
    assert {c["name"] for c in cases} >= {"not JSON", "text frame on msgpack", "truncated msgpack"}
    for case in cases:
        frame = bytes.fromhex(case["msgpack_hex"]) if "msgpack_hex" in case else case["json"]
        with pytest.raises(ValueError):
            wire.decode(frame, case.get("connection", "msgpack"))


def test_the_patches_chain_from_the_first_view_to_the_replay_document():
    load = {e["name"]: e["value"] for e in index()}
    at_one = patch.apply(load["view_waiting"]["doc"], load["patch_start"]["ops"])
    assert at_one == load["view"]["doc"]  # pixies shows every audience the same table at seq 1
    at_two = patch.apply(at_one, load["patch"]["ops"])
    http = json.loads((VECTORS / "http.json").read_text())
    replay = next(e for e in http if "/replay" in e["path"] and (e.get("response") or {}).get("seq") == 2)
    assert at_two == {"view": replay["response"]["view"], "status": replay["response"]["status"]}
    assert load["patch_resync"]["ops"] == load["patch"]["ops"]


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
def test_the_v2_vectors_expand_to_their_v1_messages(encoding: str):
    cases = json.loads((VECTORS / "v2.json").read_text())
    assert [c["name"] for c in cases][:2] == ["view", "patch_start"]
    ex = v2.Expander()
    for case in cases:
        frame = bytes.fromhex(case["msgpack_hex"]) if encoding == "msgpack" else case["json"]
        got = ex.expand(v2.decode_frame(frame, encoding))
        if case["name"] == "view":  # the v2 view also carries its ref and the audience's tables
            assert got.pop("ref") == 1 and len(got.pop("keys")) > 10
            assert isinstance(got.pop("paths"), list) and isinstance(got.pop("sentences"), list)
            doc = got["doc"]
        elif got["type"] == "patch":
            doc = patch.apply(doc, got["ops"])
        assert got == case["v1"], case["name"]
    assert doc["status"]["phase"] != "waiting"  # the patches applied to the view


def test_an_answers_presence_keeps_its_reply_and_ref_in_v2():
    ex = v2.Expander()
    ex.expand({"type": "view", "match": "m", "ref": 2, "seq": 0, "doc": {}, "keys": []})
    assert ex.expand([11, [True, False], 3, {"reply": "join", "ref": "r-1"}]) == {
        "type": "presence", "match": "m", "seats": [True, False], "spectators": 3, "reply": "join", "ref": "r-1"}
    for bad in ([11, [True], 3, "x"], [11, [True], 3, {}, {}]):
        with pytest.raises(patch.PatchError):
            ex.expand(bad)
