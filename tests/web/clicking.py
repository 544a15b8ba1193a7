"""Playing a match in the browser by pointing at the board, as a person does, steered by a policy.

A seat's page marks what may be picked next (`.pickable` on the board, buttons in the picker's
choice bar, both with `data-pick`), and Confirm sends the move once a whole move is picked. The
helpers here only click: they never send a command over HTTP or the WebSocket. Unlike
conftest.make_one_move (a random walk with preferred tokens), a `policy` sees every token on
offer and decides, so a game's test can steer its match (conquer when a tile is offered, answer
a meaning question right or wrong on purpose) and keep it short.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable

from tests.support.server import ROOT
from tests.web.conftest import DESKTOP, PHONE, TIMEOUT_MS, moves_sent, no_horizontal_scroll, shot

# What a page offers right now: the picked tokens, the tokens that may come next (drawn on the
# board or as choice buttons), whether Confirm would send a whole move.
OFFER_JS = """() => {
  const picker = document.querySelector('#picker');
  if (!picker) return null;
  const next = [...document.querySelectorAll('#board-root .pickable[data-pick], #choices [data-pick]')]
    .filter((el) => !el.disabled).map((el) => el.getAttribute('data-pick'));
  const confirm = document.querySelector('#confirm-move');
  return { next: [...new Set(next)], confirm: !!confirm && !confirm.disabled,
           picked: document.querySelector('#picked')?.textContent ?? '',
           seq: Number(document.querySelector('#seq').textContent.split(' ').pop()) };
}"""


def offer(page) -> dict | None:
    return page.evaluate(OFFER_JS)


def pick(page, token: str) -> None:
    """Point at the thing carrying `token`: on the board if it is drawn there, else its button."""
    target = page.locator(f'#board-root .pickable[data-pick="{token}"], #choices [data-pick="{token}"]').first
    target.click()  # scrolls it into view; a redraw in between (presence, a late patch) is retried


Policy = Callable[[int, dict, list[str]], str]


def play_one_move(page, seat: int, policy: Policy, steps_max: int = 30) -> list[str]:
    """Build one whole move on `page` by pointing, then Confirm unless it went by itself.
    `policy(seat, offer, picked)` returns the next token or "confirm". Returns the tokens picked."""
    picked: list[str] = []
    sent = moves_sent(page)
    for _ in range(steps_max):
        if moves_sent(page) > sent:
            return picked  # the picks could mean one move only: it went without Confirm
        now = offer(page)
        assert now is not None, "the picker went away in the middle of a move"
        choice = policy(seat, now, picked)
        if choice == "confirm":
            assert now["confirm"], f"the policy confirmed an incomplete move {picked}"
            page.click("#confirm-move")
            return picked
        assert choice in now["next"], f"{choice} is not offered: {now['next']}"
        pick(page, choice)  # the picker redraws in the click's own handler: the next offer is there
        picked.append(choice)
    raise AssertionError(f"no whole move after {steps_max} picks: {picked}")


def acting(seats: dict, seq: int, timeout_ms: int = TIMEOUT_MS) -> int:
    """The seat whose page, at `seq`, offers a move (the picker bar is there)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        for seat, page in seats.items():
            o = offer(page)
            if o is not None and o["seq"] == seq and o["next"]:
                return seat
        time.sleep(0.03)
    raise AssertionError(f"no page offers a move at seq {seq}")


def tab_reaches_a_pickable(page, presses: int = 400) -> str:
    """Walk the page with Tab until the focus is on something to pick; returns its token."""
    page.evaluate("() => document.activeElement?.blur()")
    for _ in range(presses):
        page.keyboard.press("Tab")
        token = page.evaluate("() => document.activeElement?.classList.contains('pickable') ? document.activeElement.getAttribute('data-pick') : null")
        if token:
            return token
    raise AssertionError("Tab never reaches a board control")


def desktop_and_phone(page, name: str) -> None:
    """Screenshots `<name>-desktop` and `<name>-phone`; at 390 px nothing may scroll sideways."""
    shot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    assert no_horizontal_scroll(page), f"{name}: the page scrolls sideways on a phone"
    shot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)


# -- paths, without a browser -------------------------------------------------------------------

NODE_PATHS = """
const [board, file] = process.argv.slice(1);
const { readFileSync } = await import('node:fs');
const mod = (await import(board)).default;
const cases = JSON.parse(readFileSync(file, 'utf8'));
mod.setReference(cases.reference);
const out = cases.states.map(({ view, moves }) => moves.map((m) => mod.path(m, { view, picked: [], next: new Set() })));
console.log(JSON.stringify(out));
"""


def board_paths(game: str, reference: dict, states: list[tuple[dict, list[dict]]], tmp) -> list[list[list[str]]]:
    """The board module's path for every legal move of every (seat's view, legal moves) state,
    computed by the module itself in Node (the same ES module the page loads)."""
    cases = tmp / f"{game}-paths.json"
    cases.write_text(json.dumps({"reference": reference, "states": [{"view": v, "moves": m} for v, m in states]}))
    board = (ROOT / "clients" / "web" / "boards" / f"{game}.js").as_uri()
    run = subprocess.run([shutil.which("node") or "/usr/bin/node", "--experimental-detect-module", "--no-warnings",
                          "--input-type=module", "-e", NODE_PATHS, board, str(cases)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def sample_states(game, players: int, seed: str, every: int = 1, limit: int = 200) -> list[tuple[dict, list[dict]]]:
    """(view, legal moves) of each seat to act, every `every` commits of a random match."""
    from service.games.playout import playout

    out = []
    for step in playout(game, players, seed):
        status = game.status(step.after)
        if status["finished"] or len(out) >= limit:
            break
        if step.seq % every == 0:
            out += [(game.view(step.after, seat), game.legal_moves(step.after, seat)) for seat in status["to_act"]]
    return out


def assert_one_path_each(states: list[tuple[dict, list[dict]]], paths: list[list[list[str]]]) -> int:
    """Every legal move has a path of non-empty tokens of the board's own (never the generic
    JSON fallback) and no two legal moves share one, so each can be pointed at. Returns the number
    of moves checked."""
    checked = 0
    for (_, moves), ps in zip(states, paths, strict=True):
        seen: dict[tuple[str, ...], dict] = {}
        for move, path in zip(moves, ps, strict=True):
            assert path and all(isinstance(t, str) and t and not t.startswith("move:") for t in path), (move, path)
            key = tuple(path)
            assert key not in seen, f"{move} and {seen[key]} share the path {path}"
            seen[key] = move
            checked += 1
    return checked
