"""Views that share what did not change.

`evolve` is copy-on-write (the conformance suite checks it never mutates its input), so a part
of the state that a commit did not touch is the very same object in the next state. A view
built through `Shared` returns, for the same state objects, the very same view object it built
last time: consecutive views then share every unchanged subtree, and the patch diff
(protocol/patch.py) settles those with `is` instead of comparing them. Every audience gets the
same object too, so a part built once serves every seat and the spectators.

Views are read-only from then on: the projection keeps them as documents, and a caller that
changed one would change the next views too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Shared:
    """`build(source)` remembered by the identity of `source` (for the last `size` sources:
    many matches interleave on one node). `build` must depend on its source only. The source
    is held, so its id is never reused while it is remembered. On the path of every view of
    every commit: kept as lean as a dict lookup."""

    __slots__ = ("_build", "_size", "_seen")

    def __init__(self, build: Callable[[Any], Any], size: int = 2048) -> None:
        self._build = build
        self._size = size
        self._seen: dict[int, tuple[Any, Any]] = {}

    def __call__(self, source: Any) -> Any:
        hit = self._seen.get(id(source))
        if hit is not None and hit[0] is source:
            return hit[1]
        out = self._build(source)
        _remember(self._seen, self._size, id(source), (source, out))
        return out


class SharedN:
    """`Shared` for a `build` of several sources, remembered by the identity of each."""

    __slots__ = ("_build", "_size", "_seen")

    def __init__(self, build: Callable[..., Any], size: int = 2048) -> None:
        self._build = build
        self._size = size
        self._seen: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}

    def __call__(self, *sources: Any) -> Any:
        key = tuple(map(id, sources))
        hit = self._seen.get(key)
        if hit is not None:
            for held, source in zip(hit[0], sources, strict=True):
                if held is not source:
                    break
            else:
                return hit[1]
        out = self._build(*sources)
        _remember(self._seen, self._size, key, (sources, out))
        return out


def _remember(seen: dict[Any, Any], size: int, key: Any, entry: Any) -> None:
    if len(seen) >= size:
        # the oldest quarter first: dicts keep insertion order
        for old in list(seen)[: size // 4]:
            seen.pop(old, None)  # another thread may have dropped it
    seen[key] = entry


# The copies every game's view makes (bigger: every game and audience of the node uses them).
copied_list = Shared(list, size=8192)
copied_dict = Shared(dict, size=8192)
sizes = Shared(lambda places: [len(place) for place in places], size=8192)
