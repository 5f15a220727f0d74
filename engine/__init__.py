"""Rummikub rules engine: pure Python, no transport imports.

The public API: tiles (``parse_tile``, ``Tile``), rules (``resolve_rules``, ``PRESETS``),
set reading (``read_set``), position checks (``validate_sets``, ``check_meld``), turns
(``verify_turn``), scoring (``score_round``, ``score_match``). Every error about unreadable
input is an ``InputError`` carrying a JSON Pointer.
"""

from engine.errors import InputError
from engine.rules import PRESETS, SABRA, Rules, RulesError, resolve_rules
from engine.scoring import (
    MatchResult,
    MatchRound,
    PlayerRack,
    PlayerScore,
    RoundResult,
    ScoringError,
    score_match,
    score_round,
)
from engine.sets import GROUP, RUN, Reading, SetReading, TableSet, read_set
from engine.tiles import JOKER, SUPPLIES, Tile, TileError, format_tiles, parse_tile, parse_tiles
from engine.turns import TurnVerdict, verify_turn
from engine.validate import MeldVerdict, SetsVerdict, SetVerdict, check_meld, validate_sets
from engine.violations import Violation

__all__ = [
    "GROUP",
    "JOKER",
    "PRESETS",
    "RUN",
    "SABRA",
    "SUPPLIES",
    "InputError",
    "MatchResult",
    "MatchRound",
    "MeldVerdict",
    "PlayerRack",
    "PlayerScore",
    "Reading",
    "RoundResult",
    "Rules",
    "RulesError",
    "ScoringError",
    "SetReading",
    "SetVerdict",
    "SetsVerdict",
    "TableSet",
    "Tile",
    "TileError",
    "TurnVerdict",
    "Violation",
    "check_meld",
    "format_tiles",
    "parse_tile",
    "parse_tiles",
    "read_set",
    "resolve_rules",
    "score_match",
    "score_round",
    "validate_sets",
    "verify_turn",
]
