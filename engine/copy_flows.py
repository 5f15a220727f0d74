"""Flows of copies, grown along augmenting paths: whether takers each get their copies of tiles
in limited supply (``copies_supplied``), and whether needs each find their own copy of one of their
tiles (``each_finds_a_copy``). For where freed jokers may go (``engine.joker_use``)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)


def copies_supplied(demand: Sequence[int], caps: Sequence[Mapping[Key, int]], supply: Mapping[Key, int]) -> bool:
    """Whether each taker ``t`` can get ``demand[t]`` copies, at most ``caps[t][key]`` of each
    tile and no tile more than ``supply[key]`` in all: a flow, grown one copy at a time along
    augmenting paths (Ford-Fulkerson). Polynomial, where trying every choice took minutes for
    four sets hosting freed jokers among 40 played tiles (session 35's worst-case hunt)."""
    given: list[dict[Key, int]] = [{} for _ in demand]
    used: dict[Key, int] = {}

    def augment(t: int, takers_seen: set[int], keys_seen: set[Key]) -> bool:
        takers_seen.add(t)
        for key, cap in caps[t].items():
            if key in keys_seen or given[t].get(key, 0) >= cap:
                continue
            keys_seen.add(key)
            if used.get(key, 0) < supply.get(key, 0):
                used[key] = used.get(key, 0) + 1
                given[t][key] = given[t].get(key, 0) + 1
                return True
            # another taker holding a copy of it takes something else instead
            for u, theirs in enumerate(given):
                if u not in takers_seen and theirs.get(key, 0) > 0 and augment(u, takers_seen, keys_seen):
                    theirs[key] -= 1
                    given[t][key] = given[t].get(key, 0) + 1
                    return True
        return False

    wanted = list(demand)
    grown = True
    while grown and any(wanted):
        grown = False
        for t, n in enumerate(wanted):
            if n and augment(t, set(), set()):
                wanted[t] -= 1
                grown = True
    return not any(wanted)


def each_finds_a_copy(needs: list[frozenset[str]], copies: Mapping[str, int], every: bool) -> bool:
    """Whether each need gets its own copy of one of its tiles from ``copies`` (with ``every``:
    every tile of each need is there): a flow (``copies_supplied``), where trying every way to serve
    the needs took minutes for twenty of them competing for the last copies."""
    needs = [options for options in needs if options]
    if every:
        return all(copies.get(key, 0) for options in needs for key in options)
    return copies_supplied([1] * len(needs), [dict.fromkeys(sorted(options), 1) for options in needs], copies)
