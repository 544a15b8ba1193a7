"""Glicko-2 against the worked example of Glickman's "Example of the Glicko-2 system" (tau 0.5)."""

import pytest

from service.match.glicko2 import Game, Rating, update


def test_glickmans_worked_example():
    player = Rating(1500, 200, 0.06)
    games = [Game(Rating(1400, 30), 1), Game(Rating(1550, 100), 0), Game(Rating(1700, 300), 0)]
    after = update(player, games, tau=0.5)
    # The paper's figures: r' = 1464.06, RD' = 151.52, sigma' = 0.05999. It rounds each step
    # to four decimals (mu' = -0.2069 gives 1464.06; unrounded, 1464.05): hence the tolerances.
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    # and on the Glicko-2 scale (step 8 of the paper): mu' = -0.2069, phi' = 0.8722
    assert (after.rating - 1500) / 173.7178 == pytest.approx(-0.2069, abs=0.00005)
    assert after.rd / 173.7178 == pytest.approx(0.8722, abs=0.00005)


def test_a_period_without_games_only_widens_the_deviation():
    # Step 6 of the paper for a player who does not compete: phi' = sqrt(phi^2 + sigma^2).
    after = update(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.volatility == 0.06
    assert after.rd == pytest.approx(173.7178 * ((200 / 173.7178) ** 2 + 0.06 ** 2) ** 0.5)
