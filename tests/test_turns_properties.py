"""Property tests of verify_turn (SPEC §4): turns built legal by construction verify valid,
and each single corruption of such a turn is invalid with the matching code."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.meld_value import best_meld_value
from engine.rules import PRESETS, Rules, resolve_rules
from engine.sets import RUN, TableSet, read_set
from engine.tiles import COLORS, JOKER, Tile, numbered
from engine.turns import TurnVerdict
from tests.turn_checks import verify_all_ways

Tiles = list[Tile]

RULES: list[Rules] = [
    *PRESETS.values(),
    resolve_rules({"group_joker_needs_both_colours": True}),
    resolve_rules({"manipulate_on_opening_turn": True}),
    resolve_rules({"strict_order": True}),
]
REPLACE_RULES = [r for r in RULES if r.joker_release == "replace" and not r.joker_sets_locked]
KINDS = ("new_set", "extend", "split", "take", "joker")
PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Turn:
    """A legal turn by an opened player: the move's kind and the tiles it played."""

    kind: str
    before: list[Tiles]
    after: list[Tiles]
    rack: Tiles
    played: Tiles
    rules: Rules
    joker_set: int | None = None  # index in ``after`` of the set whose joker was replaced


def verify(
    before: Sequence[Tiles], after: Sequence[Tiles], rack: Tiles, rules: Rules, opened: bool = True
) -> TurnVerdict:
    return verify_all_ways(
        [TableSet(tuple(s)) for s in before], [TableSet(tuple(s)) for s in after], rack, opened, rules
    )


def codes(v: TurnVerdict) -> set[str]:
    return {x.code for x in v.violations}


def joker_stands_again(turn: Turn) -> bool:
    """Whether a joker in some after-run may stand for a tile a before-run's joker may have
    stood for: then that joker stayed (SPEC §4: joining and splitting runs keeps it), e.g.
    ``J K4 K5`` -> ``K3 K4 K5`` + ``K1 K2 J``, and the turn frees no joker. Only run readings of
    the before-set count: a group joker stays only in an after-group (SPEC §4), so ``K5 J O5 B5``
    -> ``K5 R5 O5 B5`` + ``R3 R4 J`` frees it although the run's joker stands for R5."""

    def options(table: Sequence[Tiles], kind: str | None) -> set[str]:
        return {
            key
            for tiles in table
            if any(t.is_joker for t in tiles)
            for reading in read_set(tiles, turn.rules).readings
            if kind is None or reading.kind == kind
            for joker in reading.joker_keys
            for key in joker
        }

    return bool(options(turn.before, RUN) & options(turn.after, RUN))


def keys(tiles: Sequence[Tile]) -> Counter[str]:
    return Counter(t.key for t in tiles)


def fits_supply(before: Sequence[Tiles], rack: Tiles, rules: Rules) -> bool:
    counts = keys([t for s in before for t in s] + rack)
    return all(n <= rules.supply.limit(k) for k, n in counts.items())


# --- building blocks --------------------------------------------------------------------

ANY_TILE = st.builds(numbered, st.sampled_from(COLORS), st.integers(1, 13))


@st.composite
def runs(draw: st.DrawFn, min_len: int = 3, max_len: int = 6) -> Tiles:
    length = draw(st.integers(min_len, max_len))
    start = draw(st.integers(1, 14 - length))
    colour = draw(st.sampled_from(COLORS))
    return [numbered(colour, n) for n in range(start, start + length)]


@st.composite
def groups(draw: st.DrawFn, size: int | None = None) -> Tiles:
    """A group of ``size`` tiles (3 or 4 when not given); size 2 gives a pair for a joker."""
    number = draw(st.integers(1, 13))
    colours = draw(st.permutations(COLORS))[: size or draw(st.integers(3, 4))]
    return [numbered(c, number) for c in colours]


@st.composite
def with_joker(draw: st.DrawFn, tiles: Tiles) -> Tiles:
    """The set with one of its tiles (not all numbered ones) replaced by a joker."""
    i = draw(st.integers(0, len(tiles) - 1))
    return [*tiles[:i], JOKER, *tiles[i + 1 :]]


@st.composite
def tables(draw: st.DrawFn, *required: Tiles) -> list[Tiles]:
    """``required`` sets plus up to three random valid sets, in a random order."""
    extra = draw(st.lists(st.one_of(runs(), groups()), max_size=3))
    return list(draw(st.permutations([*required, *extra])))


def _assemble(
    draw: st.DrawFn,
    kind: str,
    before: list[Tiles],
    after: list[Tiles],
    played: Tiles,
    rules: Rules,
    joker_set: int | None = None,
) -> Turn:
    extras = draw(st.lists(ANY_TILE, max_size=4))
    rack = [*played, *extras]
    assume(fits_supply(before, rack, rules) and fits_supply(after, [], rules))
    return Turn(kind, before, after, rack, played, rules, joker_set)


def _swap(table: list[Tiles], old: Tiles, *new: Tiles) -> list[Tiles]:
    i = table.index(old)
    return [*table[:i], *new, *table[i + 1 :]]


# --- legal turns by construction ----------------------------------------------------


@st.composite
def new_set_turns(draw: st.DrawFn) -> Turn:
    rules = draw(st.sampled_from(RULES))
    new = draw(st.one_of(runs(), groups()))
    if draw(st.booleans()):
        new = draw(with_joker(new))
    before = draw(tables())
    return _assemble(draw, "new_set", before, [*before, new], new, rules)


@st.composite
def extend_turns(draw: st.DrawFn) -> Turn:
    rules = draw(st.sampled_from(RULES))
    base = draw(st.one_of(runs(max_len=12), groups(3)))
    before = draw(tables(base))
    if base[0].number == base[1].number:  # a group of three: add the missing colour
        tile = next(numbered(c, base[0].number) for c in COLORS if numbered(c, base[0].number) not in base)
        grown = [*base, tile]
    else:
        colour, first, last = base[0].color or "", base[0].number, base[-1].number
        at_end = draw(st.booleans()) if first > 1 and last < 13 else last < 13
        tile = numbered(colour, last + 1 if at_end else first - 1)
        grown = [*base, tile] if at_end else [tile, *base]
    return _assemble(draw, "extend", before, _swap(before, base, grown), [tile], rules)


@st.composite
def split_turns(draw: st.DrawFn) -> Turn:
    rules = draw(st.sampled_from(RULES))
    base = draw(runs(5, 13))
    before = draw(tables(base))
    cut = draw(st.integers(2, len(base) - 3))  # the played tile duplicates base[cut]
    tile = base[cut]
    after = _swap(before, base, base[: cut + 1], [tile, *base[cut + 1 :]])
    return _assemble(draw, "split", before, after, [tile], rules)


@st.composite
def take_turns(draw: st.DrawFn) -> Turn:
    """Take the fourth tile of a group (or an end tile of a long run) into a new run or
    group with two rack tiles."""
    rules = draw(st.sampled_from(RULES))
    base = draw(st.one_of(groups(4), runs(4, 8)))
    before = draw(tables(base))
    is_group = base[0].number == base[1].number
    j = draw(st.sampled_from(range(4) if is_group else [0, len(base) - 1]))
    taken = base[j]
    assert taken.color is not None
    if is_group or draw(st.booleans()):
        n = taken.number
        partners = [numbered(taken.color, k) for k in ((n + 1, n + 2) if n <= 11 else (n - 2, n - 1))]
        new = sorted([taken, *partners], key=lambda t: t.number)
    else:
        others = [c for c in COLORS if c != taken.color]
        new = [taken, *(numbered(c, taken.number) for c in others[:2])]
    rest = base[:j] + base[j + 1 :]
    after = _swap(before, base, rest, new)
    played = [t for t in new if t != taken]
    return _assemble(draw, "take", before, after, played, rules)


@st.composite
def joker_turns(draw: st.DrawFn, rules_from: Sequence[Rules] = RULES) -> Turn:
    """Replace a table joker (in a run, or a group of four) by the tile it stands for and
    reuse it in a new set with two rack tiles."""
    rules = draw(st.sampled_from(rules_from))
    full = draw(st.one_of(runs(3, 8), groups(4)))
    i = draw(st.integers(0, len(full) - 1))
    joker_set = [*full[:i], JOKER, *full[i + 1 :]]
    pair = draw(st.one_of(groups(2), runs(2, 2)))
    reuse = [*pair, JOKER] if pair[-1].number < 13 else [JOKER, *pair]
    assume(not set(pair) & set(full))  # else the reuse set could read as the joker set, untouched
    before = draw(tables(joker_set))
    after = [*_swap(before, joker_set, full), reuse]
    return _assemble(draw, "joker", before, after, [full[i], *pair], rules, after.index(full))


LEGAL = {
    "new_set": new_set_turns(),
    "extend": extend_turns(),
    "split": split_turns(),
    "take": take_turns(),
    "joker": joker_turns(),
}
legal_turns = st.one_of(*LEGAL.values())


# --- properties -----------------------------------------------------------------------


@PROFILE
@given(legal_turns)
def test_legal_turn_verifies(turn: Turn) -> None:
    v = verify(turn.before, turn.after, turn.rack, turn.rules)
    assert v.valid, [x.to_json() for x in v.violations]
    assert v.action == "play" and v.opened_after and v.initial_meld_value is None
    assert keys(v.played) == keys(turn.played)
    assert keys(v.rack_after) == keys(turn.rack) - keys(turn.played)
    assert v.rack_empty == (len(turn.rack) == len(turn.played))
    # (a replaced joker laid again in a run standing for the same tile stayed: SPEC §4)
    assert v.jokers_freed == (1 if turn.kind == "joker" and not joker_stands_again(turn) else 0)
    assert v.penalty_draw == 0


@PROFILE
@given(legal_turns)
def test_unchanged_table_is_a_valid_draw(turn: Turn) -> None:
    shuffled = [list(reversed(s)) for s in reversed(turn.before)]
    v = verify(turn.before, shuffled, turn.rack, turn.rules)
    assert v.valid and v.action == "draw" and v.played == ()
    assert keys(v.rack_after) == keys(turn.rack)


@PROFILE
@given(legal_turns, st.data())
def test_dropping_a_table_tile(turn: Turn, data: st.DataObject) -> None:
    played = keys(turn.played)
    spots = [(i, j) for i, s in enumerate(turn.after) for j, t in enumerate(s) if not played[t.key]]
    assume(spots)
    i, j = data.draw(st.sampled_from(spots))
    after = [s[:j] + s[j + 1 :] if k == i else s for k, s in enumerate(turn.after)]
    v = verify(turn.before, after, turn.rack, turn.rules)
    assert "TABLE_TILE_REMOVED" in codes(v)
    assert not v.valid and v.penalty_draw == turn.rules.failed_turn_penalty


@PROFILE
@given(legal_turns, st.data())
def test_adding_a_tile_not_in_the_rack(turn: Turn, data: st.DataObject) -> None:
    foreign = data.draw(st.one_of(ANY_TILE, st.just(JOKER)).filter(lambda t: t not in turn.rack))
    i = data.draw(st.integers(0, len(turn.after)))
    after = [[*s, foreign] if k == i else s for k, s in enumerate(turn.after)]
    if i == len(turn.after):
        after.append([foreign])
    v = verify(turn.before, after, turn.rack, turn.rules)
    assert "TILE_NOT_IN_RACK" in codes(v)
    assert not v.valid and v.rack_after == tuple(turn.rack)


@PROFILE
@given(legal_turns, st.data())
def test_breaking_a_set(turn: Turn, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(turn.after) - 1))
    n = len(turn.after[i])
    cut = data.draw(st.sampled_from([1, 2, n - 2, n - 1]).filter(lambda c: 0 < c < n))  # one piece too short
    after = [*turn.after[:i], turn.after[i][:cut], turn.after[i][cut:], *turn.after[i + 1 :]]
    v = verify(turn.before, after, turn.rack, turn.rules)
    assert "INVALID_SET" in codes(v)
    short = {f"/after/{k}" for k, s in enumerate(after) if len(s) < 3}
    assert short <= {x.at for x in v.violations if x.code == "INVALID_SET" and x.set_code == "SET_TOO_SHORT"}


@PROFILE
@given(new_set_turns())
def test_opening_reaches_the_minimum_or_not(turn: Turn) -> None:
    new = turn.after[-1]
    value = TableSet(tuple(new)).read(turn.rules).value or 0
    if turn.rules.manipulate_on_opening_turn:  # the most the played tiles could be worth (SPEC §4)
        value = best_meld_value(keys(turn.played))
    v = verify(turn.before, turn.after, turn.rack, turn.rules, opened=False)
    if value >= turn.rules.initial_meld_min:
        assert v.valid and v.opened_after and v.initial_meld_value == value
    else:
        assert codes(v) == {"INITIAL_MELD_TOO_LOW"}
        assert not v.opened_after and v.initial_meld_value is None


@PROFILE
@given(joker_turns(REPLACE_RULES))
def test_joker_freed_without_its_tile(turn: Turn) -> None:
    assert turn.joker_set is not None
    full = turn.after[turn.joker_set]
    replacement = turn.played[0]
    others = [t for k, s in enumerate(turn.after) if k != turn.joker_set for t in s]
    assume(not set(full) & set(others))  # else another set could read as the joker's successor
    assume(not joker_stands_again(turn))
    after = [s for s in turn.after]
    after[turn.joker_set] = [t for t in full if t != replacement]
    v = verify(turn.before, after, turn.rack, turn.rules)
    assert "JOKER_NOT_REPLACED" in codes(v)
    assert "TABLE_TILE_REMOVED" not in codes(v) and "TILE_NOT_IN_RACK" not in codes(v)


@PROFILE
@given(joker_turns(), st.booleans())
def test_joker_released_before_opening(turn: Turn, manipulate: bool) -> None:
    assume(not joker_stands_again(turn))
    rules = (
        resolve_rules({"preset": turn.rules.preset, "manipulate_on_opening_turn": True}) if manipulate else turn.rules
    )
    v = verify(turn.before, turn.after, turn.rack, rules, opened=False)
    assert not v.valid and not v.opened_after
    expected = "JOKER_RELEASED_BEFORE_OPENING" if rules.manipulate_on_opening_turn else "MANIPULATION_BEFORE_OPENING"
    assert expected in codes(v)


# --- an opening's pairing of table sets with after sets of their tiles -----------------------

_ENTRY = st.tuples(st.integers(0, 1), st.frozensets(st.integers(1, 3), min_size=1, max_size=2))


def _best_pairing(before: list[Any], after: list[Any], worth: list[int]) -> tuple[int, int]:
    """(pairs, worth of the after entries left) of the best matching, by trying every one."""
    best = (0, sum(worth))

    def pair(i: int, used: frozenset[int]) -> None:
        nonlocal best
        if i == len(before):
            best = max(best, (len(used), sum(w for k, w in enumerate(worth) if k not in used)))
            return
        pair(i + 1, used)
        for k, entry in enumerate(after):
            if k not in used and entry[0] == before[i][0] and entry[1] & before[i][1]:
                pair(i + 1, used | {k})

    pair(0, frozenset())
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(_ENTRY, max_size=5), st.lists(_ENTRY, max_size=6), st.data())
def test_an_openings_pairing_is_the_best_matching(before: list[Any], after: list[Any], data: st.DataObject) -> None:
    """``_matched_pairs`` pairs as many table sets as any matching can, leaving the after sets
    worth the most (alike entries are worth alike), against trying every matching."""
    from engine.turns import _matched_pairs

    kind_worth = {entry: data.draw(st.integers(0, 4)) for entry in after}
    worth = [kind_worth[entry] for entry in after]
    left = _matched_pairs(before, after, worth)
    assert left == sorted(set(left))
    assert (len(after) - len(left), sum(worth[k] for k in left)) == _best_pairing(before, after, worth)
