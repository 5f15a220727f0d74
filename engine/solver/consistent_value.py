"""A suggested move's value read consistently (SPEC §4: a turn is judged by one consistent
reading of its sets).

The solver scores a played joker at the best a joker on the table after the move stands for,
each set read at its best (``engine.solver.intact.played_value``). A set's best reading may be
one under which the move is illegal: beside a table ``K9 J O9``, the move laying ``K9 J J`` and
``O7 O8 O9`` (with O7 O8 and a joker played) is legal only with ``K9 J J`` read as 9s, the table
joker still standing for B9 or R9; as the run K9-K11 it frees that joker without its tile
(``JOKER_NOT_REPLACED``). Its played joker is then worth 9, not 11 (a replay-analysis audit,
session 54). ``consistent_value`` tries the readings of the after-sets holding jokers, best
first, each declared (a run's jokers as their tiles, a group's by its kind), and takes the
first under which ``verify_turn`` judges the move legal.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from engine.rules import Rules
from engine.sets import TableSet, read_set
from engine.tiles import JOKER_KEY, Tile
from engine.turns import verify_turn

MOST_COMBINATIONS = 64
"""Combinations of readings judged at most (the after-sets holding jokers: a tile set holds at
most 4 jokers, so at most 4 such sets, each of a few readings)."""


def consistent_value(
    table: Sequence[Sequence[Tile]],
    kinds: Sequence[str | None],
    after: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
) -> int | None:
    """The points the move laying ``table`` out as ``after`` plays, its played jokers worth the
    best they stand for under a reading of the after-sets that keeps the move legal; None when
    the move plays no joker, or no combination of readings (up to ``MOST_COMBINATIONS``) was
    judged legal."""
    played = Counter(t.key for s in after for t in s) - Counter(t.key for s in table for t in s)
    jokers = played[JOKER_KEY]
    if not jokers:
        return None
    numbered = sum(int(key[1:]) * n for key, n in played.items() if key != JOKER_KEY)
    holding = [i for i, s in enumerate(after) if any(t.is_joker for t in s)]
    choices = []
    for i in holding:
        readings = read_set(after[i], rules).readings
        if not readings:
            return None
        choices.append([(r, [max(t.number for t in options) for options in r.joker_options]) for r in readings])
    combinations = []
    for combination in itertools.product(*choices):
        points = sorted((p for _, ps in combination for p in ps), reverse=True)
        combinations.append((numbered + sum(points[:jokers]), combination))
    combinations.sort(key=lambda c: -c[0])  # (stable: the readings' own order between equals)
    before = [TableSet(tuple(s), kind) for s, kind in zip(table, kinds, strict=True)]
    for value, combination in combinations[:MOST_COMBINATIONS]:
        laid = [TableSet(tuple(s)) for s in after]
        for i, (reading, _) in zip(holding, combination, strict=True):
            laid[i] = TableSet(reading.tiles, reading.kind)
        if verify_turn(before, laid, rack, opened, rules).valid:
            return value
    return None
