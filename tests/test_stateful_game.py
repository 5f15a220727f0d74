"""Stateful (hypothesis RuleBasedStateMachine) test of the engine as a Python library: whole
rounds played through the public API only, every turn judged by ``verify_turn``.

A machine deals a round under a preset with random overrides (rules built four documented ways:
``dataclasses.replace``, the ``Rules`` constructor, ``resolve_rules`` of a request object and of
its JSON text), then plays turns made by ``engine.solver.suggest`` and by random mutations of
legal turns (move a tile between sets, swap a joker, split / merge sets, play a rack tile into
a set, a new set from the rack, take a tile off the table, re-lay or relabel sets, draw), with
random ``elapsed_seconds``. Valid turns are applied; invalid ones get the rules' penalty (the
table restored, or the kept position under ``timeout_keeps_valid_sets``; penalty tiles drawn).
At the end the round is finished by drawing and passing, scored, and the whole record replayed.

Checked at every step (see ``_check_turn`` and the invariants):
- tile conservation: table + racks + pool = the rules' tile supply, jokers included;
- every table set is valid; a valid verdict has every after-set valid (``read_set``) and
  played = rack − rack_after = after − before (multisets);
- ``verify_turn`` of equal, freshly built objects (and of ``resolve_rules``'s JSON form of the
  rules) answers the same JSON; the inputs are not mutated;
- the verdict equals ``run_operation("turns/verify", ...)`` (through the JSON forms);
- a suggestion verifies valid; ``arrange`` of a valid table's tiles is arrangeable;
- scoring: ``score_round`` = ``rounds/score``; zero-sum under ``zero_sum`` (not ``all_negative``
  after an exhausted pool); the winner's rack is empty when the round ended by ``rack_empty``;
- replay (library and ``games/replay``, continue_on_error) of the record gives the same
  verdict per turn, the same final racks and the same result.

Derandomized, 40 games of 30 steps and 25 generated records (about 15 s); ``STATEFUL_EXAMPLES``,
``STATEFUL_STEPS`` and ``STATEFUL_GENERATED`` size a longer run. ``RK_STATS=file`` appends one
JSON line per round. Written by a helper in session 56 (3,384 rounds, 145,911 turns: one finding,
``generate_game`` under ``initial_meld_min`` 0).
"""

from __future__ import annotations

import os
import random
from typing import Any

from hypothesis import HealthCheck, assume, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import (
    JOKER,
    SUPPLIES,
    PlayerRack,
    TableSet,
    Tile,
    check_meld,
    format_tiles,
    parse_tiles,
    read_set,
    resolve_rules,
    score_round,
    verify_turn,
)
from engine.replay import parse_game_record, replay_game, replay_moments
from engine.solver import arrange, suggest
from tests.stateful_support import (
    api,
    build_rules,
    counts,
    fresh_table,
    rules_specs,
    set_valid,
    supply_counts,
    table_json,
    turn_body,
)

SETTINGS = settings(
    max_examples=int(os.environ.get("STATEFUL_EXAMPLES", "40")),
    stateful_step_count=int(os.environ.get("STATEFUL_STEPS", "30")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
"""Derandomized (the same games every run); ``STATEFUL_EXAMPLES`` and ``STATEFUL_STEPS`` size a
longer run."""

SUGGEST_BUDGET = 0.3


_SUGGESTED: dict[Any, Any] = {}


def suggest_once(table: Any, rack: Any, opened: bool, rules: Any, objective: str) -> Any:
    """``suggest``, remembered by position: its last step runs against the clock (docs, Solver),
    so a position met again while hypothesis replays or shrinks a game gets the same move."""
    key = (tuple((s.codes, s.kind) for s in table), tuple(t.code for t in rack), opened, rules, objective)
    if key not in _SUGGESTED:
        _SUGGESTED[key] = suggest(table, rack, opened, rules, objective, SUGGEST_BUDGET)
    return _SUGGESTED[key]


class GameMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.started = False
        self.over = False

    # --- setup ----------------------------------------------------------------------------

    @initialize(
        spec=rules_specs(),
        how=st.sampled_from(["replace", "constructor", "resolve", "json"]),
        players_pick=st.integers(0, 10),
        seed=st.integers(0, 2**32 - 1),
    )
    def deal(self, spec: Any, how: str, players_pick: int, seed: int) -> None:
        preset, py, js = spec
        rules, request_rules = build_rules(preset, py, js, how)
        # the four ways agree (and the JSON form of the result reads back as the same rules)
        assert rules == build_rules(preset, py, js, "replace")[0] == resolve_rules(request_rules)
        assert resolve_rules(rules.to_dict()) == rules
        total = SUPPLIES[rules.tiles].total
        options = [n for n in rules.players if n * rules.deal_for(n) <= total]
        assume(options)
        n = options[players_pick % len(options)]
        self.rules, self.request_rules, self.n = rules, request_rules, n
        note(f"rules={request_rules!r} players={n} seed={seed}")
        self.rng = random.Random(seed)
        tiles = list(SUPPLIES[rules.tiles].all_tiles())
        self.rng.shuffle(tiles)
        k = rules.deal_for(n)
        self.names = [f"P{i + 1}" for i in range(n)]
        self.racks = [tiles[i * k : (i + 1) * k] for i in range(n)]
        self.dealt = [tuple(r) for r in self.racks]
        self.pool = tiles[n * k :]
        self.pool_initial = tuple(self.pool)
        self.table: list[TableSet] = []
        self.opened = [False] * n
        self.seat = 0
        self.record: list[dict[str, Any]] = []
        self.live: dict[int, dict[str, Any]] = {}  # record index -> verdict JSON of a table turn
        self.rack_after: dict[int, list[str]] = {}
        self.positions: dict[
            int, Any
        ] = {}  # record index -> (table, rack, opened) the turn was played from  # record index -> the rack after it, as replay tells it
        self.first_invalid: int | None = None
        self.passes = 0
        self.last_turns: int | None = n if not self.pool and rules.pool_exhausted_end == "one_more_turn" else None
        self.ended_by: str | None = None
        self.turns_played = 0
        self.started = True

    # --- state checks -----------------------------------------------------------------------

    @invariant()
    def conservation(self) -> None:
        if not self.started:
            return
        held = counts(t for s in self.table for t in s.tiles)
        for r in self.racks:
            held += counts(r)
        held += counts(self.pool)
        assert held == supply_counts(self.rules), (held - supply_counts(self.rules), supply_counts(self.rules) - held)

    @invariant()
    def table_valid(self) -> None:
        if not self.started:
            return
        for s in self.table:
            assert set_valid(s, self.rules), f"table set {format_tiles(s.tiles)} invalid"

    # --- one turn -------------------------------------------------------------------------

    def _elapsed(self, pick: int) -> float | None:
        limit = self.rules.turn_time_limit
        if pick % 4 == 0 or limit is None:
            return None if pick % 8 else 5.0
        return float(limit) + 1 if pick % 4 == 1 else float(limit) / 2

    def _verify(self, after: list[TableSet], elapsed: float | None, lang_pick: int = 0) -> Any:
        before = tuple(self.table)
        rack = tuple(self.racks[self.seat])
        opened = self.opened[self.seat]
        after_list = list(after)
        v = verify_turn(before, after_list, rack, opened, self.rules, elapsed)
        assert after_list == list(after), "verify_turn changed its after list"
        mine = v.to_json("en")
        note(
            f"turn {len(self.record)} {self.names[self.seat]} opened={opened} rack={format_tiles(rack)} "
            f"before={table_json(before)} after={table_json(after)} elapsed={elapsed} -> {mine}"
        )
        # equal but freshly built objects, and rules in their JSON form: the same answer
        v2 = verify_turn(
            fresh_table(before),
            fresh_table(after),
            parse_tiles(format_tiles(rack)),
            opened,
            self.request_rules,
            elapsed,
        )
        assert v2.to_json("en") == mine, ("fresh objects", v2.to_json("en"), mine)
        assert v2 == v or v2.to_json("en") == mine
        # the same sets shared with before where equal (as the service's set cache and a replay
        # hand them over): the same answer
        pool_of = {(b.codes, b.kind, b.id): b for b in before}
        shared = [pool_of.get((a.codes, a.kind, a.id), a) for a in after]
        v3 = verify_turn(before, shared, rack, opened, self.rules, elapsed)
        assert v3.to_json("en") == mine, ("shared objects", v3.to_json("en"), mine)
        # the sets listed in another order: the same verdict and codes (SPEC §4: "the verdict
        # never depends on the order in which sets or tiles are listed"; pointers may follow it)
        if len(after) > 1:
            rotated = after[1:] + after[:1]
            v4 = verify_turn(before[::-1], rotated, rack[::-1], opened, self.rules, elapsed)
            assert (v4.valid, v4.action, v4.penalty_draw, v4.jokers_freed, v4.initial_meld_value) == (
                v.valid,
                v.action,
                v.penalty_draw,
                v.jokers_freed,
                v.initial_meld_value,
            ), ("set order", v4.to_json(), mine)
            assert sorted(x.code for x in v4.violations) == sorted(x.code for x in v.violations), (
                "set order codes",
                v4.to_json(),
                mine,
            )
        # a valid opening without manipulation is worth what check_meld says of its new sets
        if v.valid and v.action == "play" and not opened and not self.rules.manipulate_on_opening_turn:
            new = list(after)
            for b in before:
                for k, a in enumerate(new):
                    if sorted(a.codes) == sorted(b.codes):
                        del new[k]
                        break
            meld = check_meld(new, rack, self.rules)
            assert meld.valid and meld.value == v.initial_meld_value, (meld.to_json(), mine)
        # the service's answer through the JSON forms
        lang = "es" if lang_pick % 5 == 4 else "en"
        body = turn_body(before, after, rack, opened, self.request_rules, elapsed)
        theirs = api("turns/verify", body, lang)
        assert theirs == v.to_json(lang), ("API", theirs, v.to_json(lang))
        # a valid verdict: every after-set valid, played = rack - rack_after = after - before
        if v.valid:
            if v.action == "play":
                # (a draw compares tiles only: a set laid again with another kind is still a draw)
                assert all(set_valid(s, self.rules) for s in after), "a valid play with an invalid after-set"
                assert counts(v.played) == counts(rack) - counts(v.rack_after)
                assert counts(v.played) == counts(t for s in after for t in s.tiles) - counts(
                    t for s in before for t in s.tiles
                )
                assert sum(counts(v.played).values()) == len(rack) - len(v.rack_after)
            else:
                assert not v.played and counts(v.rack_after) == counts(rack)
                assert counts(t for s in after for t in s.tiles) == counts(t for s in before for t in s.tiles)
        else:
            assert v.penalty_draw >= 0
        return v

    def _draw(self, seat: int) -> Tile | None:
        if not self.pool:
            return None
        tile = self.pool.pop(0)
        self.racks[seat].append(tile)
        if not self.pool and self.rules.pool_exhausted_end == "one_more_turn" and self.last_turns is None:
            self.last_turns = self.n  # each player, this one included, has one more turn
        return tile

    def _end_of_turn(self, passed: bool, pool_was_empty: bool) -> None:
        """Seat rotation and the end of the round (SPEC §6, docs/rules-engine.md Replay)."""
        name_seat = self.seat
        self.turns_played += 1
        if not self.racks[name_seat] and self.ended_by is None and self._went_out:
            self.ended_by = "rack_empty"
        if self.ended_by is None and self.rules.pool_exhausted_end == "play_on" and pool_was_empty:
            self.passes = self.passes + 1 if passed else 0
            if self.passes >= self.n:
                self.ended_by = "pool_exhausted"
        if self.ended_by is None and self.last_turns is not None and self._counts_as_last:
            self.last_turns -= 1
            if self.last_turns <= 0:
                self.ended_by = "pool_exhausted"
        self.seat = (self.seat + 1) % self.n
        if self.ended_by is not None:
            self.over = True

    def _take_turn(
        self,
        after: list[TableSet],
        elapsed: float | None,
        table_form: bool = True,
        listed_penalty: int = 0,
        lang_pick: int = 0,
    ) -> Any:
        """Judge ``after`` as this seat's turn, apply it (or its penalty) and record it."""
        pool_was_empty = not self.pool
        self._counts_as_last = self.last_turns is not None  # any turn counts once the pool is empty
        self._went_out = False
        seat = self.seat
        before_table = tuple(self.table)
        v = self._verify(after, elapsed, lang_pick)
        entry: dict[str, Any] = {"player": self.names[seat], "table": table_json(after)}
        if elapsed is not None:
            entry["elapsed_seconds"] = elapsed
        index = len(self.record)
        self.positions[index] = (before_table, tuple(self.racks[seat]), self.opened[seat])
        self.record.append(entry)
        self.live[index] = v.to_json("en")
        self.rack_after[index] = self.live[index]["rack_after"]
        passed = False
        if v.valid:
            if v.action == "draw":
                tile = self._draw(seat)
                passed = tile is None
                if tile is not None:
                    self.rack_after[index] = [*self.rack_after[index], str(tile)]
            else:
                self.table = list(after)
                self.racks[seat] = list(v.rack_after)
                self.opened[seat] = v.opened_after
                self._went_out = not v.rack_after
        else:
            if self.first_invalid is None:
                self.first_invalid = index
            if v.restore_table:
                passed = True
            else:
                assert v.kept is not None
                self.table = list(v.kept)
                self.racks[seat] = list(v.rack_after)
                self.opened[seat] = v.opened_after
                passed = not v.played  # a kept position leaving a played tile on the table is no pass
            drawn = 0
            for i in range(v.penalty_draw):
                tile = self._draw(seat)
                if tile is None:
                    break
                drawn += 1
                if i < listed_penalty:  # some penalty tiles listed as draw entries, the rest left to the replay
                    self.record.append({"player": self.names[seat], "draw": str(tile)})
            # a kept position that empties the rack with no penalty tile drawn has gone out
            self._went_out = not self.racks[seat] and drawn == 0 and not v.restore_table
        self._end_of_turn(passed, pool_was_empty)
        return v

    def _draw_turn(self, as_entry: bool) -> None:
        if self.pool and as_entry:
            pool_was_empty = False
            self._counts_as_last = self.last_turns is not None
            self._went_out = False
            seat = self.seat
            tile = self._draw(seat)
            self.record.append({"player": self.names[seat], "draw": str(tile)})
            self._end_of_turn(False, pool_was_empty)
        else:
            after = list(self.table)
            self.rng.shuffle(after)  # a draw is the table up to the order of its sets
            self._take_turn(after, None)

    # --- rules: turns ---------------------------------------------------------------------

    @precondition(lambda self: self.started and not self.over)
    @rule(as_entry=st.booleans())
    def draw(self, as_entry: bool) -> None:
        self._draw_turn(as_entry)

    @precondition(lambda self: self.started and not self.over)
    @rule(
        objective=st.sampled_from(["tiles", "value"]),
        elapsed_pick=st.integers(0, 7),
        listed=st.integers(0, 4),
        lang_pick=st.integers(0, 4),
    )
    def suggested(self, objective: str, elapsed_pick: int, listed: int, lang_pick: int) -> None:
        rack = tuple(self.racks[self.seat])
        s = suggest_once(tuple(self.table), rack, self.opened[self.seat], self.rules, objective)
        if not s.played:
            assert [tuple(x) for x in s.after] == [tuple(x.tiles) for x in self.table]
            self._draw_turn(elapsed_pick % 2 == 0)
            return
        after = [TableSet(tuple(x)) for x in s.after]
        v = self._take_turn(after, self._elapsed(elapsed_pick), listed_penalty=listed, lang_pick=lang_pick)
        if self.live[max(self.live)]["violations"] and not any(
            x["code"] == "TIME_LIMIT_EXCEEDED" for x in self.live[max(self.live)]["violations"]
        ):
            raise AssertionError(f"suggest's move does not verify: {self.live[max(self.live)]}")
        assert counts(s.played) == counts(v.played) or not v.valid

    @precondition(lambda self: self.started and not self.over)
    @rule(
        base=st.sampled_from(["table", "table", "suggest"]),
        ops=st.lists(
            st.tuples(st.integers(0, 11), st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=3
        ),
        elapsed_pick=st.integers(0, 7),
        listed=st.integers(0, 4),
        lang_pick=st.integers(0, 4),
        keep_empty=st.booleans(),
    )
    def mutated(
        self,
        base: str,
        ops: list[tuple[int, int, int]],
        elapsed_pick: int,
        listed: int,
        lang_pick: int,
        keep_empty: bool,
    ) -> None:
        rack = list(self.racks[self.seat])
        if base == "suggest":
            s = suggest_once(tuple(self.table), tuple(rack), self.opened[self.seat], self.rules, "tiles")
            sets = [list(x) for x in s.after]
            left = list(rack)
            for t in s.played:
                _remove(left, t)
            kinds: list[str | None] = [None] * len(sets)
            ids: list[str | None] = [None] * len(sets)
        else:
            sets = [list(x.tiles) for x in self.table]
            kinds = [x.kind for x in self.table]
            ids = [x.id for x in self.table]
            left = list(rack)
        for op, a, b in ops:
            _mutate(op, a, b, sets, kinds, ids, left, self.rules)
        after = [TableSet(tuple(t), k, i) for t, k, i in zip(sets, kinds, ids, strict=True) if t or keep_empty]
        self._take_turn(after, self._elapsed(elapsed_pick), listed_penalty=listed, lang_pick=lang_pick)

    @precondition(lambda self: self.started and not self.over)
    @rule(pick=st.integers(0, 10**6), lang_pick=st.integers(0, 4))
    def constructed(self, pick: int, lang_pick: int) -> None:
        """A turn legal or illegal by construction, with what the verdict must say."""
        rack = list(self.racks[self.seat])
        opened = self.opened[self.seat]
        table = [list(x.tiles) for x in self.table]
        kind = pick % 4
        if kind == 0:  # take a table tile back to the rack: TABLE_TILE_REMOVED
            spots = [(i, k) for i, x in enumerate(table) for k in range(len(x))]
            if not spots:
                return self._draw_turn(True)
            i, k = spots[pick % len(spots)]
            del table[i][k]
            v = self._take_turn([TableSet(tuple(x)) for x in table if x], None, lang_pick=lang_pick)
            assert not v.valid and "TABLE_TILE_REMOVED" in [x.code for x in v.violations], v.to_json()
            return
        if kind == 1:  # a tile played that is not on the rack (within the supply): TILE_NOT_IN_RACK
            have = counts([t for x in self.table for t in x.tiles]) + counts(rack)
            limit = supply_counts(self.rules)
            spare = [key for key in sorted(limit) if key != "J" and have[key] < limit[key] and key not in counts(rack)]
            if not spare:
                return self._draw_turn(True)
            extra = parse_tiles([spare[pick % len(spare)]])[0]
            v = self._take_turn([*self.table, TableSet((extra, extra, extra))], None, lang_pick=lang_pick)
            assert not v.valid and "TILE_NOT_IN_RACK" in [x.code for x in v.violations], v.to_json()
            return
        # legal by construction: sets laid from the rack (an opening worth the minimum), or,
        # opened, a rack tile added where it fits to a set holding no joker, or a new set
        left = list(rack)
        new_sets: list[list[Tile]] = []
        while (found := _rack_set(left, self.rules)) is not None and len(new_sets) < 4:
            new_sets.append(found)
            for t in found:
                _remove(left, t)
        value = sum(read_set(x, self.rules).value or 0 for x in new_sets)
        if not opened:
            if not new_sets or value < self.rules.initial_meld_min or not left:
                return self._draw_turn(True)
            after = [*self.table, *(TableSet(tuple(x)) for x in new_sets)]
            self._no_better_than_proven(sum(len(x) for x in new_sets))
            v = self._take_turn(after, None, lang_pick=lang_pick)
            # with manipulate_on_opening_turn the opening is worth the most the played tiles
            # could make (SPEC §4), at least these sets' value
            assert v.valid and (
                v.initial_meld_value == value
                or (self.rules.manipulate_on_opening_turn and v.initial_meld_value > value)
            ), (value, v.to_json())
            return
        if kind == 2 and new_sets:
            after = [*self.table, TableSet(tuple(new_sets[0]))]
        else:
            fits = [
                (i, pos, t)
                for t in rack
                if not t.is_joker
                for i, x in enumerate(table)
                if x and not any(u.is_joker for u in x)
                for pos in (0, len(x))
                if read_set([*x[:pos], t, *x[pos:]], self.rules).valid
            ]
            if not fits or len(rack) == 1:
                return self._draw_turn(True)
            i, pos, t = fits[pick % len(fits)]
            table[i].insert(pos, t)
            after = [TableSet(tuple(x)) for x in table]
        self._no_better_than_proven(sum(len(x.tiles) for x in after) - sum(len(x.tiles) for x in self.table))
        v = self._take_turn(after, None, lang_pick=lang_pick)
        assert v.valid and v.action == "play", v.to_json()

    def _no_better_than_proven(self, tiles_played: int) -> None:
        """A legal move playing ``tiles_played`` tiles exists: suggest's proven optimum (most
        tiles) plays at least as many."""
        s = suggest_once(tuple(self.table), tuple(self.racks[self.seat]), self.opened[self.seat], self.rules, "tiles")
        if s.optimal_proven:
            assert len(s.played) >= tiles_played, (
                "suggest's proven optimum plays fewer tiles",
                len(s.played),
                tiles_played,
            )

    @precondition(lambda self: self.started and bool(self.table))
    @rule()
    def arrange_table(self) -> None:
        tiles = [t for s in self.table for t in s.tiles]
        a = arrange(tiles, self.rules, budget_seconds=2.0)
        assert a.arrangeable is not False, f"arrange says a valid table's tiles cannot be laid: {format_tiles(tiles)}"
        if a.arrangeable:
            assert counts(t for s in a.sets for t in s) == counts(tiles)
            assert all(read_set(s, self.rules).valid for s in a.sets)

    @precondition(lambda self: self.started and self.over)
    @rule()
    def round_over(self) -> None:
        """Nothing left to play (the round ended before the steps ran out)."""
        assert self.ended_by is not None

    # --- the end --------------------------------------------------------------------------

    def teardown(self) -> None:
        if not self.started:
            return
        guard = 0
        while not self.over:  # finish the round: draw out the pool, then everyone passes
            self._draw_turn(guard % 3 != 0)
            guard += 1
            assert guard < 1000, "the round does not end"
        self._check_scores_and_replay()
        if os.environ.get("RK_STATS"):
            import json

            with open(os.environ["RK_STATS"], "a") as f:
                f.write(
                    json.dumps(
                        {
                            "rules": self.request_rules,
                            "players": self.n,
                            "ended_by": self.ended_by,
                            "entries": len(self.record),
                            "table_turns": len(self.live),
                            "valid_plays": sum(1 for v in self.live.values() if v["valid"] and v["action"] == "play"),
                            "invalid": sum(1 for v in self.live.values() if not v["valid"]),
                            "kept": sum(
                                1 for v in self.live.values() if v["penalty"] and not v["penalty"]["restore_table"]
                            ),
                            "codes": sorted({x["code"] for v in self.live.values() for x in v["violations"]}),
                        }
                    )
                    + "\n"
                )

    def _check_scores_and_replay(self) -> None:
        players = [
            PlayerRack(name, tuple(r), o) for name, r, o in zip(self.names, self.racks, self.opened, strict=True)
        ]
        result = score_round(players, self.rules)
        assert result.ended_by == self.ended_by, (result.ended_by, self.ended_by)
        body = {
            "players": [{"name": p.name, "rack": format_tiles(p.rack), "opened": p.opened} for p in players],
            "rules": self.request_rules,
        }
        assert api("rounds/score", body) == result.to_json()
        assert [(x.name, x.rack_value, x.score) for x in result.scores] == _expected_scores(
            self.rules, self.names, self.racks
        ), (result, _expected_scores(self.rules, self.names, self.racks))
        total = sum(s.score for s in result.scores)
        if self.rules.scoring == "zero_sum" and not (
            result.ended_by == "pool_exhausted" and self.rules.pool_exhausted_scoring == "all_negative"
        ):
            assert abs(total) < 1e-9, f"zero_sum round sums to {total}"
        if result.ended_by == "rack_empty":
            assert all(not self.racks[self.names.index(w)] for w in result.winners)
        doc = {
            "rules": self.request_rules,
            "players": [{"name": nm, "rack": format_tiles(r)} for nm, r in zip(self.names, self.dealt, strict=True)],
            "pool": format_tiles(self.pool_initial),
            "turns": self.record,
        }
        if self.ended_by == "pool_exhausted":
            doc["end"] = "pool_exhausted"
        replayed = replay_game(parse_game_record(doc), continue_on_error=True)
        mine = replayed.to_json("en")
        theirs = api("games/replay", {**doc, "continue_on_error": True})
        assert theirs == mine, "library replay_game and games/replay differ"
        assert mine["violations"] == [], mine["violations"]
        assert mine["first_invalid_turn"] == self.first_invalid, (mine["first_invalid_turn"], self.first_invalid)
        assert mine["result"] == result.to_json(), (mine["result"], result.to_json())
        for t in mine["turns"]:
            i = t["index"]
            if i in self.live:
                live = self.live[i]
                for key in ("valid", "played", "opened_after", "initial_meld", "jokers_freed", "penalty"):
                    assert t[key] == live[key], (i, key, t[key], live[key])
                # a draw's rack_after holds the tile drawn when the pool names it (docs, Replay)
                assert t["rack_after"] == self.rack_after[i], (i, t["rack_after"], self.rack_after[i])
                assert [(x["code"], x["at"]) for x in t["violations"]] == [
                    (
                        x["code"],
                        x["at"]
                        .replace("/after", f"/turns/{i}/table")
                        .replace("/elapsed_seconds", f"/turns/{i}/elapsed_seconds"),
                    )
                    if not x["at"].startswith("/before")
                    else (x["code"], f"/turns/{i}")
                    for x in live["violations"]
                ], (i, t["violations"], live["violations"])
            else:
                assert t["action"] in ("draw", "penalty_draw"), t
                assert t["valid"], t
        # the position of every table turn, as the replay saw it (engine.replay.replay_moments)
        moments = replay_moments(parse_game_record(doc), continue_on_error=True)
        assert len(moments) == len(self.record)
        for i, (table, rack, opened) in self.positions.items():
            m = moments[i]
            assert sorted(sorted(format_tiles(s.tiles)) for s in m.table) == sorted(
                sorted(format_tiles(s.tiles)) for s in table
            ), i
            assert sorted(format_tiles(m.rack)) == sorted(format_tiles(rack)) and m.opened == opened, i


def _expected_scores(rules: Any, names: list[str], racks: list[list[Tile]]) -> list[tuple[str, int, float]]:
    """SPEC §5 worked by hand."""
    values = [sum(rules.joker_penalty if t.is_joker else t.number for t in r) for r in racks]
    out_ = [i for i, r in enumerate(racks) if not r]
    exhausted = not out_
    winners = out_ if out_ else [i for i, v in enumerate(values) if v == min(values)]
    low = min(values)
    scores: list[float] = [0.0] * len(names)
    if rules.scoring == "penalty_only":
        scores = [0 if i in winners else values[i] for i in range(len(names))]
    elif exhausted and rules.pool_exhausted_scoring == "all_negative":
        scores = [-values[i] for i in range(len(names))]
    else:
        loss = [
            values[i] - (low if exhausted and rules.pool_exhausted_scoring == "subtract_lowest" else 0)
            for i in range(len(names))
        ]
        pot = sum(loss[i] for i in range(len(names)) if i not in winners)
        scores = [pot / len(winners) if i in winners else -loss[i] for i in range(len(names))]
    return [(names[i], values[i], scores[i]) for i in range(len(names))]


def _remove(tiles: list[Tile], t: Tile) -> bool:
    for i, x in enumerate(tiles):
        if x.key == t.key:
            del tiles[i]
            return True
    return False


def _mutate(
    op: int, a: int, b: int, sets: list[list[Tile]], kinds: list[Any], ids: list[Any], left: list[Tile], rules: Any
) -> None:
    """One random change of a table (``sets``) with the rack tiles ``left``."""
    nonempty = [i for i, s in enumerate(sets) if s]
    if op == 0 and nonempty:  # move a tile between sets
        i = nonempty[a % len(nonempty)]
        t = sets[i].pop(b % len(sets[i]))
        j = b % (len(sets) + 1)
        if j == len(sets):
            sets.append([t])
            kinds.append(None)
            ids.append(None)
        else:
            sets[j].insert(a % (len(sets[j]) + 1), t)
    elif op == 1:  # swap a table joker for a rack tile (its own tile when the rack has it)
        spots = [(i, k) for i, s in enumerate(sets) for k, t in enumerate(s) if t.is_joker]
        if not spots or not left:
            return
        i, k = spots[a % len(spots)]
        best = read_set(sets[i], rules, kinds[i]).best
        want = best.tiles[k].declared if best is not None and best.tiles[k].is_joker else None
        pick = next((x for x in left if want is not None and x.key == want.key), None)
        if pick is None or b % 5 == 0:
            pick = left[b % len(left)]
        _remove(left, pick)
        joker = sets[i][k]
        sets[i][k] = pick
        target = b % 3
        if target == 0 and len(left) >= 2:  # the joker into a new set with two rack tiles
            two = [left.pop(a % len(left)), left.pop(b % len(left))]
            sets.append([*two, JOKER if joker.declared is None or b % 2 else joker])
            kinds.append(None)
            ids.append(None)
        elif target == 1 and len(sets) > 1:  # the joker onto another set's end
            j = (i + 1 + a) % len(sets)
            if b % 2:
                sets[j].append(joker)
            else:
                sets[j].insert(0, joker)
        else:
            left.append(joker)  # back to the rack (illegal)
    elif op == 2 and nonempty:  # split a set
        i = nonempty[a % len(nonempty)]
        if len(sets[i]) >= 2:
            cut = 1 + b % (len(sets[i]) - 1)
            sets.append(sets[i][cut:])
            kinds.append(kinds[i])
            ids.append(None)
            sets[i] = sets[i][:cut]
    elif op == 3 and len(nonempty) >= 2:  # merge two sets
        i, j = nonempty[a % len(nonempty)], nonempty[b % len(nonempty)]
        if i != j:
            sets[i] = sets[i] + (sets[j] if a % 2 else sets[j][::-1])
            sets[j] = []
    elif op in (4, 5, 6) and left:  # play a rack tile into a set where it fits, else anywhere
        t = left[a % len(left)]
        fits = [
            (i, pos)
            for i, s in enumerate(sets)
            if s
            for pos in (0, len(s))
            if read_set([*s[:pos], t, *s[pos:]], rules, kinds[i]).valid
        ]
        if fits and op != 6:
            i, pos = fits[b % len(fits)]
        elif sets:
            i = b % len(sets)
            pos = a % (len(sets[i]) + 1)
        else:
            return
        _remove(left, t)
        sets[i].insert(pos, t)
    elif op == 7 and left:  # a new set from the rack: a run or group when one is there
        found = _rack_set(left, rules)
        chosen = found if found and a % 3 else [left[(a + k) % len(left)] for k in range(1 + b % 4)]
        chosen = list(chosen)
        taken = []
        for t in chosen:
            if _remove(left, t):
                taken.append(t)
        if taken:
            if b % 4 == 0 and any(t.is_joker for t in taken):
                # declare the played joker as what it stands for
                best = read_set(taken, rules).best
                if best is not None:
                    taken = (
                        [
                            x if not x.is_joker or y.declared is None else y
                            for x, y in zip(taken, best.tiles, strict=True)
                        ]
                        if len(best.tiles) == len(taken)
                        else taken
                    )
            sets.append(taken)
            kinds.append(None)
            ids.append(None)
    elif op == 8 and nonempty:  # take a tile off the table (illegal)
        i = nonempty[a % len(nonempty)]
        left.append(sets[i].pop(b % len(sets[i])))
    elif op == 9 and nonempty:  # re-lay a set: reverse or rotate its tiles
        i = nonempty[a % len(nonempty)]
        sets[i] = sets[i][::-1] if b % 2 else sets[i][1:] + sets[i][:1]
    elif op == 10 and nonempty:  # declare a kind or give an id (an id never changes a verdict)
        i = nonempty[a % len(nonempty)]
        if b % 2:
            kinds[i] = ("run", "group", None)[a % 3]
        else:
            ids[i] = f"s{a % 5}"
    elif op == 11 and len(sets) >= 2:  # list the sets in another order
        k = a % len(sets)
        for arr in (sets, kinds, ids):
            arr[:] = arr[k:] + arr[:k]


def _rack_set(rack: list[Tile], rules: Any) -> list[Tile] | None:
    """A run or group of three or more on the rack (jokers included), if any."""
    by = {(t.color, t.number): t for t in rack if not t.is_joker}
    jokers = [t for t in rack if t.is_joker]
    for c, n in sorted(by, key=lambda x: (x[0], x[1])):
        run = [by[(c, n)]]
        m = n + 1
        while (c, m) in by:
            run.append(by[(c, m)])
            m += 1
        if len(run) >= 3:
            return run
        if len(run) == 2 and jokers:
            return [*run, jokers[0]] if m <= 13 else [jokers[0], *run]
    for n in range(1, 14):
        group = [by[(c, n)] for c in "KBOR" if (c, n) in by]
        if len(group) >= 3:
            return group
        if len(group) == 2 and jokers:
            return [*group, jokers[0]]
    return None


TestGame = GameMachine.TestCase
TestGame.settings = SETTINGS


# --- generated games (engine.generate.generate_game): replay and turn-by-turn agreement --------

from hypothesis import given  # noqa: E402

from engine.generate import generate_game  # noqa: E402


@settings(SETTINGS, max_examples=int(os.environ.get("STATEFUL_GENERATED", "25")))
@given(
    spec=rules_specs(),
    how=st.sampled_from(["replace", "constructor", "resolve", "json"]),
    players_pick=st.integers(0, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_generated_game_replays(spec: Any, how: str, players_pick: int, seed: int) -> None:
    preset, py, js = spec
    rules, request_rules = build_rules(preset, py, js, how)
    total = SUPPLIES[rules.tiles].total
    options = [n for n in rules.players if n * rules.deal_for(n) <= total]
    assume(options)
    n = options[players_pick % len(options)]
    doc = generate_game(seed, n, rules)
    doc = {**doc, "rules": request_rules}
    replayed = replay_game(parse_game_record(doc))
    mine = replayed.to_json("en")
    assert mine == api("games/replay", doc)
    assert mine["valid"], [t for t in mine["turns"] if not t["valid"]][:1]
    if (
        mine["result"] is not None
        and rules.scoring == "zero_sum"
        and not (mine["result"]["ended_by"] == "pool_exhausted" and rules.pool_exhausted_scoring == "all_negative")
    ):
        assert abs(sum(s["score"] for s in mine["result"]["scores"])) < 1e-9
    # every table turn again, through verify_turn and turns/verify, from the replay's positions
    for m in replay_moments(parse_game_record(doc)):
        entry = doc["turns"][m.turn.index]
        if "table" not in entry:
            continue
        after = [TableSet(parse_tiles(s)) for s in entry["table"]]
        v = verify_turn(m.table, after, m.rack, m.opened, rules, entry.get("elapsed_seconds"))
        assert v.valid, v.to_json()
        body = turn_body(m.table, after, m.rack, m.opened, request_rules, entry.get("elapsed_seconds"))
        assert api("turns/verify", body) == v.to_json("en")
