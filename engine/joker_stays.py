"""Where the table's group jokers stayed (SPEC §4): the after-sets holding them
(``group_homes``), each of which must hold its own copy of one of the numbered tiles of the
joker's set, equal tiles being interchangeable yet each copy lying in one set
(``can_hold_copies``). Functions of the joker search's state (``engine.jokers.JokerSearch``), taken
first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.sets import RUN

if TYPE_CHECKING:
    from engine.joker_pieces import CopiesAt, Joker, Stay
    from engine.jokers import JokerSearch


def group_homes(search: JokerSearch, jokers: list[Joker], stays: list[Stay | None]) -> frozenset[tuple[int, int]]:
    """The pairs (source, after-set) where a group joker stayed: each after-set must hold a
    copy of one of that source's numbered tiles."""
    return frozenset(
        (joker.source, stay.after)
        for joker, stay in zip(jokers, stays, strict=False)
        if stay is not None and search.readings_chosen[joker.source].kind != RUN
    )


def can_hold_copies(
    search: JokerSearch,
    holders: frozenset[tuple[int, int]],
    wholes: frozenset[tuple[int, int]] = frozenset(),
    played_at: CopiesAt = frozenset(),
    apart: frozenset[tuple[int, int]] = frozenset(),
    lent: frozenset[tuple[tuple[int, int, str], int]] = frozenset(),
) -> bool:
    """Whether every pair (source, after-set) in ``holders`` can get its own copy of one of
    the source's numbered tiles, each pair in ``wholes`` getting every copy of its source's
    tiles: equal tiles are interchangeable, yet each copy lies in one set (SPEC §4, the
    consistent assignment), so ``[J J R13]`` has one successor among two after-sets holding
    an R13 when one R13 was played. ``played_at``: ((after-set, tile), copies) that are played
    ones, no set's (the replacing tiles under ``joker_replacement_from: rack``). ``apart``:
    pairs (source, after-set) where the source holds none of its copies (a freed joker's place
    requires so); a copy of it that only one other successor can hold lies there (under
    ``other_set`` with rack-only replacement, ``O6 K6 R6 J`` + ``R6 K6 J=O6`` -> ``K6 O6 R6 J``
    twice with O6 played: the second set's K6 R6 lie beside the freed joker's place or in the
    other group, whose O6, played, then leaves the first set's staying joker no copy of its set;
    an independent turn oracle, session 54). ``lent``: ((source, after-set, tile), copies) of a
    source's own copies lying there, lent to another set's joker place (session 57). Memoised."""
    memo_key = (holders, wholes, played_at, apart, lent)
    found = search.holding_memo.get(memo_key)
    if found is not None:
        return found
    taken: dict[tuple[str, int], int] = {}  # (tile, source or after-set) -> copies given
    for (k, key), copies in played_at:
        taken[key, k] = copies

    def lay(n: int, k: int, key: str, copies: int) -> bool:
        """Give after-set ``k`` that many of source ``n``'s copies of ``key``; False when it
        does not hold so many."""
        taken[key, -1 - n] = taken.get((key, -1 - n), 0) + copies
        taken[key, k] = taken.get((key, k), 0) + copies
        return taken[key, k] <= search.after[k].numbered_counts.get(key, 0)

    # every copy of a source kept whole lies in its home; a source ``apart`` from some
    # after-sets has a copy that only one other successor can hold there (a source kept whole
    # has them all in its home already)
    laid = [(n, k, key, copies) for n, k in sorted(wholes) for key, copies in search.sources[n].numbered.items()]
    # (a source's copies lent to a joker's place lie there: ``lent``)
    lent_to: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for (n, k, key), copies in sorted(lent):
        lent_to.setdefault((n, key), []).append((k, copies))
    kept_whole = {n for n, _ in wholes}
    fits = True
    for n in sorted({n for n, _ in apart} - kept_whole):
        avoided = {k for m, k in apart if m == n}
        for key, copies in search.sources[n].numbered.items():
            if search.removed.get(key):  # (a copy off the table may be this set's: left open)
                continue
            places = [
                k for k in search.sources[n].successors if k not in avoided and search.after[k].numbered_counts.get(key)
            ]
            if (n, key) in lent_to:
                fits = fits and all(k in places for k, _ in lent_to[n, key])
                copies -= sum(c for _, c in lent_to[n, key])
                if copies <= 0:
                    continue
            if len(places) == 1:  # (with more, where they lie is left open)
                laid.append((n, places[0], key, copies))
    laid += [(n, k, key, copies) for (n, k, key), copies in sorted(lent)]
    if (
        not fits
        or not all(lay(n, k, key, copies) for n, k, key, copies in laid)
        or any(taken[key, -1 - n] > search.sources[n].numbered.get(key, 0) for (n, _, key), _ in lent)
    ):
        search.holding_memo[memo_key] = False
        return False
    placed = {(n, k) for n, k, _, _ in laid}  # (source, after-set) given a copy so
    pairs = sorted(holders - placed)

    def give(m: int) -> bool:
        if m == len(pairs):
            return True
        n, k = pairs[m]
        if k not in search.sources[n].successors:
            return False
        theirs = search.after[k].numbered_counts
        for key, copies in search.sources[n].numbered.items():
            room = theirs.get(key, 0)
            if taken.get((key, -1 - n), 0) < copies and taken.get((key, k), 0) < room:
                taken[key, -1 - n] = taken.get((key, -1 - n), 0) + 1
                taken[key, k] = taken.get((key, k), 0) + 1
                ok = give(m + 1)
                taken[key, -1 - n] -= 1
                taken[key, k] -= 1
                if ok:
                    return True
        return False

    found = search.holding_memo[memo_key] = give(0)
    return found
