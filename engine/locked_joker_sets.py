"""Locked joker sets (``joker_sets_locked``, SPEC §4): a set whose jokers stayed keeps them in one
successor holding all its numbered tiles (``joker_set_broken``, ``locked_sets``), the sets so kept whole
(``whole_homes``), and the violation certain once a set's jokers all have a fate (``settled``,
a bound of the search). Functions of the joker search's state (``engine.jokers.JokerSearch``),
taken first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine import joker_stays
from engine.joker_pieces import Joker
from engine.sets import set_identity
from engine.violations import Violation

if TYPE_CHECKING:
    from engine.joker_pieces import Stay
    from engine.jokers import JokerSearch


def settled(search: JokerSearch, jokers: list[Joker], j: int, stays: list[Stay | None]) -> int:
    """Violations certain once every joker of the source of joker ``j - 1`` has its fate:
    that set broken under ``joker_sets_locked``."""
    if not search.locked:
        return 0
    n = jokers[j - 1].source
    homes = {stay.after for joker, stay in zip(jokers, stays, strict=False) if joker.source == n and stay}
    return int(joker_set_broken(search, n, homes) is not None)


def whole_homes(search: JokerSearch, jokers: list[Joker], stays: list[Stay | None]) -> frozenset[tuple[int, int]]:
    """Under ``joker_sets_locked``, the pairs (source, after-set) where a set's staying jokers
    all lie in one after-set holding every numbered tile of the set: it holds all its copies."""
    if not search.locked:
        return frozenset()
    homes: dict[int, set[int]] = {}
    for joker, stay in zip(jokers, stays, strict=False):
        if stay is not None:
            homes.setdefault(joker.source, set()).add(stay.after)
    return frozenset((n, min(ks)) for n, ks in homes.items() if joker_set_broken(search, n, ks) is None)


def locked_sets(search: JokerSearch, jokers: list[Joker], stays: list[Stay | None]) -> list[Violation]:
    """Under ``joker_sets_locked``: a set whose jokers (some of them) stayed must keep them
    in one successor that holds all its numbered tiles."""
    found = []
    for n in range(len(search.sources)):
        homes = {stay.after for joker, stay in zip(jokers, stays, strict=True) if joker.source == n and stay}
        broken = joker_set_broken(search, n, homes)
        if broken is not None:
            found.append(broken)
    wholes = whole_homes(search, jokers, stays)
    if wholes and not joker_stays.can_hold_copies(search, joker_stays.group_homes(search, jokers, stays), wholes):
        # two locked sets kept whole in one after-set that holds the copies of only one
        k = min((k for _, k in wholes), key=lambda k: (search.after[k].content, k))
        found.append(Violation("JOKER_SET_BROKEN", f"/after/{k}", {"set_id": None}))  # (two sets': no label)
    return found


def joker_set_broken(search: JokerSearch, n: int, homes: set[int]) -> Violation | None:
    """``JOKER_SET_BROKEN`` for source ``n`` whose staying jokers are in the after-sets
    ``homes``, unless they are all in one that holds every numbered tile of the set."""
    if not homes:
        return None
    k = min(homes, key=lambda k: (search.after[k].content, k))  # (not by listing)
    if len(homes) == 1 and _holds_set(search, k, n):
        return None
    return Violation("JOKER_SET_BROKEN", f"/after/{k}", search.sources[n].labelled({}))


def _holds_set(search: JokerSearch, k: int, n: int) -> bool:
    """Whether after-set ``k`` holds every numbered tile of source ``n``."""
    theirs = search.after[k].numbered_counts
    return all(theirs.get(key, 0) >= c for key, c in search.sources[n].numbered.items())


def kept_with_exact_tile(search: JokerSearch, joker: Joker, every: Sequence[frozenset[str]]) -> bool:
    """Whether a successor of the joker's set holds every numbered tile of the set and the
    tile the joker stood for in its place (``R4 R5 R6`` for the joker of ``R4 R5 J``); not a
    joker set left as it was, or laid again as it was, which keeps its own copies, nor one of
    the sets without a joker left as they were (an untouched ``O11 B11 K11`` beside a split
    ``J J K11 O11`` gave two violations for one; a metamorphic audit, session 50). ``every``:
    the tiles each joker of the set (``joker`` among them) may stand for, as its reading stands
    them; that successor holds a copy for each of them beside the set's own, the set's copies
    being in one place (strict-joker, ``J R4 J`` beside ``R1 R2 R3 R4 R5`` -> ``R4 R5 R6`` + ``R2 R3 R4`` +
    ``J J R1``: the set's R4 lies beside R5 or beside R3, not both, so the R3 joker, standing
    for R3 in ``J J R1``, may have stayed; a hand-made examiner, session 54). Nor where another
    moved set is so kept whole there whose numbered tiles do not fit beside the set's: two sets are
    not both whole on one set of copies (strict-joker, ``J O2 O1`` + ``O1 O2 J`` -> ``O1 O2 O3`` +
    ``O2 J J O5`` + ``O1 K1 B1``: the one O1 O2 O3 keeps one set whole, so the other's joker may
    have stayed, as O3 in ``O2 J J O5``, that set split; an independent judge, session 58)."""
    n = joker.source
    homes = _kept_homes(search, n, every)
    if not homes:
        return False
    own = search.sources[n]
    for k in homes:
        spare = Counter(search.after[k].numbered_counts) - Counter(own.numbered)
        clash = False
        for m, other in enumerate(search.sources):
            if m == n or m not in search.readings_chosen:
                continue
            theirs = search.readings_chosen[m].joker_keys
            if k not in _kept_homes(search, m, theirs) or not _exact_tile_frees(search, m):
                continue
            if Counter(other.numbered) - spare:
                # (the two sets' numbered tiles do not both fit there; an exact tile may be an
                # unlocked set's own, ``R5 R6 J`` + ``R7 R8 J`` -> ``R5 R6 R7 R8 R9``)
                clash = True
                break
        if not clash:
            return True
    return False


def _kept_homes(search: JokerSearch, n: int, every: Sequence[frozenset[str]]) -> list[int]:
    """The successors where ``kept_with_exact_tile`` finds source ``n`` kept whole."""
    memo = (n, *every)
    if memo in search.kept_memo:
        return search.kept_memo[memo]
    source = search.sources[n]
    found = search.kept_memo[memo] = [
        k
        for k in source.successors
        if k in search.room_sets
        and set_identity(search.after[k], search.rules) not in search.joker_set_contents
        and search.after_contents[search.after[k].content[0]] > search.jokerless_contents[search.after[k].content[0]]
        and _holds_set(search, k, n)
        and _each_joker_has_a_copy(Counter(search.after[k].numbered_counts) - Counter(source.numbered), every)
    ]
    return found


def _exact_tile_frees(search: JokerSearch, m: int) -> bool:
    """Whether a joker of source ``m`` has its exact tile in its place, as its reading stands."""
    from engine import joker_replacement  # (which imports this module)

    reading = search.readings_chosen[m]
    return any(
        joker_replacement.replaced_by_its_tile(search, Joker(m, keys, len(keys) == 1), reading.kind)
        for keys in reading.joker_keys
    )


def merged_with_exact_tile(search: JokerSearch, joker: Joker, every: Sequence[frozenset[str]]) -> bool:
    """Whether the joker's set is merged whole into a successor that holds, beside its numbered
    tiles, a copy for each of its freed jokers (``every``: the tiles each may stand for, the
    joker's among them), those copies being of another moved locked set merged whole there too,
    copy for copy (``R1 R2 J`` + ``R3 R4 J`` -> ``R1 R2 R3 R4 J`` + ``R2 J R4``: the first set's
    joker is freed by the second's R3, though it stands for R3 again; an independent oracle,
    session 57). Tile by tile: the lock's claim on those copies is judged with the
    replacements (``joker_replacement._merged_apart``)."""
    source = search.sources[joker.source]
    for k in source.successors:
        if k not in search.room_sets or not _holds_set(search, k, joker.source):
            continue
        spare = Counter(search.after[k].numbered_counts) - Counter(source.numbered)
        for m, other in enumerate(search.sources):
            if m == joker.source or not _holds_set(search, k, m):
                continue
            theirs = Counter(other.numbered)
            if theirs - spare:
                continue  # (the two sets' copies do not both fit there)
            # (and that set's jokers stay there or have their tiles there, the joker's own set's
            # copies among them: one whose joker left is broken, its copies freeing nothing;
            # ``R4 R5 J`` + ``R6 R7 J`` -> ``J R7 J`` + ``R4 R5 R6 R7`` keeps both jokers, session
            # 54; ``R3 R4 J`` + ``J R5 R6`` -> ``R3 R4 R5 R6`` + ``J J R6 R7`` frees both)
            keys = search.readings_chosen[m].joker_keys if m in search.readings_chosen else ()
            left = Counter(search.after[k].numbered_counts) - theirs
            if len(keys) > search.after[k].jokers + sum(1 for tiles in keys if any(left[t] for t in tiles)):
                continue
            if _each_joker_has_a_copy(theirs, every):
                return True
    return False


def _each_joker_has_a_copy(copies: Counter[str], every: Sequence[frozenset[str]]) -> bool:
    """Whether each joker (the tiles it may stand for) gets a copy of its own among ``copies``,
    each of another tile (the jokers of one set stand for different tiles: two R6 free only one
    joker of ``J O6 J B6``, which stand for R6 and K6; referee8 R8-C1, session 62)."""
    if not every:
        return True  # (every joker has one)
    for tile in sorted(every[0]):
        if copies[tile]:
            copies[tile] -= 1
            found = _each_joker_has_a_copy(copies, [keys - {tile} for keys in every[1:]])
            copies[tile] += 1
            if found:
                return True
    return False


def split_unlocked(search: JokerSearch, jokers: list[Joker], stays: list[Stay | None]) -> int:
    """How many locked sets this assignment calls broken though a played copy of the tile a
    joker of theirs stays for lies in another of their successors: the reading where that copy
    freed the joker (its set then no longer locked) reads better between equally many
    violations (strict-joker opening, ``J B3 R3 O3`` -> ``O3 R3 K3`` + ``J B3 R3`` with K3
    played: ``JOKER_RELEASED_BEFORE_OPENING``, not a broken set; an independent audit, session
    45). Only sets the turn's copies may unlock (``unlock_in_turn``); a group of three needing
    both colours needs both there."""
    if not search.unlocked_sources:
        return 0
    homes: dict[int, set[int]] = {}
    freed_elsewhere: set[int] = set()

    def lies(tile: str, ks: Sequence[int]) -> bool:
        """Whether a played copy of ``tile`` lies in one of the after-sets ``ks``."""
        return bool(search.played.get(tile)) and any(search.after[k].numbered_counts.get(tile) for k in ks)

    for joker, stay in zip(jokers, stays, strict=True):
        n = joker.source
        if stay is None or n not in search.unlocked_sources:
            continue
        homes.setdefault(n, set()).add(stay.after)
        successors = search.sources[n].successors
        others = [k for k in successors if k != stay.after]
        if search.every_colour(n) and not joker.declared:
            # a group of three needing both colours is freed by both only, the one beside the
            # joker's new place counting too (strict-joker + both colours + ``other_set``,
            # ``J B3 R3`` -> ``K3 B3 J`` + ``O3 R3 J`` with K3, O3 and a joker played: the
            # freed joker misused, not the set broken; an independent turn oracle, session 55)
            freed = lies(stay.tile, others) and all(lies(tile, successors) for tile in joker.options)
        else:
            freed = any(lies(tile, others) for tile in joker.options)
        if freed:
            freed_elsewhere.add(n)
    return sum(joker_set_broken(search, n, homes[n]) is not None for n in freed_elsewhere)
