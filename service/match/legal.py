"""A seated client's legal moves at the match's current seq, in pages (SPEC: `legal`).

A crowded board's list (thousands of moves, each labelled) is computed and encoded once per
commit and seat, not once per request; every commit starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol import messages
from service.games import Game
from service.match.committed import Committed
from service.match.narration import move_labels
from service.match.projection import Frame


class LegalPages:
    def __init__(self, match_id: str, game: Game, names: Callable[[], list[str]]) -> None:
        self.match_id, self.game, self.names = match_id, game, names
        self._at: Committed | None = None
        # (seat, page size) -> the answer at the latest position, one frame per page
        self._pages: dict[tuple[int, int], list[Frame]] = {}

    def on_commit(self, c: Committed) -> None:
        self._at = c
        self._pages.clear()

    def pages(self, seat: int, page_size: int) -> list[Frame]:
        """The `legal_moves` answers for `seat`: one frame per page of `page_size` moves (0: one
        page), at least one page (an empty list is one empty page)."""
        key = (seat, page_size)
        pages = self._pages.get(key)
        if pages is None:
            at = self._at
            assert at is not None  # (a runtime hands on the position it loaded before anyone asks)
            moves = self.game.legal_moves(at.state, seat)
            labels = move_labels(self.game, self.game.view(at.state, seat), seat, moves, self.names())
            size = page_size or max(len(moves), 1)
            count = max(1, -(-len(moves) // size))
            pages = [Frame(messages.legal_moves(self.match_id, at.seq, moves[i * size:(i + 1) * size],
                                                labels[i * size:(i + 1) * size], page=i, pages=count,
                                                total=len(moves)))
                     for i in range(count)]
            self._pages[key] = pages
        return pages
