"""verify_turn run the ways callers reach it, asserting they all agree.

verify_turn takes shortcuts when tables share TableSet objects: a set carried over untouched is
matched by identity, and the last valid play's ``after`` table is remembered (its tile counts and
that every set reads valid), because a replay passes each turn's ``after`` as the next turn's
``before`` and the service's set cache hands out one object per set. The hand-written and
property tests build fresh objects for every set, so :func:`verify_all_ways` also runs each turn
with equal sets shared, and then a pass from the remembered ``after``, and checks that every
answer matches the one computed from scratch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.rules import Rules
from engine.sets import TableSet, share_equal_sets
from engine.tiles import Tile
from engine.turns import TurnVerdict, verify_turn


def shared_tables(*tables: Iterable[TableSet]) -> list[tuple[TableSet, ...]]:
    """The tables with equal sets as one object, as a replay and the service's set cache give them."""
    return share_equal_sets(tables)


def fresh_table(table: Iterable[TableSet]) -> tuple[TableSet, ...]:
    """A copy of ``table`` where every set is a new object."""
    return tuple(TableSet(s.tiles, s.kind, s.id) for s in table)


def verify_all_ways(
    before: Sequence[TableSet],
    after: Sequence[TableSet],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    elapsed: float | None = None,
) -> TurnVerdict:
    """verify_turn on fresh sets, then on shared sets (the same answer), then, after a valid
    play, a pass from that play's ``after`` (the same answer as from a fresh copy of it)."""
    fresh = verify_turn(fresh_table(before), fresh_table(after), rack, opened, rules, elapsed)
    shared_before, shared_after = shared_tables(before, after)
    shared = verify_turn(shared_before, shared_after, rack, opened, rules, elapsed)
    assert shared == fresh, (shared, fresh)
    if shared.valid and shared.action == "play" and shared.rack_after:
        again = verify_turn(shared_after, shared_after, shared.rack_after, shared.opened_after, rules)
        from_scratch = verify_turn(
            fresh_table(shared_after), fresh_table(shared_after), shared.rack_after, shared.opened_after, rules
        )
        assert again == from_scratch, (again, from_scratch)
    return fresh
