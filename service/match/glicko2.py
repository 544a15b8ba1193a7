"""Glicko-2, as Mark Glickman describes it in "Example of the Glicko-2 system" (2013).

Pure arithmetic over plain numbers: a rating (r, RD, sigma) on the Glicko scale and the games of
one rating period against opponents' ratings as they stood before the period. Teahouse treats
each rated match as one rating period for its players (service/match/ratings.py folds them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

SCALE = 173.7178  # Glicko scale to Glicko-2 scale (step 2)
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5  # constrains the change of volatility; Glickman suggests 0.3 to 1.2
EPSILON = 0.000001  # convergence tolerance of the volatility iteration (step 5)


class Rating(NamedTuple):
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY


class Game(NamedTuple):
    """One game of the period: the opponent's rating before the period, and the score (1, 0.5, 0)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: Sequence[Game], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these games (steps 1 to 8)."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        # Step 6 alone: a period without games only widens the deviation.
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    # Step 3 (v) and step 4 (delta).
    v_inv = 0.0
    delta_sum = 0.0
    for game in games:
        mu_j = (game.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = game.opponent.rd / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (game.score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)
    # Steps 6 to 8.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(SCALE * mu_new + DEFAULT_RATING, SCALE * phi_new, sigma_new)
