from __future__ import annotations

import pytest

from tests.games.gugong.table import Cards


@pytest.fixture
def cards(monkeypatch: pytest.MonkeyPatch) -> Cards:
    return Cards(monkeypatch)
