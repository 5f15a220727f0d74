"""Replaying a recorded game turn by turn (SPEC §6 "Game record")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.rules import SABRA, Rules
from engine.scoring import RoundResult
from engine.sets import TableSet
from engine.tiles import Tile
from engine.violations import Violation


@dataclass(frozen=True, slots=True)
class RecordedPlayer:
    name: str
    rack: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    """A ``draw`` turn (``draw`` set: the tile drawn) or a ``table`` turn (``table`` set: the
    whole table at the end of the turn)."""

    player: str
    draw: Tile | None = None
    table: tuple[TableSet, ...] | None = None
    elapsed_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    players: tuple[RecordedPlayer, ...]
    turns: tuple[RecordedTurn, ...]
    pool: tuple[Tile, ...] | None = None
    end: str | None = None  # "pool_exhausted" or None


@dataclass(frozen=True, slots=True)
class ReplayedTurn:
    index: int
    player: str
    action: str  # "play" | "draw" | "pass"
    violations: tuple[Violation, ...]
    details: dict[str, Any]

    @property
    def valid(self) -> bool:
        return not self.violations


@dataclass(frozen=True, slots=True)
class ReplayResult:
    turns: tuple[ReplayedTurn, ...]
    first_invalid_turn: int | None
    result: RoundResult | None
    violations: tuple[Violation, ...] = ()

    @property
    def valid(self) -> bool:
        return self.first_invalid_turn is None and not self.violations

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        raise NotImplementedError


def replay_game(
    record: GameRecord, rules: Rules = SABRA, continue_on_error: bool = False, analyze: bool = False
) -> ReplayResult:
    raise NotImplementedError
