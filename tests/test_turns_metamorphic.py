"""Metamorphic properties of verify_turn (SPEC §4): the verdict never depends on how a turn is
written down. For each turn, the verdict (valid, codes, jokers freed, penalty, played tiles...)
is the same when

- the before and after sets are listed in any order,
- the tiles of a set whose order cannot matter (a group's, or any set without jokers unless
  the rules say ``strict_order``) are listed in any order,
- colours are renamed consistently (K↔B, …),
- numbers are mirrored (n ↔ 14 − n) and every set is written in reverse, for a player who has
  opened (a run's reading, §2, is then mirrored too: ascending in the order given becomes
  descending and back; only tile values, which decide an opening, change),
- the sets carry ids that name their successors (or any ids at all).

The turns come from generated legal games (every preset), their corruptions, and random joker
scrambles: tables with joker sets split, joined, trimmed, re-ended and raided for jokers, which
are as often illegal as legal.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.generate import corrupt_game, generate_game, walk_record
from engine.rules import PRESETS, Rules, resolve_rules
from engine.sets import TableSet, read_set
from engine.tiles import COLORS, JOKER, Tile, joker_as, numbered
from engine.turns import TurnVerdict, verify_turn

Tiles = list[Tile]
Table = list[Tiles]

RULES: list[Rules] = [
    *PRESETS.values(),
    resolve_rules({"group_joker_needs_both_colours": True}),
    resolve_rules({"freed_joker_use": "other_set"}),
    resolve_rules({"preset": "pressman-2009", "turn_time_limit": None}),
    resolve_rules({"preset": "strict-joker", "group_joker_needs_both_colours": True}),
    resolve_rules({"manipulate_on_opening_turn": True}),
]
PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the verdict, up to what may differ ----------------------------------------------------


def summary(v: TurnVerdict, rename: Callable[[Tile], Tile] = lambda t: t) -> tuple[Any, ...]:
    """Everything of a verdict that must not depend on how the turn was written (pointers and
    messages may: they name places in the request)."""
    penalty = None
    if not v.valid:
        kept = None if v.kept is None else Counter(tuple(sorted(rename(t).code for t in s.tiles)) for s in v.kept)
        penalty = (v.penalty_draw, v.restore_table, kept, Counter(rename(t).key for t in v.returned))
    return (
        v.valid,
        v.action,
        Counter(x.code for x in v.violations),
        v.jokers_freed,
        penalty,
        Counter(rename(t).key for t in v.played),
        Counter(rename(t).key for t in v.rack_after),
        v.opened_after,
        v.initial_meld_value,
    )


def verify(
    before: Sequence[TableSet], after: Sequence[TableSet], rack: Tiles, opened: bool, rules: Rules
) -> TurnVerdict:
    return verify_turn(tuple(before), tuple(after), rack, opened, rules, 200.0 if rules.turn_time_limit else None)


def sets(table: Table) -> list[TableSet]:
    return [TableSet(tuple(s)) for s in table]


def check_invariants(
    before: Table, after: Table, rack: Tiles, opened: bool, rules: Rules, rng: random.Random, rewrite: str
) -> None:
    """verify_turn as written, and rewritten as ``rewrite`` says: the summaries must agree."""
    expected = summary(verify(sets(before), sets(after), rack, opened, rules))
    if rewrite == "order":  # sets listed in another order (both tables, independently)
        for _ in range(3):
            b, a = list(before), list(after)
            rng.shuffle(b)
            rng.shuffle(a)
            assert summary(verify(sets(b), sets(a), rack, opened, rules)) == expected, (b, a)
    elif rewrite == "tiles":  # tiles listed in another order where no reading depends on it
        for _ in range(3):
            b = [_shuffled_where_free(s, rules, rng) for s in before]
            a = [_shuffled_where_free(s, rules, rng) for s in after]
            assert summary(verify(sets(b), sets(a), rack, opened, rules)) == expected, (b, a)
    elif rewrite == "numbers":  # numbers mirrored, every set reversed; judged as opened
        expected = summary(verify(sets(before), sets(after), rack, True, rules))
        v = verify(
            [TableSet(tuple(map(_mirrored, reversed(s)))) for s in before],
            [TableSet(tuple(map(_mirrored, reversed(s)))) for s in after],
            [_mirrored(t) for t in rack],
            True,
            rules,
        )
        assert summary(v, _mirrored) == expected, "numbers mirrored"
    elif rewrite == "colours":  # colours renamed consistently
        colours = list(COLORS)
        rng.shuffle(colours)
        mapping = dict(zip(COLORS, colours, strict=True))
        renamed = _renamer(mapping)
        v = verify(
            [TableSet(tuple(map(renamed, s))) for s in before],
            [TableSet(tuple(map(renamed, s))) for s in after],
            [renamed(t) for t in rack],
            opened,
            rules,
        )
        assert summary(v, _renamer({v: k for k, v in mapping.items()})) == expected, mapping
    else:  # ids naming successors (a before set sharing a tile, at random), then any ids
        before_sets = [TableSet(tuple(s), id=f"s{i}") for i, s in enumerate(before)]
        after_sets = []
        for s in after:
            mine = {t.key for t in s if t.color is not None}
            sources = [f"s{i}" for i, b in enumerate(before) if mine & {t.key for t in b if t.color is not None}]
            after_sets.append(TableSet(tuple(s), id=rng.choice(sources) if sources else None))
        assert summary(verify(before_sets, after_sets, rack, opened, rules)) == expected, "successor ids"
        any_ids = [TableSet(tuple(s), id=f"s{rng.randrange(len(before) + 1)}") for s in after]
        assert summary(verify(before_sets, any_ids, rack, opened, rules)) == expected, "any ids"


REWRITES = ("order", "tiles", "colours", "numbers", "ids")


def _shuffled_where_free(tiles: Tiles, rules: Rules, rng: random.Random) -> Tiles:
    """``tiles`` in a random order when no reading of the set depends on it (§2): a group
    (two numbered tiles or more, one number, no colour twice), or a set without jokers unless
    the rules say ``strict_order``; else as they are."""
    numbered_tiles = [t for t in tiles if t.color is not None]
    if any(t.color is None for t in tiles):
        free = len(numbered_tiles) >= 2 and len({t.number for t in numbered_tiles}) == 1
        free = free and len({t.color for t in numbered_tiles}) == len(numbered_tiles)
    else:
        free = len({t.number for t in numbered_tiles}) == 1 or not rules.strict_order
    out = list(tiles)
    if free:
        rng.shuffle(out)
    return out


def _mirrored(t: Tile) -> Tile:
    """``t`` with its number (or its declared tile's) mirrored: n ↔ 14 − n (an involution)."""
    if t.color is not None:
        return numbered(t.color, 14 - t.number)
    if t.declared is not None:
        return joker_as(numbered(t.declared.color, 14 - t.declared.number))  # type: ignore[arg-type]
    return t


def _renamer(mapping: dict[str, str]) -> Callable[[Tile], Tile]:
    def rename(t: Tile) -> Tile:
        if t.color is not None:
            return numbered(mapping[t.color], t.number)
        if t.declared is not None:
            return joker_as(numbered(mapping[t.declared.color], t.declared.number))  # type: ignore[index]
        return t

    return rename


# --- turns from generated games -----------------------------------------------------------

GAMES = [(name, 4 if name != "xp" else 5, seed) for name in PRESETS for seed in range(2)]


@functools.cache
def game_turns(preset: str, players: int, seed: int) -> list[tuple[Table, Table, Tiles, bool]]:
    """The table turns of a generated game and of a corrupted copy that move a joker set."""
    rules = PRESETS[preset]
    record = generate_game(seed, players, rules)
    out = []
    for doc in (record, corrupt_game(record, seed)[0]):
        for s in walk_record(json.loads(json.dumps(doc)), rules):
            if any(t.color is None for x in s.before for t in x) and s.before != s.after:
                out.append((s.before, s.after, s.rack, s.opened))
    return out


def test_generated_games_have_joker_turns() -> None:
    assert sum(len(game_turns(*g)) for g in GAMES) > 100


@pytest.mark.parametrize("rewrite", REWRITES)
@settings(max_examples=100, deadline=None)
@given(game=st.sampled_from(GAMES), data=st.data())
def test_generated_turns_do_not_depend_on_how_they_are_written(
    rewrite: str, game: tuple[str, int, int], data: st.DataObject
) -> None:
    before, after, rack, opened = data.draw(st.sampled_from(game_turns(*game)))
    rng = random.Random(data.draw(st.integers(0, 999)))
    check_invariants(before, after, rack, opened, PRESETS[game[0]], rng, rewrite)


# --- random joker scrambles ---------------------------------------------------------------


@st.composite
def joker_sets(draw: st.DrawFn) -> Tiles:
    """A valid set holding one or two jokers (runs in order, or in any order; groups)."""
    colour = draw(st.sampled_from(COLORS))
    if draw(st.booleans()):
        length = draw(st.integers(3, 9))
        start = draw(st.integers(1, 14 - length))
        tiles = [numbered(colour, n) for n in range(start, start + length)]
    else:
        number = draw(st.integers(1, 13))
        chosen = draw(st.permutations(COLORS))[: draw(st.integers(3, 4))]
        tiles = [numbered(c, number) for c in chosen]
    for _ in range(draw(st.integers(1, 2))):
        places = [i for i, t in enumerate(tiles) if t.color is not None]
        if len(places) > 1:
            tiles[draw(st.sampled_from(places))] = JOKER
    if draw(st.integers(0, 4)) == 0:
        tiles = draw(st.permutations(tiles))
    return tiles


def _stands_for(s: Tiles) -> list[tuple[int, Tile]]:
    """(place, a tile it may stand for) for each joker of ``s`` under its best reading."""
    reading = read_set(s)
    if not reading.valid or reading.best is None:
        return []
    places = [i for i, t in enumerate(s) if t.color is None]
    return [(i, options[0]) for i, options in zip(places, reading.best.joker_options, strict=False)]


@st.composite
def rejoined(draw: st.DrawFn) -> tuple[Table, Table, Tiles]:
    """A run with jokers lying in pieces on the table, joined again by the tiles of the gaps
    (``O2 O3 J`` + ``O6 J O8`` with O5 → ``O2 O3 J O5 O6 J O8``), sometimes with the joker at
    its end moved to the other end."""
    colour = draw(st.sampled_from(COLORS))
    sizes = draw(st.lists(st.integers(3, 4), min_size=2, max_size=3))
    length = sum(sizes) + len(sizes) - 1
    if length > 13:
        sizes, length = sizes[:2], sum(sizes[:2]) + 1
    start = draw(st.integers(1, 14 - length))
    run: Tiles = [numbered(colour, n) for n in range(start, start + length)]
    before, gaps, at = [], [], 0
    for size in sizes:
        piece = run[at : at + size]
        piece[draw(st.integers(0, size - 1))] = JOKER
        run[at : at + size] = piece
        before.append(piece)
        if at + size < length:
            gaps.append(run[at + size])
        at += size + 1
    after = [list(run)]
    if draw(st.booleans()) and after[0][-1].color is None:
        after[0].insert(0, after[0].pop())
    return before, after, gaps


@st.composite
def scrambles(draw: st.DrawFn) -> tuple[Table, Table, Tiles, bool, Rules]:
    """A table with joker sets and a random rearrangement of it: splits, joins, trims, jokers
    moved to the other end, replaced (by their tile from the rack) or simply taken away."""
    if draw(st.integers(0, 3)) == 0:
        before, after, played = draw(rejoined())
        return before, after, [*played, numbered("K", 1)], draw(st.booleans()), draw(st.sampled_from(RULES))
    before = draw(st.lists(joker_sets(), min_size=1, max_size=3))
    plain_colour = draw(st.sampled_from(COLORS))
    before.append([numbered(plain_colour, n) for n in (5, 6, 7)])
    after = [list(s) for s in before]
    played: Tiles = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["split", "join", "trim", "flip", "replace", "take", "extend"]))
        i = draw(st.integers(0, len(after) - 1))
        s = after[i]
        if op == "split" and len(s) >= 4:
            cut = draw(st.integers(1, len(s) - 1))
            after[i : i + 1] = [s[:cut], s[cut:]]
        elif op == "join" and len(after) > 1:
            k = (i + draw(st.integers(1, len(after) - 1))) % len(after)
            joined = after[i] + after[k]
            after = [x for n, x in enumerate(after) if n not in (i, k)] + [joined]
        elif op == "trim" and len(s) >= 4:
            tile = s.pop(draw(st.sampled_from([0, len(s) - 1])))
            after.append([tile, *draw(st.lists(st.sampled_from(ANY), min_size=2, max_size=2))])
            played += after[-1][1:]
        elif op == "flip" and s and s[-1].color is None:
            s.insert(0, s.pop())
        elif op in ("replace", "take"):
            jokers = _stands_for(s)
            if jokers:
                place, tile = draw(st.sampled_from(jokers))
                if op == "replace":
                    s[place] = tile
                    played.append(tile)
                else:
                    del s[place]
                pair = draw(st.lists(st.sampled_from(ANY), min_size=2, max_size=2))
                target = draw(st.integers(-1, len(after) - 1))
                if target < 0:
                    after.append([*pair, JOKER])
                    played += pair
                else:
                    after[target].append(JOKER)
        elif op == "extend" and s:
            extra = draw(st.sampled_from(ANY))
            s.append(extra)
            played.append(extra)
    after = [s for s in after if s]
    rack = [*played, numbered("K", 1)]
    return before, after, rack, draw(st.booleans()), draw(st.sampled_from(RULES))


ANY = [numbered(c, n) for c in COLORS for n in range(1, 14)]


@pytest.mark.parametrize("rewrite", REWRITES)
@PROFILE
@given(turn=scrambles(), seed=st.integers(0, 999))
def test_joker_scrambles_do_not_depend_on_how_they_are_written(
    rewrite: str, turn: tuple[Table, Table, Tiles, bool, Rules], seed: int
) -> None:
    before, after, rack, opened, rules = turn
    check_invariants(before, after, rack, opened, rules, random.Random(seed), rewrite)


@st.composite
def shared_copies(draw: st.DrawFn) -> tuple[Table, Table, Tiles, bool, Rules]:
    """A run joker replaced by its tile from the rack and freed into a copy of its set's
    numbered tiles lying in another set (``J R5 R6 R7`` + ``R5 R6 R7`` -> ``R4 R5 R6 R7`` +
    ``R5 R6 R7 J``): legal under ``other_set`` only with those copies read as the other set's."""
    colour = draw(st.sampled_from(COLORS))
    length = draw(st.integers(4, 6))
    start = draw(st.integers(1, 14 - length))
    run = [numbered(colour, n) for n in range(start, start + length)]
    place = draw(st.sampled_from([0, length - 1]))
    with_joker = [JOKER if i == place else t for i, t in enumerate(run)]
    copies = [t for i, t in enumerate(run) if i != place]
    host = [*copies, JOKER] if copies[-1].number < 13 else [JOKER, *copies]
    rules = draw(st.sampled_from([r for r in RULES if r.freed_joker_use == "other_set"]))
    return [with_joker, copies], [run, host], [run[place]], True, rules


def _misused(v: TurnVerdict) -> int:
    return sum(x.code == "FREED_JOKER_MISUSED" for x in v.violations)


@PROFILE
@given(turn=st.one_of(scrambles(), shared_copies()), data=st.data())
def test_a_table_tile_taken_away_never_misuses_a_freed_joker(
    turn: tuple[Table, Table, Tiles, bool, Rules], data: st.DataObject
) -> None:
    """SPEC §4, the most favourable assignment of equal copies: a table tile missing from the
    after table (``TABLE_TILE_REMOVED``) may be any before-set's copy, so taking one out of a
    set without jokers that stays valid never adds a ``FREED_JOKER_MISUSED`` (a tile no
    joker could stand for: one that might replace a joker may decide where it was replaced)."""
    before, after, rack, opened, rules = turn
    stood_for = {
        key
        for s in before
        for reading in read_set(s, rules=rules).readings
        for options in reading.joker_keys
        for key in options
    }
    on_before = Counter(t.key for s in before for t in s if t.color is not None)
    on_after = Counter(t.key for s in after for t in s if t.color is not None)
    spots = [
        (k, p)
        for k, s in enumerate(after)
        if all(t.color is not None for t in s) and len(s) > 3
        for p, t in enumerate(s)
        if t.key not in stood_for and on_after[t.key] <= on_before[t.key]
    ]
    if not spots:
        return
    k, p = data.draw(st.sampled_from(spots))
    fewer = [list(s) for s in after]
    del fewer[k][p]
    if not read_set(fewer[k], rules=rules).valid:
        return
    table = [TableSet(tuple(s)) for s in before]
    v = verify_turn(table, [TableSet(tuple(s)) for s in after], rack, opened, rules)
    w = verify_turn(table, [TableSet(tuple(s)) for s in fewer], rack, opened, rules)
    assert _misused(w) <= _misused(v), (before, fewer, rack)


@pytest.mark.parametrize("rules", [r for r in RULES if r.freed_joker_use == "other_set"], ids=str)
def test_a_freed_jokers_set_may_lose_the_tile_its_host_holds_a_copy_of(rules: Rules) -> None:
    """Every ``shared_copies`` turn (all colours, lengths, starts and joker places), with the
    run's far end taken off: only ``TABLE_TILE_REMOVED`` (that tile may be the run's own)."""
    checked = 0
    for colour in COLORS:
        for length in range(4, 7):
            for start in range(1, 15 - length):
                run = [numbered(colour, n) for n in range(start, start + length)]
                for place in (0, length - 1):
                    copies = [t for i, t in enumerate(run) if i != place]
                    host = [*copies, JOKER] if copies[-1].number < 13 else [JOKER, *copies]
                    before = [
                        TableSet(tuple(JOKER if i == place else t for i, t in enumerate(run))),
                        TableSet(tuple(copies)),
                    ]
                    kept = run[1:] if place == length - 1 else run[:-1]
                    rack = [run[place]]
                    whole = verify_turn(before, [TableSet(tuple(run)), TableSet(tuple(host))], rack, True, rules)
                    assert whole.valid, (run, place)
                    fewer = verify_turn(before, [TableSet(tuple(kept)), TableSet(tuple(host))], rack, True, rules)
                    assert [x.code for x in fewer.violations] == ["TABLE_TILE_REMOVED"], (run, place)
                    checked += 1
    assert checked == 4 * 2 * (10 + 9 + 8)


def test_scrambles_reach_both_verdicts_and_free_jokers() -> None:
    """The scramble strategy is worth its name: legal and illegal joker moves both occur."""
    seen: Counter[str] = Counter()

    # (derandomized: a count over random examples must not pass or fail by the draw)
    @settings(
        max_examples=400,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(scrambles())
    def collect(turn: tuple[Table, Table, Tiles, bool, Rules]) -> None:
        before, after, rack, opened, rules = turn
        v = verify(sets(before), sets(after), rack, opened, rules)
        seen["valid" if v.valid else "invalid"] += 1
        seen["freed"] += v.jokers_freed > 0
        for x in v.violations:
            seen[x.code] += 1

    collect()
    assert seen["valid"] >= 10 and seen["invalid"] >= 10 and seen["freed"] >= 10, seen
    assert seen["JOKER_NOT_REPLACED"] and seen["FREED_JOKER_MISUSED"] and seen["JOKER_SET_BROKEN"], seen
