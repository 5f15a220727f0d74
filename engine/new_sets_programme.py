"""The new-set conditions of ``new_set_with_two_rack_tiles`` for all the sets hosting freed
jokers at once (``engine.joker_use._new_sets_together``), as an integer programme solved by
HiGHS: the exact answer where that function's search over every way of taking copies runs out
of its steps (hosts of a dozen tiles with three places each: 3^12 ways).

Columns: ``x[h, key, i]``, the copies of ``key`` host ``h`` takes from place ``i`` (a before-set,
or -1 for the tiles played this turn); ``y[h]``, the played jokers it holds; where freed jokers
need their tile, ``z[j, m, key]``, freed joker ``j`` replaced by a copy of ``key`` in ``m``
(under ``joker_replacement_from: rack`` a played copy in host ``m``, and ``w[j, key]``, one in
a set hosting no freed joker; else any copy in successor ``m``). Rows: each host takes
exactly its copies, none from the before-sets of the jokers it holds; each place gives at most
what it has; a host holding every tile of a before-set takes at least one of them from
elsewhere (``sum x[h, ., i] <= |i| - 1``); each host holds two played tiles (a played joker
counting as one), and a copy of the set of each group joker staying in it; each freed joker is
replaced by its own copy in a successor of its set (a host being one only when it took a copy
of that set's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.tiles import JOKER_KEY

if TYPE_CHECKING:
    from engine.joker_pieces import Joker
    from engine.jokers import JokerSearch

PROGRAMME_CPU_SECONDS = 0.02
"""The most CPU time one programme may take (0.5-1 ms measured, on xp hosts of a dozen tiles
with three places each); a run stopped there leaves the hosts as judged set by set."""


def prepare() -> None:
    """Load the programme's libraries now (numpy, scipy, HiGHS: a second or two cold), where a
    process serves verdicts: else the first turn reaching the programme pays for them (the
    service's first such verify held its worker's event loop 1.7 s; session 47)."""
    import numpy  # noqa: F401
    import scipy.sparse  # noqa: F401

    from engine.solver import highs  # noqa: F401


def copy_places(search: JokerSearch, kept: frozenset[int] = frozenset()) -> dict[tuple[str, int], int]:
    """The copies of each numbered tile by place (tile, place): a before-set (its index), or -1
    for the tiles played this turn; the before-sets first, in order. Not those of a locked joker
    set left as it was (``JokerSearch.locked_in_place``) nor of one kept whole in an after-set
    (``kept``: before-set indices): they lie there."""
    places = {
        (key, i): n
        for i, s in enumerate(search.before)
        if i not in search.locked_in_place and i not in kept
        for key, n in s.numbered_counts.items()
    }
    places.update(((key, -1), n) for key, n in search.played.items() if key != JOKER_KEY)
    return places


def new_sets_hold(
    search: JokerSearch,
    hosts: list[int],
    avoided: frozenset[tuple[int, int]],
    free: Mapping[int, int],
    good: Mapping[int, int],
    freed: list[Joker],
    replacing: bool,
    stayed_in: frozenset[tuple[int, int]] = frozenset(),
    kept: frozenset[int] = frozenset(),
) -> bool | None:
    """Whether one assignment of equal copies makes every host a new set holding two played
    tiles, and (``replacing``) leaves each freed joker a copy of its tile in a successor of
    its set (a played one under ``joker_replacement_from: rack``), and each host where a
    group joker stays (``stayed_in``: (source, host)) a copy of that joker's set; None when
    HiGHS did not decide within ``PROGRAMME_CPU_SECONDS``."""
    # (loaded only when needed: the referee starts without the solver's libraries)
    import numpy as np
    from scipy.sparse import csc_array

    from engine import joker_use  # (imports this module)
    from engine.solver import highs

    columns: dict[tuple[object, ...], int] = {}
    upper: list[float] = []
    rows: list[tuple[dict[int, float], float, float]] = []

    def column(name: tuple[object, ...], most: float) -> int:
        columns[name] = len(upper)
        upper.append(most)
        return columns[name]

    has = copy_places(search, kept)

    takers: dict[tuple[str, int], dict[int, float]] = {}  # (tile, place) -> the columns taking from it
    for h in hosts:
        banned = {search.sources[n].index for n, m in avoided if m == h}
        theirs = search.after[h].numbered_counts
        for key, count in theirs.items():
            row: dict[int, float] = {}
            for (tile, i), n in has.items():
                if tile == key and i not in banned:
                    c = column(("x", h, key, i), min(n, count))
                    row[c] = 1.0
                    takers.setdefault((key, i), {})[c] = 1.0
            rows.append((row, count, count))
        for i, before_set in enumerate(search.before):
            mine = before_set.numbered_counts
            if (
                mine
                and all((key, i) in has for key in mine)
                and i not in banned
                and all(theirs.get(key, 0) >= n for key, n in mine.items())
            ):
                whole = {columns[("x", h, key, i)]: 1.0 for key in mine}
                rows.append((whole, 0.0, sum(mine.values()) - 1.0))
        played = {columns[("x", h, key, -1)]: 1.0 for key in theirs if ("x", h, key, -1) in columns}
        played[column(("y", h), max(0, free[h] - good[h]))] = 1.0
        rows.append((played, 2.0, np.inf))
    rows.append(({columns[("y", h)]: 1.0 for h in hosts}, 0.0, float(search.played.get(JOKER_KEY, 0))))
    for n, h in stayed_in:
        if h in hosts:  # a joker staying there: a copy of its set beside it
            own = search.sources[n].index
            beside = {c: 1.0 for name, c in columns.items() if name[0] == "x" and name[1] == h and name[3] == own}
            rows.append((beside, 1.0, np.inf))
    for (key, i), users in takers.items():
        rows.append((users, 0.0, float(has[(key, i)])))

    if replacing:
        # each freed joker is replaced by its own copy in a successor of its set, a host being
        # one only when it took a copy of that set's; under ``joker_replacement_from: rack`` a
        # played copy: in a host, one it took from the rack (``x[m, key, -1]``), elsewhere one
        # of the played copies the hosts left (``w``, pooled by tile)
        rack_only = search.rules.joker_replacement_from == "rack"
        host_set = set(hosts)
        at: dict[tuple[int, str], dict[int, float]] = {}  # (after-set, tile) -> jokers replaced there
        elsewhere: dict[str, dict[int, float]] = {}  # tile -> jokers replaced by a played copy outside
        for j, (joker, options) in enumerate(joker_use.joker_needs(search, freed)):
            own = search.sources[joker.source].index
            chosen: dict[int, float] = {}
            for key in sorted(options):
                places = [
                    m for m in search.sources[joker.source].successors if search.after[m].numbered_counts.get(key)
                ]
                for m in places:
                    its_set = [
                        columns[("x", m, k, own)]
                        for k in search.after[m].numbered_counts
                        if ("x", m, k, own) in columns
                    ]
                    if (m in host_set and not its_set) or (rack_only and ("x", m, key, -1) not in columns):
                        continue  # (no successor; or rack-only outside the hosts: the pooled ``w`` below)
                    c = column(("z", j, m, key), 1.0)
                    chosen[c] = 1.0
                    at.setdefault((m, key), {})[c] = 1.0
                    if m in host_set:
                        rows.append(({c: 1.0, **{t: -1.0 for t in its_set}}, -np.inf, 0.0))
                if rack_only and any(m not in host_set for m in places) and search.played.get(key):
                    c = column(("w", j, key), 1.0)
                    chosen[c] = 1.0
                    elsewhere.setdefault(key, {})[c] = 1.0
            rows.append((chosen, 1.0, 1.0))
        for (m, key), users in at.items():
            if rack_only:
                rows.append(({**users, columns[("x", m, key, -1)]: -1.0}, -np.inf, 0.0))
            else:
                rows.append((users, 0.0, float(search.after[m].numbered_counts[key])))
        for key, users in elsewhere.items():
            rows.append(({**users, **takers.get((key, -1), {})}, 0.0, float(search.played[key])))

    if not upper:
        return True
    data, row_index, column_index = [], [], []
    for r, (row, _, _) in enumerate(rows):
        for c, a in row.items():
            data.append(a)
            row_index.append(r)
            column_index.append(c)
    matrix = csc_array((data, (row_index, column_index)), shape=(len(rows), len(upper)))
    result = highs.maximise(
        np.zeros(len(upper)),
        np.array(upper, dtype=float),
        matrix,
        np.array([low for _, low, _ in rows], dtype=float),
        np.array([high for _, _, high in rows], dtype=float),
        integer=True,
        presolve=False,
        time_limit=1.0,
        cpu_limit=PROGRAMME_CPU_SECONDS,
    )
    if result.status == highs.INFEASIBLE:
        return False
    if result.status == highs.OPTIMAL:
        return True
    return None
