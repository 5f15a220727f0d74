"""Property tests of set reading and scoring (hypothesis)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules import PRESETS, SABRA, resolve_rules
from engine.scoring import PlayerRack, score_round
from engine.sets import GROUP, RUN, read_set
from engine.tiles import COLORS, JOKER, SUPPLIES, Tile, numbered

STRICT = resolve_rules({"strict_order": True})


@st.composite
def runs(draw: st.DrawFn) -> list[Tile]:
    length = draw(st.integers(3, 13))
    start = draw(st.integers(1, 14 - length))
    colour = draw(st.sampled_from(COLORS))
    return [numbered(colour, n) for n in range(start, start + length)]


@st.composite
def groups(draw: st.DrawFn) -> list[Tile]:
    number = draw(st.integers(1, 13))
    colours = draw(st.lists(st.sampled_from(COLORS), min_size=3, max_size=4, unique=True))
    return [numbered(c, number) for c in colours]


@st.composite
def with_jokers(draw: st.DrawFn, base: st.SearchStrategy[list[Tile]]) -> tuple[list[Tile], list[Tile]]:
    """A set and the same set with up to two tiles (never all) replaced by jokers."""
    tiles = draw(base)
    count = draw(st.integers(0, min(2, len(tiles) - 1)))
    positions = draw(st.lists(st.integers(0, len(tiles) - 1), min_size=count, max_size=count, unique=True))
    return tiles, [JOKER if i in positions else t for i, t in enumerate(tiles)]


@given(with_jokers(runs()))
def test_runs_with_jokers_are_worth_their_tiles(pair: tuple[list[Tile], list[Tile]]) -> None:
    tiles, laid = pair
    for rules in (SABRA, STRICT):
        result = read_set(laid, rules)
        assert result.valid, (laid, result.code)
        # laid in order, each joker reads as the tile it replaced (a group reading may be worth more)
        assert [r.value for r in result.readings if r.kind == RUN] == [sum(t.number for t in tiles)]
        assert result.value is not None and result.value >= sum(t.number for t in tiles)


@given(with_jokers(runs()))
def test_run_in_order_reads_exactly_its_tiles(pair: tuple[list[Tile], list[Tile]]) -> None:
    tiles, laid = pair
    runs_read = [r for r in read_set(laid).readings if r.kind == RUN]
    assert [r.tiles for r in runs_read if [t.declared or t for t in r.tiles] == tiles]


@given(with_jokers(groups()))
def test_groups_with_jokers_are_worth_their_tiles(pair: tuple[list[Tile], list[Tile]]) -> None:
    tiles, laid = pair
    result = read_set(laid)
    assert result.valid
    group = [r for r in result.readings if r.kind == GROUP]
    assert group and group[0].value == sum(t.number for t in tiles)
    assert read_set(list(reversed(laid)), STRICT).valid


@given(st.one_of(with_jokers(runs()), with_jokers(groups())), st.randoms())
def test_shuffling_keeps_a_set_valid_unless_strict(pair: tuple[list[Tile], list[Tile]], rnd) -> None:  # type: ignore[no-untyped-def]
    _, laid = pair
    shuffled = list(laid)
    rnd.shuffle(shuffled)
    assert read_set(shuffled).valid


tiles_strategy = st.one_of(
    st.builds(numbered, st.sampled_from(COLORS), st.integers(1, 13)),
    st.just(JOKER),
    st.builds(lambda c, n: Tile(None, 0, numbered(c, n)), st.sampled_from(COLORS), st.integers(1, 13)),
)


@settings(max_examples=400)
@given(st.lists(tiles_strategy, max_size=15), st.sampled_from([None, RUN, GROUP]), st.booleans())
def test_valid_xor_code(tiles: list[Tile], kind: str | None, strict: bool) -> None:
    result = read_set(tiles, STRICT if strict else SABRA, kind)
    assert result.valid == (result.code is None)
    assert result.valid == bool(result.readings)
    for reading in result.readings:
        assert len(reading.tiles) == len(tiles)
        assert kind is None or reading.kind == kind
        jokers = [t for t in reading.tiles if t.color is None]
        assert len(reading.joker_options) == len(jokers)
        if reading.kind == RUN:
            numbers = sorted((t.declared or t).number for t in reading.tiles)
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
            assert reading.value == sum(numbers)
    if result.valid:
        assert result.value == max(r.value for r in result.readings)


@st.composite
def dealt_hands(draw: st.DrawFn) -> list[list[Tile]]:
    """2-4 racks of up to 14 tiles dealt from one shuffled classic set (racks beyond the tile
    supply are an input error, not a round)."""
    tiles = draw(st.permutations(SUPPLIES["classic"].all_tiles()))
    sizes = draw(st.lists(st.integers(0, 14), min_size=2, max_size=4))
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [list(tiles[start : start + size]) for start, size in zip(starts, sizes, strict=True)]


@given(dealt_hands(), st.sampled_from(["subtract_lowest", "plain"]), st.booleans())
def test_zero_sum_rounds_sum_to_zero(hands: list[list[Tile]], mode: str, someone_out: bool) -> None:
    if someone_out:
        hands[0] = []
    players = [PlayerRack(f"P{i}", tuple(h)) for i, h in enumerate(hands)]
    if sum(1 for h in hands if not h) > 1:
        return
    result = score_round(players, resolve_rules({"pool_exhausted_scoring": mode}))
    assert sum((s.score for s in result.scores), Fraction(0)) == 0
    penalty = score_round(players, PRESETS["komoni"])
    # penalty_only, however the round ended: winners 0, everyone else their own rack value
    assert [s.score for s in penalty.scores] == [
        0 if s.name in penalty.winners else s.rack_value for s in penalty.scores
    ]
