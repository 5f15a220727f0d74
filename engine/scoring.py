"""Scoring a finished round and a match (SPEC §5, RULES.md §7–§8).

Every mode is described by one quantity per loser, its *loss*:

- a player went out: each loser's rack value;
- pool exhausted, under ``zero_sum``: ``subtract_lowest`` own − lowest, ``plain`` and
  ``all_negative`` own; under ``penalty_only``: own (``pool_exhausted_scoring`` is a
  ``zero_sum`` setting and does not apply).

Under ``zero_sum`` losers score −loss and the winners share the sum of losses (so the round
sums to zero), except ``all_negative`` where everyone, winners too, scores −own.
Under ``penalty_only`` scores are penalty points: losers collect their loss, winners 0 (when
the pool ran out, the lowest rack wins with 0 and the others collect their own rack values).
Tied winners split the winners' total equally, so a score may be fractional (serialised as a
JSON number with a fraction, e.g. 32.5); under ``penalty_only`` that total is 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from engine.errors import InputError
from engine.rules import PRESETS, SABRA, Rules, RulesLike, resolve_rules
from engine.tiles import Tile, as_tiles
from engine.validate import require_supply

Score = int | Fraction
"""A round score or total: whole in most rounds, fractional when tied winners split a pot."""


class ScoringError(InputError):
    """A round or match that cannot be scored (two empty racks, duplicate names, a winner that
    contradicts the racks...). ``pointer`` is a JSON Pointer into the request."""


@dataclass(frozen=True, slots=True)
class PlayerRack:
    """A player at the end of a round: name and the tiles left on the rack (``opened`` is
    carried for records; scoring does not read it)."""

    name: str
    rack: tuple[Tile, ...]
    opened: bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"PlayerRack.name is a str, not {type(self.name).__name__} {self.name!r}")
        if self.opened is not None and type(self.opened) is not bool:
            raise TypeError(f"PlayerRack.opened is True, False or None, not {self.opened!r}")
        object.__setattr__(self, "rack", as_tiles(self.rack, "a rack's tiles"))


_Item = TypeVar("_Item")


def _all_of(kind: type[_Item], items: Iterable[_Item], what: str) -> tuple[_Item, ...]:
    """``items`` as a tuple (an iterator read once); TypeError naming the first that is no
    ``kind`` (a ``PlayerRack``, a ``MatchRound``)."""
    items = tuple(items)
    for item in items:
        if not isinstance(item, kind):
            raise TypeError(f"{what} are {kind.__name__} objects, not {type(item).__name__} {item!r}")
    return items


@dataclass(frozen=True, slots=True)
class PlayerScore:
    """One player's line of a round's result: the rack's value and the score (SPEC §5)."""

    name: str
    rack_value: int
    score: Score


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A scored round: the winners (several on a tie), how it ended (``rack_empty`` or
    ``pool_exhausted``) and every player's score, in the players' order."""

    winners: tuple[str, ...]
    ended_by: str
    scores: tuple[PlayerScore, ...]

    @property
    def winner(self) -> str | None:
        """The round's one winner, or None when the win is shared (see ``winners``)."""
        return self.winners[0] if len(self.winners) == 1 else None

    def to_json(self) -> dict[str, Any]:
        """The rounds/score answer (SPEC §5, §7); fractional scores as numbers."""
        return {
            "winner": self.winner,
            "winners": list(self.winners),
            "ended_by": self.ended_by,
            "scores": [{"name": s.name, "rack_value": s.rack_value, "score": number(s.score)} for s in self.scores],
        }


def number(value: Score) -> int | float:
    """A score as JSON: an integer when whole, else a float."""
    if isinstance(value, int):
        return value
    return int(value) if value.denominator == 1 else float(value)


def _share(total: int, ways: int) -> Score:
    """``total`` split ``ways`` ways: an int when it divides evenly, else an exact Fraction."""
    return total // ways if total % ways == 0 else Fraction(total, ways)


def rack_value(rack: Sequence[Tile], rules: Rules = SABRA) -> int:
    """Sum of the numbers on a rack plus ``joker_penalty`` for each joker."""
    return sum(rules.joker_penalty if t.color is None else t.number for t in rack)


def score_round(
    players: Iterable[PlayerRack],
    rules: RulesLike = SABRA,
    winner: str | None = None,
    prefix: str = "",
    unnamed: Sequence[int] = (),
) -> RoundResult:
    """Score one finished round. Raises ScoringError (an InputError) for a round that cannot
    have happened, InputError for racks holding more of a tile than the tile set has.
    ``unnamed``: per player, tiles held that the racks do not name (a replayed record without
    its pool): such a rack is not empty, its value counts the named tiles only. ``rules`` may be
    anything ``resolve_rules`` reads."""
    players = _all_of(PlayerRack, players, "players")
    if unnamed and (len(unnamed) != len(players) or not all(type(n) is int and n >= 0 for n in unnamed)):
        raise ValueError(f"unnamed holds a count of at least 0 per player, not {unnamed!r}")
    rules = resolve_rules(rules)
    _check_players(players, rules, prefix)
    require_supply(((f"{prefix}/players/{i}/rack", p.rack) for i, p in enumerate(players)), rules)
    values = [rack_value(p.rack, rules) for p in players]
    empty = [i for i, p in enumerate(players) if not p.rack and not (unnamed and unnamed[i])]
    if len(empty) > 1:
        count = "two" if len(empty) == 2 else str(len(empty))
        raise ScoringError(
            f"{count} players have empty racks ({', '.join(players[i].name for i in empty)}): only one can go out",
            f"{prefix}/players/{empty[1]}/rack",
        )
    if empty:
        ended_by = "rack_empty"
        winners = empty
        losses = values
    else:
        ended_by = "pool_exhausted"
        lowest = min(values)
        winners = [i for i, v in enumerate(values) if v == lowest]
        losses = [v - lowest for v in values] if _zero_sum_mode(rules) == "subtract_lowest" else values
    if winner is not None:
        names = [p.name for p in players]
        if winner not in names:
            raise ScoringError(f"winner {winner!r} is not one of the players", f"{prefix}/winner")
        if names.index(winner) not in winners:
            raise ScoringError(
                f"winner {winner!r} contradicts the racks: the round was won by {', '.join(names[i] for i in winners)}",
                f"{prefix}/winner",
            )
    all_negative = ended_by == "pool_exhausted" and _zero_sum_mode(rules) == "all_negative"
    sign = -1 if rules.scoring == "zero_sum" else 1
    scores = []
    pot = sum(losses[i] for i in range(len(players)) if i not in winners)
    for i, p in enumerate(players):
        score: Score
        if i in winners and not all_negative:
            score = _share(pot, len(winners)) if rules.scoring == "zero_sum" else 0
        else:
            score = sign * losses[i]
        scores.append(PlayerScore(p.name, values[i], score))
    return RoundResult(tuple(players[i].name for i in winners), ended_by, tuple(scores))


def _zero_sum_mode(rules: Rules) -> str | None:
    """``pool_exhausted_scoring`` where it applies (``zero_sum``); None under ``penalty_only``."""
    return rules.pool_exhausted_scoring if rules.scoring == "zero_sum" else None


def _rules_name(rules: Rules) -> str:
    """ "the sabra rules" for a preset as it is, "these rules" once a request changed it."""
    return f"the {rules.preset} rules" if PRESETS.get(rules.preset) == rules else "these rules"


def _check_players(players: Sequence[PlayerRack], rules: Rules, prefix: str) -> None:
    if len(players) not in rules.players:
        allowed = ", ".join(map(str, sorted(rules.players)))  # (as PLAYER_COUNT: 2, 4 is no range)
        raise ScoringError(
            f"{len(players)} player{'' if len(players) == 1 else 's'} cannot play under {_rules_name(rules)}"
            f" (allowed: {allowed})",
            f"{prefix}/players",
        )
    seen: set[str] = set()
    for i, p in enumerate(players):
        if p.name in seen:
            raise ScoringError(f"player name {p.name!r} appears twice", f"{prefix}/players/{i}/name")
        seen.add(p.name)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A scored match: each round's result, the totals per player and the standings, best
    first."""

    rounds: tuple[RoundResult, ...]
    totals: tuple[tuple[str, Score], ...]
    standings: tuple[str, ...]
    winners: tuple[str, ...]

    @property
    def winner(self) -> str | None:
        """The match's one winner, or None when the lowest (``penalty_only``) or highest total is shared (see
        ``winners``)."""
        return self.winners[0] if len(self.winners) == 1 else None

    def to_json(self) -> dict[str, Any]:
        """The matches/score answer (SPEC §7): every round's result, the totals, standings and winners."""
        return {
            "rounds": [r.to_json() for r in self.rounds],
            "totals": [{"name": name, "total": number(total)} for name, total in self.totals],
            "standings": list(self.standings),
            "winner": self.winner,
            "winners": list(self.winners),
        }


@dataclass(frozen=True, slots=True)
class MatchRound:
    """One round of a match: its players' racks, the declared winner if any, and rules of its
    own (a preset's name too) overriding the match's."""

    players: tuple[PlayerRack, ...]
    winner: str | None = None
    rules: Rules | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", _all_of(PlayerRack, self.players, "MatchRound.players"))
        if self.winner is not None and not isinstance(self.winner, str):
            raise TypeError(f"MatchRound.winner is a str or None, not {self.winner!r}")
        if self.rules is not None:
            object.__setattr__(self, "rules", resolve_rules(self.rules))


def score_match(rounds: Iterable[MatchRound], rules: RulesLike = SABRA) -> MatchResult:
    """Score every round (a round's own rules, if given, override the match's) and add up the
    totals per player name. Best first: highest total under ``zero_sum``, lowest under
    ``penalty_only``; players with equal totals share the place and, if first, the win.
    Rounds scoring both ways cannot be added up: an input error."""
    rounds = _all_of(MatchRound, rounds, "rounds")
    rules = resolve_rules(rules)
    if not rounds:
        raise ScoringError("a match needs at least one round", "/rounds")
    scorings = [(r.rules or rules).scoring for r in rounds]
    scoring = scorings[0]
    for i, (r, own) in enumerate(zip(rounds, scorings, strict=True)):
        if own != scoring:
            raise ScoringError(
                f"round {i} is scored {own} and round 0 {scoring}: a match's rounds are all scored one way",
                f"/rounds/{i}/rules" if r.rules else f"/rounds/{i}",
            )
    results = []
    totals: dict[str, Score] = {}
    for i, r in enumerate(rounds):
        result = score_round(r.players, r.rules or rules, r.winner, prefix=f"/rounds/{i}")
        results.append(result)
        for s in result.scores:
            totals[s.name] = totals.get(s.name, 0) + s.score
    higher_is_better = scoring == "zero_sum"
    order = sorted(totals, key=lambda name: -totals[name] if higher_is_better else totals[name])
    best = totals[order[0]]
    winners = tuple(name for name in order if totals[name] == best)
    return MatchResult(tuple(results), tuple(totals.items()), tuple(order), winners)
