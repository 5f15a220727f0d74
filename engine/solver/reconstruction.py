"""Replaying the decisions of a solved search into actual sets of tiles."""

from __future__ import annotations

from collections.abc import Sequence

from engine.solver.model import (
    _COLOUR_INDEX,
    _LAST,
    _MAX_GROUP,
    _NCOL,
    _ColourMove,
    _GroupMove,
    _RunBlock,
)
from engine.solver.search import _Search
from engine.tiles import COLORS, JOKER, Tile, numbered

# --- building the sets from a solution ------------------------------------------------


def _joker_as(colour: int, number: int) -> Tile:
    return Tile(None, 0, numbered(COLORS[colour], number))


class _Run:
    """A run being built: its numbers run from ``start``; ``block`` is set when it holds one."""

    __slots__ = ("block", "start", "tiles")

    def __init__(self, start: int) -> None:
        self.start = start
        self.tiles: list[Tile] = []
        self.block: _RunBlock | None = None

    @property
    def end(self) -> int:
        return self.start + len(self.tiles) - 1


class _Builder:
    """Replays the decisions of a solution and lays out the actual sets."""

    def __init__(self, search: _Search) -> None:
        self.s = search
        self.classes: list[list[list[_Run]]] = [[[], [], [], []] for _ in range(_NCOL)]
        self.in_flight: list[_Run] = []
        self.done_runs: list[_Run] = []
        self.groups: list[list[Tile]] = []
        self.group_blocks: dict[int, list[Tile]] = {}
        self.to_groups: list[int] = []

    def build(self) -> None:
        for key, move in self.s.path():
            v, c = key[0], key[1]
            if isinstance(move, _ColourMove):
                self._colour(v, c, move)
            else:
                self._groups(v, move)
        for classes in self.classes:
            for runs in classes:
                self.done_runs.extend(runs)

    def _colour(self, v: int, c: int, move: _ColourMove) -> None:
        if c == 0:
            self.to_groups = []
        runs = self.classes[c]
        tile = numbered(COLORS[c], v)
        for block, (kind, n) in zip(self.s.starts_at.get((c, v), ()), move.attach, strict=True):
            if kind == "new":
                run = _Run(block.start - n)
                run.tiles = [_joker_as(c, x) for x in range(block.start - n, block.start)]
            else:
                run = runs[n - 1].pop()
            run.tiles.extend(block.tiles)
            run.block = block
            self.in_flight.append(run)
        extended = runs[0] + runs[1] + runs[2][: move.extend3] + runs[3][: move.extend_block]
        self.done_runs.extend(runs[2][move.extend3 :] + runs[3][move.extend_block :])
        for i, run in enumerate(extended):
            run.tiles.append(_joker_as(c, v) if i < move.joker_extend else tile)
        new1: list[_Run] = []
        new2 = runs[0]
        new3 = runs[1] + runs[2][: move.extend3]
        newb = runs[3][: move.extend_block]
        for lead in move.starts:
            run = _Run(v - lead)
            run.tiles = [_joker_as(c, x) for x in range(v - lead, v)] + [tile]
            (new1, new2, new3)[min(lead, 2)].append(run)
        for run in [r for r in self.in_flight if r.block is not None and r.block.colour == c and r.end == v]:
            self.in_flight.remove(run)
            newb.append(run)
        self.classes[c] = [new1, new2, new3, newb]
        self.to_groups.append(move.to_groups)

    def _groups(self, v: int, move: _GroupMove) -> None:
        counts = list(self.to_groups)
        for block, (colours, jokers) in zip(self.s.groups_at.get(v, ()), move.absorb, strict=True):
            added = [numbered(COLORS[c], v) for c in colours] + [JOKER] * jokers
            for c in colours:
                counts[c] -= 1
            self.group_blocks[block.index] = added
        if not move.groups:
            return
        new: list[list[Tile]] = [[] for _ in range(move.groups)]
        dealt = 0
        for c in range(_NCOL):
            for _ in range(counts[c]):
                new[dealt % move.groups].append(numbered(COLORS[c], v))
                dealt += 1
        jokers = move.jokers
        for limit in (3, _MAX_GROUP):
            for group in new:
                while jokers and len(group) < limit:
                    group.append(JOKER)
                    jokers -= 1
        self.groups.extend(new)

    def place_spare_jokers(self, count: int) -> None:
        """Put ``count`` jokers where there is room (arrange's spare jokers)."""
        for run in self.done_runs:
            while count and len(run.tiles) < _LAST:
                colour = _COLOUR_INDEX[_run_colour(run.tiles)]
                if run.end < _LAST:
                    run.tiles.append(_joker_as(colour, run.end + 1))
                else:
                    run.start -= 1
                    run.tiles.insert(0, _joker_as(colour, run.start))
                count -= 1
        for group in self.groups:
            if count and len(group) < _MAX_GROUP:
                group.append(JOKER)
                count -= 1
        assert count == 0, "the room counted for spare jokers was not there"

    def plain_sets(self) -> list[tuple[Tile, ...]]:
        """Runs and new groups that hold no block."""
        return [tuple(r.tiles) for r in self.done_runs if r.block is None] + [tuple(g) for g in self.groups]


class _Laid:
    """Sets laid by another method than the search (the integer programme, the search for an
    arrangement): plain sets only."""

    def __init__(self, sets: list[tuple[Tile, ...]]) -> None:
        self.done_runs: list[_Run] = []
        self.group_blocks: dict[int, list[Tile]] = {}
        self.sets = sets

    def plain_sets(self) -> list[tuple[Tile, ...]]:
        return list(self.sets)


def stands_for(joker: Tile, tiles: tuple[Tile, ...]) -> int:
    """The number a joker of ``tiles`` stands for: its declared tile's (runs are laid with
    their jokers declared), else the group's number."""
    if joker.declared is not None:
        return joker.declared.number
    return next(t.number for t in tiles if t.color is not None)


def _run_colour(tiles: Sequence[Tile]) -> str:
    for t in tiles:
        if t.color is not None:
            return t.color
        if t.declared is not None and t.declared.color is not None:
            return t.declared.color
    raise AssertionError("a run without a colour")
