"""The JS SDK as an npm package (clients/js): `npm pack` ships the modules and their TypeScript
declarations, the package is an ES module whose `exports` name the declarations, and a small
typed client (clients/js/types-example.ts) type-checks against them with the pinned tsc."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.clients.node import JS, NODE, NPM, js_dev_dependencies

MODULES = ["teahouse", "msgpack", "v2", "verify"]


def package() -> dict:
    return json.loads((JS / "package.json").read_text())


def test_the_package_is_public_an_es_module_and_names_its_declarations():
    pkg = package()
    assert pkg.get("private") is not True
    assert pkg["name"] == "teahouse-client" and pkg["type"] == "module"
    assert pkg["types"] == "./teahouse.d.ts" and pkg["main"] == "./teahouse.js"
    subpaths = {".": "teahouse", "./msgpack": "msgpack", "./v2": "v2", "./verify": "verify"}
    for subpath, module in subpaths.items():
        assert pkg["exports"][subpath] == {"types": f"./{module}.d.ts", "default": f"./{module}.js"}, subpath
    # No runtime dependencies: the SDK is four modules; TypeScript is pinned for the check only.
    assert "dependencies" not in pkg
    assert set(pkg["devDependencies"]) == {"typescript"}
    lock = json.loads((JS / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/typescript"]["version"] == pkg["devDependencies"]["typescript"]


def test_npm_pack_ships_the_modules_their_declarations_and_nothing_else():
    run = subprocess.run([NPM, "pack", "--dry-run", "--json", "--ignore-scripts"], cwd=JS, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    [packed] = json.loads(run.stdout)
    assert packed["name"] == "teahouse-client" and packed["version"] == package()["version"]
    files = {f["path"] for f in packed["files"]}
    expected = {f"{m}.js" for m in MODULES} | {f"{m}.d.ts" for m in MODULES} | {"package.json", "README.md"}
    assert files == expected


def test_the_declared_modules_export_what_the_modules_export():
    """Every name a module exports is declared in its .d.ts, and nothing more (read by Node)."""
    script = "const m = await import(process.argv[1]); console.log(JSON.stringify(Object.keys(m).sort()));"
    for module in MODULES:
        out = subprocess.run([NODE, "--input-type=module", "-e", script, str(JS / f"{module}.js")],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        exported = set(json.loads(out))
        declared = (JS / f"{module}.d.ts").read_text()
        names = set(re.findall(r"^export (?:declare )?(?:class|function|const) (\w+)", declared, re.M))
        assert names == exported, module


def tsc(*args: str | Path, cwd: Path = JS) -> subprocess.CompletedProcess:
    js_dev_dependencies()
    return subprocess.run([NODE, JS / "node_modules" / "typescript" / "bin" / "tsc", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_the_typed_example_type_checks_against_the_package():
    """tsconfig.json checks types-example.ts, which imports the package by its name: the
    declarations are found through package.json's `exports`, as an installed package's are."""
    assert "from \"teahouse-client\"" in (JS / "types-example.ts").read_text()
    run = tsc("--noEmit", "-p", "tsconfig.json")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_a_wrongly_typed_client_is_refused(tmp_path: Path):
    """The check can fail: a label (a string) used as a number, and a move without its command."""
    (tmp_path / "bad.ts").write_text(
        f'import {{ Connection }} from "{(JS / "teahouse.js").as_posix()}";\n'
        "async function f(conn: Connection): Promise<number> {\n"
        "  const moves = await conn.legalMoves(\"m\");\n"
        "  const n: number = moves.labels[0];\n"
        "  return conn.move(\"m\");\n"
        "}\n"
        "void f;\n")
    run = tsc("--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext",
              "--lib", "ES2022,DOM", tmp_path / "bad.ts", cwd=tmp_path)
    assert run.returncode != 0
    assert "TS2322" in run.stdout and "TS2554" in run.stdout, run.stdout[-2000:]


def test_every_method_of_the_sdks_classes_is_declared():
    """Each public method and getter of TeahouseClient, Connection and MatchView (teahouse.js)
    has its declaration in teahouse.d.ts, so a typed client sees the whole surface."""
    source = (JS / "teahouse.js").read_text()
    declared = (JS / "teahouse.d.ts").read_text()
    for cls in ("TeahouseClient", "Connection", "MatchView"):
        body = source.split(f"export class {cls} ", 1)[1].split("\n}\n", 1)[0]
        methods = set(re.findall(r"^  (?:async |get |static )?([a-zA-Z]\w*)\(", body, re.M)) - {"constructor"}
        decl = declared.split(f"export class {cls} ", 1)[1].split("\n}\n", 1)[0]
        names = set(re.findall(r"^  (?:static |readonly |get )?([a-zA-Z]\w*)[(<:?]", decl, re.M))
        assert len(methods) >= 4 and methods <= names, (cls, sorted(methods - names))
