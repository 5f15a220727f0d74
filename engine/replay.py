"""Replaying a recorded game turn by turn (SPEC §6 "Game record").

The replay checks the deal (player count and deal size of the rules, a ``pool`` holding exactly
the undealt tiles), the tile supply over the whole game, the seat rotation, every draw (against
the record's ``pool`` when it has one) and every play (with ``verify_turn``), then scores the
finished round. Racks (and pool) beyond the tile supply, or a player name twice, are input
errors (InputError, a 422): no game deals them.

The end of the round: a rack emptied by a legal play, or ``pool_exhausted_end`` once the pool
is empty. ``play_on``: the round ends when every player in turn has passed (a pass is any turn
that leaves no played tile on the table: a table turn playing nothing, an illegal turn whose
table is restored); ``one_more_turn``: each player, starting with the one after the player whose
draw (a penalty draw too) emptied the pool, or with ``players[0]`` if the pool was empty from
the start, has exactly one more turn. Any entry after the end is ``ROUND_OVER``; a ``draw`` entry
on an empty pool is ``POOL_EMPTY``; a record ``end`` that the replay did not reach is
``END_MISMATCH`` (a record violation, checked when the replay ran to the last entry or the round
ended before it stopped).

Choices where SPEC is silent (documented in docs/rules-engine.md):

- Without a ``pool``, a ``table`` turn that plays nothing while tiles remain is a draw of a
  tile the record does not name; a later play may use it (the replay assumes the unnamed draws
  were the tiles played, as long as the supply allows).
- Continuing after an illegal turn: the table is restored (or, with ``kept``, becomes the kept
  sets, the returned tiles staying on the rack), and the player draws the rules' penalty
  (``failed_turn_penalty``, or ``timeout_penalty`` for a turn only over time). Up to that many
  ``draw`` entries of that player that immediately follow are the penalty tiles (one on an
  empty pool is ``POOL_EMPTY``); tiles the record does not list come from the pool in order (or
  unnamed without a pool), at most as many as the pool still holds.
- A timed-out play that keeps its sets and empties the rack, with no penalty tile left to
  draw, ends the round: the player has gone out.
- ``result`` scores the round whenever it ended, even if a later entry or the record's ``end``
  is invalid. Tiles the record never names cannot be scored: a rack value counts the named
  tiles only, and a player's score says how many tiles it leaves out (``unnamed_tiles``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import solver
from engine.errors import InputError, pointer_token
from engine.jokers import JointSteps
from engine.rules import SABRA, Rules, RulesLike, resolve_rules
from engine.scoring import PlayerRack, RoundResult, score_round
from engine.sets import TableSet, parse_table, parse_tile_list, share_equal_sets
from engine.solver import Suggestion
from engine.tiles import JOKER, Tile, format_tiles, parse_tile, tiles_without
from engine.turns import TurnVerdict, check_budget, same_table, verify_turn
from engine.validate import supply_params, supply_violations
from engine.violations import Violation

REPLAY_JOINT_STEPS = 200_000
"""The steps of the joker checks' joint searches (``engine.jokers.JOINT_CHECK_STEPS`` per turn)
that all the turns of one record share: about 1 s. A record continuing
after errors may hold a thousand turns, each as costly (a freed joker's hosts under
``other_set``, locked sets or ``new_set_with_two_rack_tiles``, with three copies of each tile):
710 of them took 198 s, now 2.7 s (the worst-cost audit, session 40); once these steps are
spent, the record's later turns stand as judged set by set (a few milliseconds each), as a
single turn does past its own. Turns of real games take a few steps, if any."""


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
    rules: Rules = SABRA


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a player who drew (or passed) could have played instead: the solver's best move
    (most tiles) on the table and rack of that moment. ``play_existed``: True when a play was
    found, False when none exists (proven), None when none was found and none was proven
    impossible (the search could not decide, or was not run: ``searched`` false, the record's
    analysis budget spent before this turn). ``opening`` marks a player who had not opened yet
    (a found play is then an opening that came later than it could have); ``rack_known`` is
    false when the record's unnamed draws hide part of the rack."""

    play_existed: bool | None
    opening: bool
    rack_known: bool
    best: Suggestion | None
    optimal_proven: bool
    budget_exhausted: bool
    searched: bool = True

    def to_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "play_existed": self.play_existed,
            "opening": self.opening,
            "rack_known": self.rack_known,
            "best": None
            if best is None or not best.played
            else {
                "played": format_tiles(best.played),
                "after": [format_tiles(s) for s in best.after],
                "value": best.value,
                "changes": None if best.changes is None else best.changes.to_json(),
                "least_change_proven": best.least_change_proven,
            },
            "optimal_proven": self.optimal_proven,
            "budget_exhausted": self.budget_exhausted,
        }


@dataclass(frozen=True, slots=True)
class ReplayedTurn:
    """The verdict on one recorded turn. ``verdict`` is set for plays (and passes/draws given
    as a table); ``tile`` for a recorded draw; ``penalty_draws`` lists the turn indices of the
    record's draw entries consumed as this turn's penalty."""

    index: int
    player: str
    action: str  # "play" | "draw" | "pass" | "penalty_draw" | "round_over"
    violations: tuple[Violation, ...] = ()
    verdict: TurnVerdict | None = None
    tile: Tile | None = None
    analysis: Analysis | None = None
    unnamed_left: int = 0
    """Tiles the record never names (drawn without a ``pool``) that the player still holds
    after the turn: ``rack_after`` does not list them, and the player has not gone out."""
    went_out: bool = False
    """An invalid play after which the player has gone out all the same (a timed-out play
    keeping its sets and the last tile, drawing no penalty tile)."""

    @property
    def valid(self) -> bool:
        return not self.violations

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "player": self.player,
            "action": self.action,
            "valid": self.valid,
            "violations": [v.to_json(lang) for v in self.violations],
        }
        if self.tile is not None:
            out["tile"] = str(self.tile)
        if self.analysis is not None:
            out["analysis"] = self.analysis.to_json()
        if self.verdict is not None:
            verdict = self.verdict.to_json(lang)
            for key in (
                "played",
                "rack_after",
                "opened_after",
                "initial_meld",
                "jokers_freed",
                "rack_empty",
                "penalty",
            ):
                out[key] = verdict[key]
            # (a play of every named tile still leaves the unnamed draws)
            out["rack_empty"] = (verdict["rack_empty"] or self.went_out) and not self.unnamed_left
            if not self.verdict.jokers_exact:
                out["jokers_exact"] = False
        return out


@dataclass(frozen=True, slots=True)
class ReplayResult:
    turns: tuple[ReplayedTurn, ...]
    first_invalid_turn: int | None
    result: RoundResult | None
    violations: tuple[Violation, ...] = ()
    ended_by: str | None = None
    analyzed: bool = False
    unnamed_tiles: tuple[tuple[str, int], ...] = ()  # per player, tiles the record never names

    @property
    def valid(self) -> bool:
        return self.first_invalid_turn is None and not self.violations

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        result = None if self.result is None else self.result.to_json()
        if result is not None:
            unnamed = dict(self.unnamed_tiles)
            for score in result["scores"]:
                if score["name"] in unnamed:
                    score["unnamed_tiles"] = unnamed[score["name"]]
        out = {
            "valid": self.valid,
            "turns": [t.to_json(lang) for t in self.turns],
            "first_invalid_turn": self.first_invalid_turn,
            "result": result,
            "violations": [v.to_json(lang) for v in self.violations],
        }
        if self.analyzed:
            analyses = [(t.index, t.analysis) for t in self.turns if t.analysis is not None]
            out["analysis"] = {
                "draws_analyzed": sum(1 for _, a in analyses if a.searched),
                "draws_not_searched": sum(1 for _, a in analyses if not a.searched),
                "missed_plays": [i for i, a in analyses if a.play_existed],
                "late_openings": [i for i, a in analyses if a.play_existed and a.opening],
                "undecided": [i for i, a in analyses if a.play_existed is None],
                "budget_exhausted": any(a.budget_exhausted for _, a in analyses),
            }
        return out


def parse_game_record(doc: Any) -> GameRecord:
    """A game record (SPEC §6) from its JSON form. Raises InputError with a pointer."""
    if not isinstance(doc, Mapping):
        raise InputError("a game record must be an object")
    unknown = set(doc) - {"rules", "players", "pool", "turns", "end", "analyze"}
    if unknown:
        key = sorted(unknown)[0]
        raise InputError(f"unknown field {key!r} in a game record", f"/{pointer_token(key)}")
    try:
        rules = resolve_rules(doc.get("rules"))
    except InputError as exc:
        raise exc.under("/rules") from None
    players = doc.get("players")
    if not isinstance(players, list) or not players:
        raise InputError("'players' must be a non-empty array", "/players")
    parsed_players = []
    for i, p in enumerate(players):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str):
            raise InputError("each player needs a 'name' string and a 'rack'", f"/players/{i}")
        parsed_players.append(RecordedPlayer(p["name"], parse_tile_list(p.get("rack"), f"/players/{i}/rack")))
    pool = None if doc.get("pool") is None else parse_tile_list(doc["pool"], "/pool")
    turns = doc.get("turns", [])
    if not isinstance(turns, list):
        raise InputError("'turns' must be an array", "/turns")
    end = doc.get("end")
    if end not in (None, "pool_exhausted"):
        raise InputError("'end' must be 'pool_exhausted' when given", "/end")
    return GameRecord(
        tuple(parsed_players), _shared_sets(_turn(t, f"/turns/{i}") for i, t in enumerate(turns)), pool, end, rules
    )


def _shared_sets(turns: Iterable[RecordedTurn]) -> tuple[RecordedTurn, ...]:
    """The turns with every set that recurs across them as one shared TableSet
    (:func:`engine.sets.share_equal_sets`)."""
    turns = list(turns)
    tables = iter(share_equal_sets(t.table for t in turns if t.table is not None))
    return tuple(t if t.table is None else dataclasses.replace(t, table=next(tables)) for t in turns)


def _turn(value: Any, pointer: str) -> RecordedTurn:
    if not isinstance(value, Mapping) or not isinstance(value.get("player"), str):
        raise InputError("each turn needs a 'player' name and either 'draw' or 'table'", pointer)
    if ("draw" in value) == ("table" in value):
        raise InputError("a turn has exactly one of 'draw' and 'table'", pointer)
    elapsed = value.get("elapsed_seconds")
    if elapsed is not None and (
        isinstance(elapsed, bool) or not isinstance(elapsed, int | float) or not 0 <= elapsed < math.inf
    ):
        raise InputError("'elapsed_seconds' must be a non-negative number", f"{pointer}/elapsed_seconds")
    if "draw" in value:
        try:
            tile = parse_tile(value["draw"])
        except InputError as exc:
            raise exc.under(f"{pointer}/draw") from None
        return RecordedTurn(value["player"], draw=tile.undeclared(), elapsed_seconds=elapsed)
    return RecordedTurn(value["player"], table=parse_table(value["table"], f"{pointer}/table"), elapsed_seconds=elapsed)


def _relocate(v: Violation, index: int) -> Violation:
    """Move a verify_turn pointer into the record: ``/after/...`` → ``/turns/i/table/...``;
    the before table and the rack are the state at turn ``i``."""
    turn = f"/turns/{index}"
    if v.at.startswith("/after"):
        at = f"{turn}/table" + v.at[len("/after") :]
    elif v.at == "/elapsed_seconds":
        at = f"{turn}/elapsed_seconds"
    else:
        at = turn
    return Violation(v.code, at, v.params, v.set_code)


@dataclass
class _State:
    """Mutable replay state (local to one replay_game call)."""

    record: GameRecord
    rules: Rules
    names: list[str]
    continue_on_error: bool
    table: tuple[TableSet, ...] = ()
    racks: list[list[Tile]] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)  # unnamed draws per player (no pool)
    opened: list[bool] = field(default_factory=list)
    pool_left: int = 0
    pool_next: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    seat: int = 0
    passes: int = 0  # turns in a row, since the pool ran out, that left no played tile on the table
    final_turns: int | None = None  # one_more_turn: turns left once the pool has run out
    ended_by: str | None = None
    owed_seat: int = -1  # the penalised player, while penalty tiles are still owed
    owed: int = 0
    # verdicts by turn (verify_turn is pure): a record continuing after errors may repeat one
    # illegal turn, each costing its verdict again (joker searches: tenths of a second)
    verdicts: dict[tuple[object, ...], TurnVerdict] = field(default_factory=dict)
    joint_steps: JointSteps = field(default_factory=lambda: JointSteps(REPLAY_JOINT_STEPS))

    def draw_from_pool(self) -> Tile | None:
        """Take the next pool tile (None: the record has no pool, the tile is unnamed)."""
        self.pool_left -= 1
        if self.pool_left == 0:
            self.pool_ran_out()
        if self.record.pool is None:
            return None
        tile = self.record.pool[self.pool_next]
        self.pool_next += 1
        return tile

    def pool_ran_out(self) -> None:
        """Under ``one_more_turn`` every player, starting with the next one, has one more turn."""
        if self.rules.pool_exhausted_end == "one_more_turn" and self.final_turns is None:
            self.final_turns = len(self.names)

    def settle_penalty(self) -> None:
        """Penalty tiles the record does not list: the next pool tiles (or unnamed), as many
        as the pool still holds."""
        if not self.owed:
            return
        for _ in range(min(self.owed, self.pool_left)):
            _take(self, self.owed_seat, self.draw_from_pool())
        self.owed = 0
        self.end_if_out(self.owed_seat)

    def end_if_out(self, seat: int) -> None:
        """A player left with no tile (a timed-out play kept every set and no penalty tile came:
        the pool held none, or a penalty draw entry was refused) has gone out."""
        if seat >= 0 and self.ended_by is None and not self.racks[seat] and not self.unknown[seat]:
            self.ended_by = "rack_empty"

    def close_turn(self, outcome: ReplayedTurn, pool_was_empty: bool, was_final: bool) -> None:
        """Seat rotation and the end of the round under ``pool_exhausted_end`` after a turn
        (penalty draws are not turns)."""
        if outcome.action == "round_over":
            return
        self.seat = (self.seat + 1) % len(self.names)
        if self.ended_by is not None:
            return
        self.passes = self.passes + 1 if pool_was_empty and not _placed(outcome) else 0
        if self.rules.pool_exhausted_end == "play_on" and self.passes == len(self.names):
            self.ended_by = "pool_exhausted"
        if was_final and self.final_turns is not None:
            self.final_turns -= 1
            if self.final_turns == 0:
                self.ended_by = "pool_exhausted"


def _placed(outcome: ReplayedTurn) -> bool:
    """The turn left a played tile on the table: a legal play, or a timed-out play whose valid
    sets stay (``kept``). Anything else, once the pool is empty, is a pass."""
    verdict = outcome.verdict
    return verdict is not None and verdict.action == "play" and (outcome.valid or verdict.kept is not None)


def replay_game(
    record: GameRecord,
    rules: RulesLike | None = None,
    continue_on_error: bool = False,
    analyze: bool = False,
    analyze_budget_seconds: float = 5.0,
    search_budget_seconds: float = 1.0,
) -> ReplayResult:
    """Replay ``record`` under ``rules`` (default: the record's own). Stops at the first
    illegal turn unless ``continue_on_error``. With ``analyze``, every legal draw or pass is
    checked with the solver for a play the player missed, within ``analyze_budget_seconds``
    for the whole record (each search gets at most ``search_budget_seconds`` of what is left). Raises
    InputError for a record naming a player twice; racks and a pool beyond the tile supply, a
    player count or deal the rules do not allow and a pool that is not the undealt tiles are
    record violations of the result (SPEC §6), not exceptions."""
    for name, flag in (("continue_on_error", continue_on_error), ("analyze", analyze)):
        if type(flag) is not bool:
            raise TypeError(f"{name} is True or False, not {flag!r}")
    check_budget(analyze_budget_seconds, "analyze_budget_seconds")
    check_budget(search_budget_seconds, "search_budget_seconds")
    if analyze:
        solver.prepare()  # loading the solver (about a second cold) is not part of the budget
    deadline = time.perf_counter() + analyze_budget_seconds
    search = (deadline, search_budget_seconds)
    rules = record.rules if rules is None else resolve_rules(rules)
    game_violations = _check_deal(record, rules)
    if game_violations:
        return ReplayResult((), None, None, tuple(game_violations))
    state = _start(record, rules, continue_on_error)
    replayed: list[ReplayedTurn] = []
    first_invalid: int | None = None
    stopped = False
    for index, turn in enumerate(record.turns):
        outcome = _next_turn(state, index, turn, analyze, search)
        replayed.append(outcome)
        if not outcome.valid:
            first_invalid = index if first_invalid is None else first_invalid
            if not continue_on_error:
                stopped = True
                break
    end_violations: tuple[Violation, ...] = ()
    if not stopped:
        state.settle_penalty()
    if not stopped or state.ended_by is not None:  # (a round that ended has its end, stopped or not)
        end_violations = _check_end(state)
    result = None
    if state.ended_by is not None:
        players = [PlayerRack(name, tuple(state.racks[i]), state.opened[i]) for i, name in enumerate(state.names)]
        result = score_round(players, rules, unnamed=state.unknown)
    unnamed = tuple((name, state.unknown[i]) for i, name in enumerate(state.names) if state.unknown[i])
    return ReplayResult(tuple(replayed), first_invalid, result, end_violations, state.ended_by, analyze, unnamed)


def _start(record: GameRecord, rules: Rules, continue_on_error: bool) -> _State:
    names = [p.name for p in record.players]
    state = _State(record, rules, names, continue_on_error)
    state.racks = [list(p.rack) for p in record.players]
    state.unknown = [0] * len(names)
    state.opened = [False] * len(names)
    dealt = sum(len(p.rack) for p in record.players)
    state.pool_left = len(record.pool) if record.pool is not None else rules.supply.total - dealt
    for p in record.players:
        state.seen.update(t.key for t in p.rack)
    if state.pool_left == 0:
        state.pool_ran_out()
    return state


def _next_turn(
    state: _State, index: int, turn: RecordedTurn, analyze: bool, search: tuple[float, float]
) -> ReplayedTurn:
    """One record entry: a penalty draw owed by the last illegal turn, or the next turn."""
    if state.owed and turn.draw is not None and turn.player == state.names[state.owed_seat]:
        state.owed -= 1
        outcome = _recorded_draw(state, index, turn, state.owed_seat, "penalty_draw")
        if not state.owed:
            state.end_if_out(state.owed_seat)
        return outcome
    state.settle_penalty()
    seat = state.seat
    moment = (state.table, tuple(state.racks[seat]), state.opened[seat], state.unknown[seat] == 0)
    pool_was_empty, was_final = state.pool_left == 0, state.final_turns is not None
    outcome = _replay_turn(state, index, turn)
    if analyze and outcome.valid and outcome.action in ("draw", "pass"):
        outcome = dataclasses.replace(outcome, analysis=_analyze(*moment, state.rules, *search))
    state.close_turn(outcome, pool_was_empty, was_final)
    verdict = outcome.verdict
    if not outcome.valid and verdict is not None and state.ended_by is None:
        state.owed_seat, state.owed = seat, verdict.penalty_draw
    return outcome


def _check_end(state: _State) -> tuple[Violation, ...]:
    """END_MISMATCH when the record's ``end`` claims a pool-exhausted end the replay did not
    reach (the pool still holds tiles, not every player has passed, last turns remain, or a
    player went out)."""
    if state.record.end is None or state.ended_by == "pool_exhausted":
        return ()
    params: dict[str, Any] = {"end": state.record.end}
    if state.ended_by == "rack_empty":
        out = next(i for i, rack in enumerate(state.racks) if not rack and not state.unknown[i])
        params.update(case="rack_empty", player=state.names[out])
    elif state.pool_left:
        params.update(case="pool_left", count=state.pool_left)
    elif state.final_turns is not None:
        # (every player: "every player still has…", not "2 of the 2 players": session 60)
        case = "every_turn" if state.final_turns == len(state.names) else "one_more_turn"
        params.update(case=case, count=state.final_turns, players=len(state.names))
    else:
        case = "play_on" if state.passes else "no_pass"  # ("only 0 of the 4 players have passed")
        params.update(case=case, passes=state.passes, players=len(state.names))
    return (Violation("END_MISMATCH", "/end", params),)


def _analyze(
    table: tuple[TableSet, ...],
    rack: tuple[Tile, ...],
    opened: bool,
    rack_known: bool,
    rules: Rules,
    deadline: float,
    most: float,
) -> Analysis:
    budget = min(most, deadline - time.perf_counter())
    if not rack:
        return Analysis(False, not opened, rack_known, None, True, False)
    if budget <= 0:
        return Analysis(None, not opened, rack_known, None, False, True, searched=False)
    # the first best move found, with its change list: the least-change tie break would cost
    # more than the whole analysis budget on a long game (tests/test_least_change.py, bench)
    best = solver.suggest(table, rack, opened, rules, "tiles", budget, tie_break="any")
    existed = True if best.played else False if best.optimal_proven else None
    return Analysis(existed, not opened, rack_known, best, best.optimal_proven, best.budget_exhausted)


def _check_deal(record: GameRecord, rules: Rules) -> list[Violation]:
    """Record-level problems (TILE_SUPPLY_EXCEEDED, PLAYER_COUNT, DEAL_SIZE, POOL_MISMATCH); a
    record with a name twice raises InputError. Racks and a pool beyond the tile supply make
    an invalid record (SPEC §6: replay checks the tile supply; a pool that is not exactly the
    undealt tiles makes the record invalid), each excess at the entry where it appears."""
    groups: list[tuple[str, Sequence[Tile]]] = [(f"/players/{i}/rack", p.rack) for i, p in enumerate(record.players)]
    if record.pool is not None:
        groups.append(("/pool", record.pool))
    names: set[str] = set()
    for i, p in enumerate(record.players):
        if p.name in names:
            raise InputError(f"player name {p.name!r} appears twice", f"/players/{i}/name")
        names.add(p.name)
    # every problem of the record is told (session 42: an excess hid the deal's and the pool's)
    out = supply_violations(groups, rules, at_entry=True)
    count = len(record.players)
    if count not in rules.players:
        # no deal is defined for this count (no DEAL_SIZE), but the pool still must make up
        # the tile set (an independent audit, session 49: PLAYER_COUNT hid POOL_MISMATCH)
        allowed = ", ".join(str(n) for n in rules.players)
        params = {"count": count, "allowed": allowed} | ({"case": "one"} if count == 1 else {})
        out.append(Violation("PLAYER_COUNT", "/players", params))
    else:
        expected = rules.deal_for(count)
        out += [
            Violation(
                "DEAL_SIZE",
                f"/players/{i}/rack",
                {"player": p.name, "count": len(p.rack), "expected": expected, "players": count},
            )
            for i, p in enumerate(record.players)
            if len(p.rack) != expected
        ]
    if record.pool is not None:
        mismatch = _pool_mismatch(groups, rules)
        if mismatch is not None:
            out.append(mismatch)
    return out


def _pool_mismatch(groups: Sequence[tuple[str, Sequence[Tile]]], rules: Rules) -> Violation | None:
    """POOL_MISMATCH: racks and pool do not make up the whole tile set (tiles missing from it;
    copies beyond it are ``TILE_SUPPLY_EXCEEDED``). ``groups`` ends with the pool."""
    missing = format_tiles(tiles_without(rules.supply.all_tiles(), [t for _, tiles in groups for t in tiles]))
    if not missing:
        return None
    pool = len(groups[-1][1])
    dealt = sum(len(tiles) for _, tiles in groups[:-1])
    params: dict[str, Any] = {"count": pool, "expected": max(0, rules.supply.total - dealt)}
    params["missing"] = " ".join(missing[:12])
    if len(missing) > 12:  # (worded in the message's language: "and 65 more", "y 65 más")
        params.update(case="more", more=len(missing) - 12)
    elif len(missing) == 1:  # ("falta: J", not "faltan")
        params["case"] = "one"
    return Violation("POOL_MISMATCH", "/pool", params)


def _replay_turn(state: _State, index: int, turn: RecordedTurn) -> ReplayedTurn:
    at = f"/turns/{index}"
    if state.ended_by is not None:
        return ReplayedTurn(index, turn.player, "round_over", (Violation("ROUND_OVER", at, {"turn": index}),))
    names = state.names
    if turn.player not in names:
        return ReplayedTurn(
            index,
            turn.player,
            _unjudged_action(state, turn),
            (Violation("UNKNOWN_PLAYER", f"{at}/player", {"turn": index, "player": turn.player}),),
        )
    expected = names[state.seat]
    if turn.player != expected:
        return ReplayedTurn(
            index,
            turn.player,
            _unjudged_action(state, turn),
            (Violation("WRONG_PLAYER", f"{at}/player", {"turn": index, "player": turn.player, "expected": expected}),),
        )
    if turn.draw is not None:
        return _recorded_draw(state, index, turn, state.seat, "draw")
    assert turn.table is not None
    return _table_turn(state, index, turn, turn.table)


def _unjudged_action(state: _State, turn: RecordedTurn) -> str:
    """The action of an entry not judged (by a player not on turn): a draw entry draws; a table
    entry leaving the table as it is draws too, or passes once the pool is empty, as a judged
    one would (the games audit of session 46: it said "play")."""
    if turn.table is None:
        return "draw"
    if same_table(state.table, turn.table):
        return "draw" if state.pool_left else "pass"
    return "play"


def _table_turn(state: _State, index: int, turn: RecordedTurn, after: tuple[TableSet, ...]) -> ReplayedTurn:
    seat = state.seat
    rack = _rack_for(state, seat, after)
    judged = rack or _stand_in(state)
    limit, elapsed = state.rules.turn_time_limit, turn.elapsed_seconds
    # the time counts only over the limit (TIME_LIMIT_EXCEEDED): within it, any is the same turn
    over = elapsed if limit is not None and elapsed is not None and elapsed > limit else None
    key = (state.table, after, tuple(judged), state.opened[seat], over)
    verdict = state.verdicts.get(key)
    if verdict is None:
        verdict = state.verdicts[key] = verify_turn(
            state.table, after, judged, state.opened[seat], state.rules, turn.elapsed_seconds, state.joint_steps
        )
    if not rack:  # the stand-in for unnamed tiles is no tile of the player's
        verdict = dataclasses.replace(verdict, rack_after=())
    elif verdict.violations and verdict.kept is None:
        # restored: the unnamed draws assumed to be the play's tiles stay unnamed
        verdict = dataclasses.replace(verdict, rack_after=tuple(state.racks[seat]))
    violations = tuple(_relocate(v, index) for v in verdict.violations)
    if verdict.action == "draw":
        action = "draw" if state.pool_left else "pass"
        tile = None
        if action == "draw" and not violations:
            tile = state.draw_from_pool()
            _take(state, seat, tile)
            if tile is not None:  # named: on the rack after the turn, as after a draw entry
                verdict = dataclasses.replace(verdict, rack_after=(*verdict.rack_after, tile))
        return ReplayedTurn(index, turn.player, action, violations, verdict, tile)
    if not violations:
        _commit(state, seat, rack, verdict, after)
    elif verdict.kept is not None:  # (stopping here or not: the round may end with it)
        _commit(state, seat, rack, verdict, verdict.kept)
    # (once committed, the unnamed draws the play's tiles did not account for)
    out = ReplayedTurn(index, turn.player, "play", violations, verdict, unnamed_left=state.unknown[seat])
    if violations and state.ended_by == "rack_empty":
        # a timed-out play keeping its sets and its last tile, with no penalty tile left to
        # draw: the player has gone out (session 42; before, rack_empty false as the round ended)
        out = dataclasses.replace(out, went_out=True)
    return out


def _commit(
    state: _State, seat: int, rack: tuple[Tile, ...], verdict: TurnVerdict, table: tuple[TableSet, ...]
) -> None:
    """The position a play leaves: ``table`` (``after``, or the sets a timed-out turn keeps),
    the rack and ``opened`` as the verdict describes them. A player whose rack is then empty
    (and who draws no penalty tile) has gone out."""
    state.table = table
    _commit_rack(state, seat, rack, verdict)
    state.opened[seat] = verdict.opened_after
    if verdict.valid or not min(verdict.penalty_draw, state.pool_left):
        state.end_if_out(seat)


def _rack_for(state: _State, seat: int, after: tuple[TableSet, ...]) -> tuple[Tile, ...]:
    """The player's rack for verifying a play: named tiles plus, without a pool, the unnamed
    draws assumed to be the tiles this play needs (within the supply)."""
    rack = tuple(state.racks[seat])
    if not state.unknown[seat]:
        return rack
    before_keys = Counter(t.key for s in state.table for t in s.tiles)
    after_tiles = [t for s in after for t in s.tiles]
    played = Counter(t.key for t in after_tiles) - before_keys
    played_tiles = [t.undeclared() for t in after_tiles if played[t.key] > 0 and not played.subtract([t.key])]
    needed = tiles_without(played_tiles, rack)
    assumed: Counter[str] = Counter()
    left = state.unknown[seat]
    for tile in needed:  # (a tile whose copies are all seen is no unnamed draw: the next one may be)
        if not left:
            break
        if state.seen[tile.key] + assumed[tile.key] < state.rules.supply.limit(tile.key):
            assumed[tile.key] += 1
            rack += (tile,)
            left -= 1
    return rack


def _stand_in(state: _State) -> tuple[Tile, ...]:
    """For a player whose named tiles are all gone but who holds unnamed draws (no pool): one
    tile of the supply not yet seen, so that a turn playing nothing can be judged (a play that
    needed tiles would have found them among the unnamed draws)."""
    supply = state.rules.supply
    return next(((t,) for t in supply.all_tiles() if state.seen[t.key] < supply.limit(t.key)), (JOKER,))


def _commit_rack(state: _State, seat: int, rack: tuple[Tile, ...], verdict: TurnVerdict) -> None:
    assumed = len(rack) - len(state.racks[seat])
    for tile in rack[len(state.racks[seat]) :]:
        state.seen[tile.key] += 1
    state.unknown[seat] -= assumed
    state.racks[seat] = list(verdict.rack_after)


def _take(state: _State, seat: int, tile: Tile | None) -> None:
    if tile is None:
        state.unknown[seat] += 1
    else:
        state.racks[seat].append(tile)
        state.seen[tile.key] += 1


def _recorded_draw(state: _State, index: int, turn: RecordedTurn, seat: int, action: str) -> ReplayedTurn:
    """A ``draw`` entry: checked against the pool's next tile, or the supply without a pool."""
    at = f"/turns/{index}/draw"
    tile = turn.draw
    assert tile is not None
    if state.pool_left == 0:
        return ReplayedTurn(index, turn.player, action, (Violation("POOL_EMPTY", at, {}),), tile=tile)
    if state.record.pool is not None:
        expected = state.record.pool[state.pool_next]
        if expected.key != tile.key:
            return ReplayedTurn(
                index,
                turn.player,
                action,
                (Violation("DRAW_MISMATCH", at, {"tile": str(tile), "expected": str(expected)}),),
                tile=tile,
            )
        state.draw_from_pool()
        state.racks[seat].append(tile)
    else:
        limit = state.rules.supply.limit(tile.key)
        if state.seen[tile.key] + 1 > limit:
            params = supply_params(tile.key, limit, state.seen[tile.key] + 1, state.rules.supply.name)
            return ReplayedTurn(index, turn.player, action, (Violation("TILE_SUPPLY_EXCEEDED", at, params),), tile=tile)
        state.draw_from_pool()
        _take(state, seat, tile)
    return ReplayedTurn(index, turn.player, action, (), tile=tile)


@dataclass(frozen=True, slots=True)
class Moment:
    """The position a recorded turn was played from (for pictures): the table, the rack and
    opened flag of the player moving (for a penalty draw, the penalised player), and what the
    replay found on that turn."""

    table: tuple[TableSet, ...]
    rack: tuple[Tile, ...]
    opened: bool
    turn: ReplayedTurn
    player: str = ""
    """Whose rack and opened flag these are: the player due (or penalised), who is not the
    turn's ``player`` under WRONG_PLAYER or UNKNOWN_PLAYER."""


def replay_moments(record: GameRecord, rules: RulesLike | None = None, continue_on_error: bool = False) -> list[Moment]:
    """Replay ``record`` as :func:`replay_game` does (without analysis) and give, for each turn
    replayed, the position it was played from. Empty when the record itself is not a legal deal.
    Raises InputError as :func:`replay_game` does."""
    rules = record.rules if rules is None else resolve_rules(rules)
    if _check_deal(record, rules):
        return []
    state = _start(record, rules, continue_on_error)
    moments: list[Moment] = []
    for index, turn in enumerate(record.turns):
        penalty = bool(state.owed and turn.draw is not None and turn.player == state.names[state.owed_seat])
        if not penalty:
            state.settle_penalty()  # what _next_turn does first; settling twice changes nothing
        seat = state.owed_seat if penalty else state.seat
        table, rack, opened = state.table, tuple(state.racks[seat]), state.opened[seat]
        outcome = _next_turn(state, index, turn, False, (0.0, 0.0))
        moments.append(Moment(table, rack, opened, outcome, state.names[seat]))
        if not outcome.valid and not continue_on_error:
            break
    return moments
