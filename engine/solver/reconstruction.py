"""Replaying the decisions of a solved search into actual sets of tiles."""

from __future__ import annotations

from collections.abc import Sequence

from engine.solver.model import (
    COLOUR_INDEX,
    LAST,
    MAX_GROUP,
    NCOL,
    ColourMove,
    GroupMove,
    RunBlock,
)
from engine.solver.search import Search
from engine.tiles import COLORS, JOKER, Tile, numbered
from engine.tiles import joker_as as declared_joker

# --- building the sets from a solution ------------------------------------------------


def joker_as(colour: int, number: int) -> Tile:
    return declared_joker(numbered(COLORS[colour], number))


class BuildingRun:
    """A run being built: its numbers run from ``start``; ``block`` is set when it holds one."""

    __slots__ = ("block", "start", "tiles")

    def __init__(self, start: int) -> None:
        self.start = start
        self.tiles: list[Tile] = []
        self.block: RunBlock | None = None

    @property
    def end(self) -> int:
        return self.start + len(self.tiles) - 1


class Builder:
    """Replays the decisions of a solution and lays out the actual sets."""

    def __init__(self, search: Search) -> None:
        self.s = search
        self.classes: list[list[list[BuildingRun]]] = [[[], [], [], []] for _ in range(NCOL)]
        self.in_flight: list[BuildingRun] = []
        self.done_runs: list[BuildingRun] = []
        self.groups: list[list[Tile]] = []
        self.group_blocks: dict[int, list[Tile]] = {}
        self.to_groups: list[int] = []

    def build(self) -> None:
        for key, move in self.s.path():
            v, c = key[0], key[1]
            if isinstance(move, ColourMove):
                self._colour(v, c, move)
            else:
                self._groups(v, move)
        for classes in self.classes:
            for runs in classes:
                self.done_runs.extend(runs)

    def _colour(self, v: int, c: int, move: ColourMove) -> None:
        if c == 0:
            self.to_groups = []
        runs = self.classes[c]
        tile = numbered(COLORS[c], v)
        for block, (kind, n) in zip(self.s.starts_at.get((c, v), ()), move.attach, strict=True):
            if kind == "new":
                run = BuildingRun(block.start - n)
                run.tiles = [joker_as(c, x) for x in range(block.start - n, block.start)]
            else:
                run = runs[n - 1].pop()
            run.tiles.extend(block.tiles)
            run.block = block
            self.in_flight.append(run)
        extended = runs[0] + runs[1] + runs[2][: move.extend3] + runs[3][: move.extend_block]
        self.done_runs.extend(runs[2][move.extend3 :] + runs[3][move.extend_block :])
        for i, run in enumerate(extended):
            run.tiles.append(joker_as(c, v) if i < move.joker_extend else tile)
        new1: list[BuildingRun] = []
        new2 = runs[0]
        new3 = runs[1] + runs[2][: move.extend3]
        newb = runs[3][: move.extend_block]
        for lead in move.starts:
            run = BuildingRun(v - lead)
            run.tiles = [joker_as(c, x) for x in range(v - lead, v)] + [tile]
            (new1, new2, new3)[min(lead, 2)].append(run)
        for run in [r for r in self.in_flight if r.block is not None and r.block.colour == c and r.end == v]:
            self.in_flight.remove(run)
            newb.append(run)
        self.classes[c] = [new1, new2, new3, newb]
        self.to_groups.append(move.to_groups)

    def _groups(self, v: int, move: GroupMove) -> None:
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
        for c in range(NCOL):
            for _ in range(counts[c]):
                new[dealt % move.groups].append(numbered(COLORS[c], v))
                dealt += 1
        jokers = move.jokers
        for limit in (3, MAX_GROUP):
            for group in new:
                while jokers and len(group) < limit:
                    group.append(JOKER)
                    jokers -= 1
        self.groups.extend(new)

    def place_spare_jokers(self, count: int) -> None:
        """Put ``count`` jokers where there is room (arrange's spare jokers)."""
        for run in self.done_runs:
            while count and len(run.tiles) < LAST:
                colour = COLOUR_INDEX[run_colour(run.tiles)]
                if run.end < LAST:
                    run.tiles.append(joker_as(colour, run.end + 1))
                else:
                    run.start -= 1
                    run.tiles.insert(0, joker_as(colour, run.start))
                count -= 1
        for group in self.groups:
            if count and len(group) < MAX_GROUP:
                group.append(JOKER)
                count -= 1
        assert count == 0, "the room counted for spare jokers was not there"

    def plain_sets(self) -> list[tuple[Tile, ...]]:
        """Runs and new groups that hold no block."""
        return [tuple(r.tiles) for r in self.done_runs if r.block is None] + [tuple(g) for g in self.groups]


class Laid:
    """Sets laid by another method than the search (the integer programme, the search for an
    arrangement): plain sets only."""

    def __init__(self, sets: list[tuple[Tile, ...]]) -> None:
        self.done_runs: list[BuildingRun] = []
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


def run_colour(tiles: Sequence[Tile]) -> str:
    for t in tiles:
        if t.color is not None:
            return t.color
        if t.declared is not None and t.declared.color is not None:
            return t.declared.color
    raise AssertionError("a run without a colour")
