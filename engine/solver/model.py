"""The model shared by the solver's modules: constants, public results, and the problem one
search solves (tile counts, blocks, weights) with the decisions it makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, NamedTuple

from engine.changes import Changes
from engine.tiles import COLORS, MAX_NUMBER, MIN_NUMBER, Tile

OBJECTIVES: tuple[str, ...] = ("tiles", "value")
"""What ``suggest`` maximises: rack tiles played, or their points."""

TIE_BREAKS: tuple[str, ...] = ("least_change", "any")
"""Which of the best moves ``suggest`` answers: the one disturbing the table least, or the
first found."""

NCOL = len(COLORS)
LAST = MAX_NUMBER
END = MAX_NUMBER + 1  # the number after the last: the terminal stage
GROUP_STAGE = NCOL  # stage index of "form the groups" after the colours of a number
MAX_GROUP = NCOL
MAX_RUN = MAX_NUMBER - MIN_NUMBER + 1
PRIMARY = 100_000  # weight of the primary objective in the lexicographic score
CHECK_EVERY = 255  # search calls between two clock readings and work-cap checks (a power of two minus one)
COLOUR_INDEX = {c: i for i, c in enumerate(COLORS)}
NO_JOKERS, SOME_JOKERS, ANY_JOKERS = 0, 1, 2  # tiers of colour moves by jokers spent
FAIL = -(10**15)  # score of "no solution"; far below any sum of real scores
PORTFOLIO_CALLS = 1_000  # work allowed to the first search of a problem (portfolio step 1)
GOAL_CALLS = 5_000  # work allowed to the search for a solution reaching the linear bound
CLOSING_CALLS = 5_000  # work allowed to the plain search after the bounds, before the integer programme
RELAXED_CALLS = 3_000  # work allowed to each search of the relaxed bound of suggest (search calls)


# --- public results ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArrangeResult:
    """Whether a multiset of tiles splits into valid sets, every tile used.

    ``arrangeable`` is None (and ``sets`` None) when the time budget ran out before the
    answer was known; ``sets`` is one arrangement when ``arrangeable`` is True.
    ``optimal_proven`` is True when the answer is exact.
    """

    arrangeable: bool | None
    sets: tuple[tuple[Tile, ...], ...] | None
    optimal_proven: bool
    budget_exhausted: bool


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A suggested move: the table after it, the rack tiles played and their value (a played
    joker is worth the best joker on the table after the move, each set read at its best:
    jokers are interchangeable). ``optimal_proven`` is True when no legal move scores
    more (see the package docstring for how each kind of position proves it). ``changes`` is the move's
    change list; ``least_change_proven`` is True when the move is proven optimal and no move
    scoring as much disturbs the table less (the ``least_change`` tie break)."""

    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    optimal_proven: bool
    budget_exhausted: bool
    changes: Changes | None = None  # the change list of the move (engine.changes)
    least_change_proven: bool = False  # proven optimal, and no move scoring as much disturbs less


class OutOfTime(Exception):
    """Raised inside a search when its time budget is spent."""


# --- the problem given to the search -------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunBlock:
    """A table run kept as a block: ``tiles`` ascending from ``start`` to ``end`` (jokers
    declared); ``original`` is how it is laid when nothing is added to it."""

    index: int
    colour: int
    start: int
    end: int
    tiles: tuple[Tile, ...]
    original: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class GroupBlock:
    """A table group kept whole: it may take tiles of the colours in ``allowed`` and jokers,
    up to four tiles in all."""

    index: int
    number: int
    size: int
    allowed: frozenset[int]
    tiles: tuple[Tile, ...]
    original: tuple[Tile, ...]


@dataclass(slots=True)
class Problem:
    """What one search solves.

    ``required[c][v]`` tiles of colour ``c`` and number ``v`` must be placed (table tiles, or
    every tile for ``arrange``); up to ``optional[c][v]`` more may be (rack tiles). Likewise
    ``jokers`` jokers are available of which ``jokers_required`` must be placed.
    ``meld_min`` > 0 asks that the placed tiles be worth at least that much (opening).

    ``table_jokers`` of the jokers are the table's (required, laid but never played). A played
    joker is worth the best joker after the move, so when joker points count
    (``joker_weight``) the lowest ``table_jokers`` jokers laid score no points, the others
    theirs: the jokers laid less the table's, at their best points (``unscored``).
    """

    required: list[list[int]]
    optional: list[list[int]]
    jokers: int
    jokers_required: int
    table_jokers: int = 0
    run_blocks: list[RunBlock] = field(default_factory=list)
    group_blocks: list[GroupBlock] = field(default_factory=list)
    meld_min: int = 0
    feasibility_only: bool = False
    uncounted: int = 0  # score of played tiles placed outside the search (joker replacements)
    tile_weight: int = PRIMARY
    value_weight: int = 1
    joker_value_weight: int | None = None  # weight of a joker's point; None: ``value_weight``
    # groups that must be laid: (number, colours) asks for a group of that number holding a
    # tile of one of the colours or a joker (never a number of a group block: that block is one)
    groups_needed: tuple[tuple[int, tuple[int, ...]], ...] = ()
    # tiles that must lie in runs: (colour, number, copies) asks for at least that many copies
    # of the tile in runs (a pinned run joker stays only in a run)
    runs_needed: tuple[tuple[int, int, int], ...] = ()
    # not for the search: the required tiles that stand for pinned table jokers, as (tile key,
    # whether its set was a run), which the move lays back as those jokers
    jokers_laid_as: tuple[tuple[str, bool], ...] = ()

    @property
    def joker_weight(self) -> int:
        return self.value_weight if self.joker_value_weight is None else self.joker_value_weight

    @property
    def unscored(self) -> int:
        """How many of the jokers laid score no points (the lowest): the table's, when joker
        points count."""
        return self.table_jokers if self.joker_weight else 0


def empty_counts() -> list[list[int]]:
    return [[0] * (END + 1) for _ in range(NCOL)]


class ColourMove(NamedTuple):
    """The decision for one colour at one number (see ``_colour_moves``), as ``Search.path``
    gives it (the search itself keeps its fields as a plain tuple, ``ColourMoveFields``)."""

    attach: tuple[tuple[str, int], ...]  # per block starting here: ("new", leading jokers) or ("join", class)
    used: int  # numbered tiles of (colour, number) placed
    extend3: int  # runs of ≥3 tiles (without a block) extended
    extend_block: int  # runs holding a block extended
    joker_extend: int  # of the extended runs, how many get a joker
    starts: tuple[int, ...]  # new runs, each with its number of leading jokers
    to_groups: int  # numbered tiles sent to the groups of this number


class GroupMove(NamedTuple):
    """The decision for the groups of one number, as ``Search.path`` gives it (the search
    keeps its fields as a plain tuple, ``GroupMoveFields``)."""

    absorb: tuple[tuple[tuple[int, ...], int], ...]  # per group block: colours added, jokers added
    jokers: int  # jokers in new groups
    groups: int  # number of new groups


DONE = GroupMove((), 0, 0)
"""Decision stored for terminal and hopeless stages: nothing follows."""

# The moves of one stage, as the search's caches hold them, are plain tuples, not NamedTuples:
# CPython's garbage collector stops tracking a plain tuple of untracked items (numbers, strings,
# plain tuples) but never a tuple subclass, and the caches hold hundreds of thousands of them.
# As NamedTuples, every full collection scanned them all: 150 ms after the three hard benches
# (265,000 objects), a pause that fell on whatever suggestion was running (bench/README.md,
# session 24). The fields, in order, are the NamedTuples' above and below.

ColourMoveFields = tuple[tuple[tuple[str, int], ...], int, int, int, int, tuple[int, ...], int]
"""A ``ColourMove``'s fields: attach, used, extend3, extend_block, joker_extend, starts,
to_groups."""
GroupMoveFields = tuple[tuple[tuple[tuple[int, ...], int], ...], int, int]
"""A ``GroupMove``'s fields: absorb, jokers, groups."""
USED: Final = 1  # ``ColourMoveFields``: numbered tiles of (colour, number) placed
NEW_GROUP_JOKERS: Final = 1  # ``GroupMoveFields``: jokers in new groups

Option = tuple[int, int, int, int, int, ColourMoveFields, int]
"""A colour move with its effect: (the colour's new run counts, packed as in ``State``; jokers
spent; tiles sent to the groups; score; the change of the extra counter, room or meld value;
the move; how many of its jokers score no points, ``Problem.unscored``: the lowest, already
left out of the score)."""

GroupOption = tuple[int, int, int, GroupMoveFields, int]
"""A group move with its effect: (jokers spent, score, change of the extra counter, the move,
jokers scoring no points; see ``Option``)."""


State = int
"""The runs in progress, every colour's four counts (runs of length 1, 2, ≥3, runs holding a
block) packed in one integer: colour c's in bits 32c to 32c+31, a byte per count (at most the
copies of a tile and the jokers: 7, in every tile supply; a search over a bigger multiset gives
each count the bits it needs, ``search._layout``). One integer hashes and compares faster than
a tuple of 16: the search's memo is looked up at every step."""
Key = tuple[int, int, State, tuple[int, ...], int, int, int]  # (v, c, runs, groups, jokers, extra, unscored)
