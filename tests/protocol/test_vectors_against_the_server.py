"""The committed vectors are what a real server sends today: tools/make_vectors.py records its
session again against a real `teahouse serve` process (its randomness and clock pinned, as when
the vectors were made) and every file, SPEC.md's generated blocks and asyncapi.yaml must come
out the same. A change of behaviour that was not recorded with `python -m tools.make_vectors`
fails here."""

from __future__ import annotations

import shutil

from tools.make_vectors import VECTORS, check


def test_every_committed_vector_is_what_the_server_sends_now():
    assert check() == [], "run `python -m tools.make_vectors` and review the diff"


def test_the_check_sees_a_vector_that_disagrees_with_the_server(tmp_path):
    committed = tmp_path / "vectors"
    shutil.copytree(VECTORS, committed)
    (committed / "welcome.json").write_bytes((committed / "welcome.json").read_bytes().replace(b'"protocol":1',
                                                                                              b'"protocol":3'))
    (committed / "error_stale.msgpack").unlink()
    (committed / "stray.json").write_bytes(b"{}")
    assert check(committed) == ["error_stale.msgpack", "stray.json", "welcome.json"]
