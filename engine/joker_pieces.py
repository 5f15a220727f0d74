"""The pieces of the joker search (``engine.jokers.JokerSearch``): a moved joker under one reading of
its set (``Joker``), a joker staying on an after joker (``Stay``), a moved before-set with its
successors and readings (``Source``), a judged assignment (``Candidate``) and how assignments
rank (``rank``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine.rules import Rules
from engine.sets import TableSet
from engine.violations import Violation

CopiesAt = frozenset[tuple[tuple[int, str], int]]
"""Copies placed beforehand, as ((after-set, tile), copies): the played replacing copies, or a
new set's played tiles (``engine.joker_replacement``, ``engine.joker_stays``)."""


class Joker(NamedTuple):
    """A moved joker under one reading of its set: ``source`` is its place in ``moved``."""

    source: int
    options: frozenset[str]  # the tiles it may stand for in that reading
    declared: bool  # a single option (a run joker, a declared or last-colour group joker)


class Stay(NamedTuple):
    after: int
    position: int  # the joker's place among the after-set's jokers
    tile: str  # the tile both jokers stand for


class Source:
    """A moved before-set: its index, numbered tiles, successors and readings."""

    __slots__ = ("after", "id", "index", "numbered", "readings", "size", "successors")

    def __init__(self, index: int, s: TableSet, rules: Rules, after: Sequence[TableSet], candidates: Sequence[int]):
        self.index, self.after = index, after
        self.id = s.id  # (a violation about the set names it by its id, not its successor's)
        self.numbered = s.numbered_counts
        self.size = len(s.tiles)
        self.readings = s.read(rules).readings
        mine = self.numbered.keys()
        self.successors = tuple(k for k in candidates if not mine.isdisjoint(after[k].numbered_counts))

    def labelled(self, params: dict[str, object]) -> dict[str, object]:
        """``params`` of a violation about this set (pointing at its successor): its id, None
        when it has none, so that no other set's id labels it (SPEC §1)."""
        return {**params, "set_id": self.id}

    def home(self, missing: Iterable[str] = ()) -> str:
        """Where a violation about this set points: the successor sharing the most of its tiles;
        between equals, one not holding a tile of ``missing`` (the tiles a violation says are
        not there: two successors each holding one R10 of ``J R10 J``'s, ``R10 R11 R12`` and
        ``R8 R9 R10``, the R11 not replacing a joker is told at the second; a hand-made
        examiner, session 54), then one holding a joker, then the first by its tiles (sorted),
        so that the set named does not depend on the order the sets are listed in (SPEC §4)."""
        missing = frozenset(missing)
        best, best_key = None, None
        for k in self.successors:
            theirs = self.after[k].numbered_counts
            shared = sum(min(n, theirs.get(key, 0)) for key, n in self.numbered.items())
            holds_missing = any(theirs.get(key, 0) for key in missing)
            key = (-shared, holds_missing, not self.after[k].jokers, self.after[k].content)
            if best_key is None or key < best_key:
                best, best_key = k, key
        return f"/after/{best}" if best is not None else f"/before/{self.index}"


class Candidate(NamedTuple):
    key: tuple[int, int, int, tuple[int, ...], int]  # ``rank``, then the violations reported beside
    violations: tuple[Violation, ...]
    freed: int
    # under locked sets and a replace release, the replace rule's own violations, reported
    # beside (not ranked: the locked sets' codes already count each joker freed without its tile)
    unreplaced: tuple[Violation, ...] = ()


# Between equally bad assignments, the one whose violations come first here (a joker replaced,
# though from the table, reads better than one not replaced at all).
_CODE_ORDER = {
    code: n
    for n, code in enumerate(
        (
            "JOKER_REPLACED_FROM_TABLE",
            "FREED_JOKER_MISUSED",
            "JOKER_SET_BROKEN",
            "JOKER_NOT_REPLACED",
            "JOKER_RELEASED_BEFORE_OPENING",
        )
    )
}


def rank(
    violations: Sequence[Violation], freed: int, split_unlocked: int = 0, beside: int = 0
) -> tuple[int, int, int, tuple[int, ...]]:
    """Fewest violations (with ``beside`` more reported beside them), then fewest locked sets
    split though their exact tiles could free their jokers (``split_unlocked``: the reading
    freeing them reads better), then fewest jokers freed, then the codes in ``_CODE_ORDER``."""
    return len(violations) + beside, split_unlocked, freed, tuple(sorted(_CODE_ORDER[v.code] for v in violations))
