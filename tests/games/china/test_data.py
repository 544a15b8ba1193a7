"""Spec 3: the map data file passes the integrity checks the spec asks implementers to run."""

from __future__ import annotations

import itertools

from service.games.china.data import (
    ALLIANCES,
    CARD_PROVINCES,
    MAP,
    PROVINCE_COLOUR,
    PROVINCE_SPACES,
    PROVINCES,
    ROAD_NEIGHBOURS,
    SIDES,
    SPACE_PROVINCE,
    road_links,
    sides_for,
)


def neighbours():
    return {frozenset((x, y)) for _, x, y in ALLIANCES}


def test_nine_provinces_with_the_confirmed_colours():
    colours = sorted(PROVINCE_COLOUR.values())
    assert len(PROVINCES) == 9
    assert colours == sorted(
        ["green", "green", "orange", "orange", "red", "red", "yellow", "yellow", "purple"]
    )
    assert (
        PROVINCE_COLOUR["chu"] == "purple"
        and PROVINCE_COLOUR["han"] == "green"
        and PROVINCE_COLOUR["wei"] == "red"
    )
    assert all(4 <= len(s) <= 8 for s in PROVINCE_SPACES.values())
    assert max(PROVINCES, key=lambda p: len(PROVINCE_SPACES[p])) == "chu"


def test_cards_name_the_provinces_of_their_colour():
    for colour, provinces in CARD_PROVINCES.items():
        assert sorted(provinces) == sorted(p for p in PROVINCES if PROVINCE_COLOUR[p] == colour)


def test_every_space_belongs_to_exactly_one_province():
    spaces = [s for p in PROVINCES for s in PROVINCE_SPACES[p]]
    assert len(spaces) == len(set(spaces)) == len(SPACE_PROVINCE) == 50


def test_fifteen_alliance_borders_between_distinct_pairs():
    assert [n for n, _, _ in ALLIANCES] == list(range(1, 16))
    assert len(neighbours()) == 15
    for _, x, y in ALLIANCES:
        assert x != y and PROVINCE_COLOUR[x] != PROVINCE_COLOUR[y]


def test_roads_cover_every_space_and_join_only_neighbours():
    assert SIDES == ["A", "B"]
    for side in SIDES:
        links = road_links(side)
        assert {s for link in links for s in link} == set(SPACE_PROVINCE)
        for a, b in links:
            pa, pb = SPACE_PROVINCE[a], SPACE_PROVINCE[b]
            assert pa == pb or frozenset((pa, pb)) in neighbours()
        assert all(1 <= len(n) <= 3 for n in ROAD_NEIGHBOURS[side].values())
        junctions = sorted(s for s, n in ROAD_NEIGHBOURS[side].items() if len(n) == 3)
        assert junctions == sorted(MAP["sides"][side]["junctions"])


def test_the_two_sides_differ_only_in_roads():
    a, b = (set(map(frozenset, road_links(s))) for s in SIDES)
    assert a != b
    assert not any(len(x) == 1 for x in itertools.chain(a, b))


def test_side_choice_by_player_count():
    assert sides_for(3) == ["A"] and sides_for(4) == ["A", "B"] and sides_for(5) == ["B"]
