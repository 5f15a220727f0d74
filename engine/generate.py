"""Legal-game generator for tests and benchmarks, and a one-turn corrupter for negative tests.

``generate_game(seed, players, rules)`` deals a ``random.Random(seed)`` shuffle of the rules'
tile supply and plays a complete round with a simple greedy strategy, returning a game
record in the JSON form of SPEC §6 (``players`` with their dealt racks, ``pool`` in draw
order, ``turns``, ``end``). The strategy, for the player on turn:

- not yet opened: lay every set found on the rack (runs and groups, jokerless sets first,
  then a pair plus a joker) if together they reach ``initial_meld_min``; otherwise draw.
  When ``manipulate_on_opening_turn`` is set, the opening may go on with the moves below.
- opened: repeat, in this priority order, the first move that keeps the turn legal:
  a new set from the rack; replace a table joker with the tile it stands for and reuse the
  freed joker in a new set with two rack tiles; take the fourth tile of a group or an end
  tile of a run (four or more long) into a new set with rack tiles; split a long run by
  adding a duplicate of one of its middle tiles (R3..R9 + R6 → R3..R6, R6..R9); extend a
  run at either end or a group to four; finally put a rack joker at the end of a run.
- a player who cannot play draws the next pool tile; once the pool is empty they pass (a
  ``table`` turn with the unchanged table). The round ends when a rack is empty or, once the
  pool is empty, as ``pool_exhausted_end`` says (``"end": "pool_exhausted"``): under
  ``play_on`` when every player has passed once in a row, under ``one_more_turn`` after one
  more turn each, starting after the player whose draw emptied the pool.

Every candidate turn state is checked with ``engine.turns.verify_turn`` under the same rules
before it is accepted; a rejected candidate is skipped (the player falls back to a simpler
move, or draws). Runs are always laid in ascending order and every set made here holds at
least two numbered tiles, so each set has a single kind and a joker's tile is known.

``corrupt_game(record, seed)`` changes exactly one play turn so that it breaks one rule and
returns the corrupted record, the turn's index and the violation code it must produce.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.rules import PRESETS, SABRA, Rules, resolve_rules
from engine.sets import RUN, TableSet, read_set
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, format_tiles, numbered, parse_tiles, tiles_without
from engine.turns import TurnVerdict, verify_turn

Tiles = list[Tile]
Table = list[Tiles]
Move = tuple[str, Table, Tiles]  # (kind, table after the move, rack after the move)

MAX_STEPS = 12
"""Most moves one turn may chain."""
MAX_CHECKS = 40
"""Most candidate states one turn may send to verify_turn."""

# --- small tile helpers ----------------------------------------------------------------


def _keys(tiles: Sequence[Tile]) -> Counter[str]:
    return Counter(t.key for t in tiles)


def _find(rack: Sequence[Tile], color: str, number: int) -> Tile | None:
    if not MIN_NUMBER <= number <= MAX_NUMBER:
        return None
    tile = numbered(color, number)
    return tile if tile in rack else None


def _value(tiles: Sequence[Tile], rules: Rules) -> int:
    return read_set(tiles, rules).value or 0


def _as_sets(table: Table) -> list[TableSet]:
    return [TableSet(tuple(s)) for s in table]


@dataclass(frozen=True, slots=True)
class _Run:
    color: str
    first: int
    last: int


def _run_of(tiles: Sequence[Tile], rules: Rules) -> _Run | None:
    """Colour and span of a valid run laid in ascending order (None for anything else)."""
    reading = read_set(tiles, rules)
    best = reading.best
    if best is None or best.kind != RUN or len(reading.readings) != 1:
        return None
    ends = [t if t.color is not None else t.declared for t in (best.tiles[0], best.tiles[-1])]
    if ends[0] is None or ends[1] is None or ends[0].number > ends[1].number:
        return None
    return _Run(ends[0].color or "", ends[0].number, ends[1].number)


def _is_group(tiles: Sequence[Tile], rules: Rules) -> bool:
    best = read_set(tiles, rules).best
    return best is not None and best.kind != RUN


# --- sets from the rack --------------------------------------------------------------


def _rack_groups(rack: Sequence[Tile], jokers: bool) -> Iterator[Tiles]:
    for n in range(MIN_NUMBER, MAX_NUMBER + 1):
        tiles = [t for c in COLORS if (t := _find(rack, c, n)) is not None]
        if len(tiles) >= 3 and not jokers:
            yield tiles
        elif len(tiles) == 2 and jokers:
            yield [*tiles, JOKER]


def _segments(numbers: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive numbers in a sorted list of distinct numbers."""
    out: list[list[int]] = []
    for n in numbers:
        if out and out[-1][-1] == n - 1:
            out[-1].append(n)
        else:
            out.append([n])
    return out


def _rack_runs(rack: Sequence[Tile], jokers: bool) -> Iterator[Tiles]:
    for c in COLORS:
        numbers = sorted({t.number for t in rack if t.color == c})
        segs = _segments(numbers)
        for i, seg in enumerate(segs):
            tiles = [numbered(c, n) for n in seg]
            if not jokers:
                if len(seg) >= 3:
                    yield tiles
                continue
            if len(seg) == 2:
                yield [*tiles, JOKER] if seg[-1] < MAX_NUMBER else [JOKER, *tiles]
            nxt = segs[i + 1] if i + 1 < len(segs) else None
            if nxt is not None and nxt[0] == seg[-1] + 2 and len(seg) + len(nxt) >= 2:
                yield [*tiles, JOKER, *(numbered(c, n) for n in nxt)]


def _rack_sets(rack: Sequence[Tile], rules: Rules) -> Iterator[Tiles]:
    """Sets the rack can lay on its own: jokerless ones first, then with one joker, each
    family sorted by value (highest first)."""
    for jokers in (False, True):
        if jokers and JOKER not in rack:
            return
        found = [*_rack_groups(rack, jokers), *_rack_runs(rack, jokers)]
        yield from sorted(found, key=lambda s: -_value(s, rules))


def _greedy_sets(rack: Sequence[Tile], rules: Rules) -> list[Tiles]:
    """Disjoint sets from the rack, best first, taken greedily."""
    chosen: list[Tiles] = []
    left = list(rack)
    while (best := next(_rack_sets(left, rules), None)) is not None:
        chosen.append(best)
        left = tiles_without(left, best)
    return chosen


def _sets_with(g: Tile, rack: Sequence[Tile]) -> Iterator[Tiles]:
    """Three-tile sets made of the numbered tile ``g`` and two rack tiles (or a rack tile
    and a rack joker). Runs are ascending."""
    assert g.color is not None
    plain = [t for t in rack if t.color is not None]
    has_joker = JOKER in rack
    for lo in (g.number - 2, g.number - 1, g.number):
        span = [_find(plain, g.color, n) if n != g.number else g for n in range(lo, lo + 3)]
        if all(t is not None for t in span):
            yield [t for t in span if t is not None]
    others = [t for c in COLORS if c != g.color and (t := _find(plain, c, g.number)) is not None]
    if len(others) >= 2:
        yield [g, *others[:2]]
    if has_joker:
        for t in others[:1]:
            yield [g, t, JOKER]
        for n in (g.number + 1, g.number - 1):
            if (t := _find(plain, g.color, n)) is not None:
                yield from _pair_sets([g, t], JOKER)


def _pair_sets(plain: Sequence[Tile], joker: Tile) -> Iterator[Tiles]:
    """Sets of two distinct numbered tiles of ``plain`` plus ``joker``."""
    for i, a in enumerate(plain):
        for b in plain[i + 1 :]:
            x, y = (a, b) if a.number <= b.number else (b, a)
            if x.number == y.number and x.color != y.color:
                yield [x, y, joker]
            elif x.color == y.color and y.number == x.number + 1:
                yield [x, y, joker] if y.number < MAX_NUMBER else [joker, x, y]
            elif x.color == y.color and y.number == x.number + 2:
                yield [x, joker, y]


# --- the moves ------------------------------------------------------------------------


def _replace_set(table: Table, i: int, *new: Tiles) -> Table:
    return [*table[:i], *new, *table[i + 1 :]]


def _new_set_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    for s in _rack_sets(rack, rules):
        yield "new_set", [*table, s], tiles_without(rack, s)


def _joker_swap_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    """Replace a table joker with a rack tile it stands for; reuse the joker in a new set
    with two rack tiles."""
    for i, s in enumerate(table):
        if JOKER not in s:
            continue
        for swapped, used in _joker_swaps(s, rack, rules):
            left = tiles_without(rack, used)
            for reuse in _pair_sets([t for t in left if t.color is not None], JOKER):
                numbered_tiles = [t for t in reuse if t.color is not None]
                yield "joker_swap", [*_replace_set(table, i, swapped), reuse], tiles_without(left, numbered_tiles)


def _joker_swaps(s: Tiles, rack: Tiles, rules: Rules) -> Iterator[tuple[Tiles, Tiles]]:
    """Ways to take the first joker out of set ``s`` with rack tiles: (new set, tiles used)."""
    reading = read_set(s, rules).best
    if reading is None:
        return
    j = s.index(JOKER)
    options = reading.joker_options[sum(1 for t in s[:j] if t.color is None)]
    wanted = [t for t in options if t in rack]
    both = rules.group_joker_needs_both_colours and reading.kind != RUN and len(s) == 3 and len(options) > 1
    if both and len(wanted) == len(options):
        yield [*s[:j], *wanted, *s[j + 1 :]], wanted
    elif not both and wanted:
        yield [*s[:j], wanted[0], *s[j + 1 :]], wanted[:1]


def _take_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    """Take a group's fourth tile or a long run's end tile into a new set with rack tiles."""
    for i, s in enumerate(table):
        if len(s) < 4 or JOKER in s:
            continue
        spots = [0, len(s) - 1] if _run_of(s, rules) is not None else range(len(s))
        for j in spots:
            rest = s[:j] + s[j + 1 :]
            for new in _sets_with(s[j], rack):
                yield "take", [*_replace_set(table, i, rest), new], tiles_without(rack, tiles_without(new, [s[j]]))


def _split_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    """Put a rack tile into the middle of a long jokerless run by splitting it in two."""
    for i, s in enumerate(table):
        run = _run_of(s, rules) if JOKER not in s else None
        if run is None:
            continue
        for x in range(run.first + 2, run.last - 1):
            tile = _find(rack, run.color, x)
            if tile is not None:
                cut = x - run.first + 1
                yield "split", _replace_set(table, i, s[:cut], [tile, *s[cut:]]), tiles_without(rack, [tile])


def _extend_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    """Add a rack tile at either end of a run, or a fourth colour to a group of three."""
    for i, s in enumerate(table):
        run = _run_of(s, rules)
        if run is not None:
            if (t := _find(rack, run.color, run.last + 1)) is not None:
                yield "extend", _replace_set(table, i, [*s, t]), tiles_without(rack, [t])
            if (t := _find(rack, run.color, run.first - 1)) is not None:
                yield "extend", _replace_set(table, i, [t, *s]), tiles_without(rack, [t])
        elif len(s) == 3 and _is_group(s, rules):
            number = next(t.number for t in s if t.color is not None)
            for c in COLORS:
                t = _find(rack, c, number)
                if t is not None and t not in s:
                    yield "extend", _replace_set(table, i, [*s, t]), tiles_without(rack, [t])


def _joker_extend_moves(table: Table, rack: Tiles, rules: Rules) -> Iterator[Move]:
    """Put a rack joker at an end of a run."""
    if JOKER not in rack:
        return
    for i, s in enumerate(table):
        run = _run_of(s, rules)
        if run is None or run.last - run.first + 1 >= MAX_NUMBER:
            continue
        grown = [*s, JOKER] if run.last < MAX_NUMBER else [JOKER, *s]
        yield "extend_joker", _replace_set(table, i, grown), tiles_without(rack, [JOKER])


MoveFinder = Callable[[Table, Tiles, Rules], Iterator[Move]]
MOVE_FINDERS: tuple[MoveFinder, ...] = (
    _new_set_moves,
    _joker_swap_moves,
    _take_moves,
    _split_moves,
    _extend_moves,
    _joker_extend_moves,
)


def _moves(table: Table, rack: Tiles, rules: Rules, opened: bool) -> Iterator[Move]:
    for finder in MOVE_FINDERS:
        if opened or finder is not _joker_swap_moves:
            yield from finder(table, rack, rules)


# --- a game ---------------------------------------------------------------------------


def check_turn(
    before: Table, after: Table, rack: Tiles, opened: bool, rules: Rules, elapsed: float | None = None
) -> TurnVerdict:
    """``verify_turn`` on plain tile lists."""
    return verify_turn(_as_sets(before), _as_sets(after), rack, opened, rules, elapsed)


@dataclass
class _Game:
    rules: Rules
    rng: random.Random
    racks: list[Tiles]
    pool: Tiles
    table: Table = field(default_factory=list)
    opened: list[bool] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)

    def play_turn(self, p: int) -> str:
        """Play player ``p``'s turn; return ``"play"``, ``"draw"`` or ``"pass"``."""
        name = f"P{p + 1}"
        elapsed = self._elapsed()
        found = self._best_play(p, elapsed)
        if found is not None:
            self.table, self.racks[p], kinds = found
            self.opened[p] = True
            self.stats.update(kinds)
            self.turns.append(self._table_turn(name, elapsed))
            return "play"
        if self.pool:
            tile = self.pool.pop(0)
            self.racks[p].append(tile)
            self.stats["draw"] += 1
            self.turns.append({"player": name, "draw": str(tile)})
            return "draw"
        self.stats["pass"] += 1
        self.turns.append(self._table_turn(name, elapsed))
        return "pass"

    def _elapsed(self) -> float | None:
        limit = self.rules.turn_time_limit
        return None if limit is None else float(self.rng.randint(1, int(limit)))

    def _table_turn(self, name: str, elapsed: float | None) -> dict[str, Any]:
        turn: dict[str, Any] = {"player": name, "table": [format_tiles(s) for s in self.table]}
        if elapsed is not None:
            turn["elapsed_seconds"] = elapsed
        return turn

    def _best_play(self, p: int, elapsed: float | None) -> tuple[Table, Tiles, list[str]] | None:
        """Chain moves greedily, each one checked as a whole turn; None if nothing plays."""
        before, rack, opened = self.table, self.racks[p], self.opened[p]
        table, left, kinds = before, rack, []
        checks = 0
        if not opened:
            sets = _greedy_sets(rack, self.rules)
            table, left = [*before, *sets], tiles_without(rack, [t for s in sets for t in s])
            if not sets or sum(_value(x, self.rules) for x in sets) < self.rules.initial_meld_min:
                return None  # (no sets is no opening, whatever the threshold: a draw)
            checks += 1
            if not check_turn(before, table, rack, False, self.rules, elapsed).valid:
                return None
            kinds.append("open")
            if not self.rules.manipulate_on_opening_turn:
                return table, left, kinds
        for _ in range(MAX_STEPS):
            if not left:
                break
            step = None
            for kind, cand_table, cand_rack in _moves(table, left, self.rules, opened):
                checks += 1
                if check_turn(before, cand_table, rack, opened, self.rules, elapsed).valid:
                    step = kind, cand_table, cand_rack
                    break
                self.stats["rejected"] += 1
                if checks >= MAX_CHECKS:
                    break
            if step is None:
                break
            kinds.append(step[0])
            table, left = step[1], step[2]
        return (table, left, kinds) if kinds else None


def rules_json(rules: Rules) -> str | dict[str, Any]:
    """The record's ``rules`` value: the preset name, or the preset plus overrides."""
    base = PRESETS.get(rules.preset, SABRA)
    if base == rules:
        return rules.preset
    mine, theirs = rules.to_dict(), base.to_dict()
    diff = {k: v for k, v in mine.items() if k != "preset" and v != theirs[k]}
    return {"preset": base.preset, **diff}


def generate_with_stats(
    seed: int, players: int = 4, rules: Rules = SABRA, max_turns: int = 400
) -> tuple[dict[str, Any], Counter[str]]:
    """``generate_game`` plus how often each kind of move was played (and rejected)."""
    rng = random.Random(seed)
    tiles = rules.supply.all_tiles()
    rng.shuffle(tiles)
    n = rules.deal_for(players)
    racks = [tiles[i * n : (i + 1) * n] for i in range(players)]
    game = _Game(rules, rng, [list(r) for r in racks], tiles[players * n :], opened=[False] * players)
    record: dict[str, Any] = {
        "rules": rules_json(rules),
        "players": [{"name": f"P{i + 1}", "rack": format_tiles(r)} for i, r in enumerate(racks)],
        "pool": format_tiles(game.pool),
        "turns": game.turns,
    }
    passes = 0
    one_more_turn = rules.pool_exhausted_end == "one_more_turn"
    final_turns = players if one_more_turn and not game.pool else None  # turns left once the pool is empty
    for t in range(max_turns):
        outcome = game.play_turn(t % players)
        passes = passes + 1 if outcome == "pass" else 0
        if outcome == "play" and not game.racks[t % players]:
            break
        if final_turns is not None:
            final_turns -= 1
        elif one_more_turn and not game.pool:
            final_turns = players
        if final_turns == 0 or (not one_more_turn and passes == players):
            record["end"] = "pool_exhausted"
            break
    return record, game.stats


def generate_game(seed: int, players: int = 4, rules: Rules = SABRA, max_turns: int = 400) -> dict[str, Any]:
    """A complete legal game record (SPEC §6) played by the strategy above."""
    return generate_with_stats(seed, players, rules, max_turns)[0]


# --- reading a record back ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayState:
    """One ``table`` turn of a record, with the position it was played from."""

    index: int
    player: int
    before: Table
    after: Table
    rack: Tiles
    opened: bool
    elapsed: float | None


def walk_record(record: dict[str, Any], rules: Rules) -> Iterator[PlayState]:
    """Every ``table`` turn of a legal record (draws are applied along the way)."""
    names = [p["name"] for p in record["players"]]
    racks = [list(parse_tiles(p["rack"])) for p in record["players"]]
    opened = [False] * len(racks)
    table: Table = []
    for index, turn in enumerate(record["turns"]):
        p = names.index(turn["player"])
        if "draw" in turn:
            racks[p].extend(parse_tiles([turn["draw"]]))
            continue
        after = [list(parse_tiles(s)) for s in turn["table"]]
        state = PlayState(index, p, table, after, list(racks[p]), opened[p], turn.get("elapsed_seconds"))
        yield state
        verdict = check_turn(table, after, racks[p], opened[p], rules, state.elapsed)
        if verdict.valid:
            racks[p], opened[p], table = list(verdict.rack_after), verdict.opened_after, after


# --- corrupting one turn --------------------------------------------------------------

CORRUPTIONS = ("TABLE_TILE_REMOVED", "TILE_NOT_IN_RACK", "INVALID_SET", "JOKER_NOT_REPLACED")


def _drop_table_tile(s: PlayState, played: Counter[str]) -> Iterator[Table]:
    on_before = _keys([t for x in s.before for t in x])
    for i, x in enumerate(s.after):
        for j, t in enumerate(x):
            if on_before[t.key] and not played[t.key]:
                yield _replace_set(s.after, i, x[:j] + x[j + 1 :])


def _add_foreign_tile(s: PlayState, rules: Rules) -> Iterator[Table]:
    """Extend a run of ``after`` with a tile the player does not hold."""
    on_after = _keys([t for x in s.after for t in x])
    for i, x in enumerate(s.after):
        run = _run_of(x, rules)
        if run is None:
            continue
        for number in (run.last + 1, run.first - 1):
            if not MIN_NUMBER <= number <= MAX_NUMBER:
                continue
            t = numbered(run.color, number)
            if t not in s.rack and on_after[t.key] < rules.supply.copies:
                yield _replace_set(s.after, i, [*x, t] if number > run.last else [t, *x])


def _break_set(s: PlayState) -> Iterator[Table]:
    for i, x in enumerate(s.after):
        yield _replace_set(s.after, i, x[:1], x[1:])
        for k in range(len(s.after)):
            if k != i:
                moved = _replace_set(s.after, k, [*s.after[k], x[-1]])
                yield _replace_set(moved, i, x[:-1])


def _unreplace_joker(s: PlayState, played: Counter[str]) -> Iterator[Table]:
    for i, x in enumerate(s.after):
        for j, t in enumerate(x):
            if t.color is not None and played[t.key]:
                yield _replace_set(s.after, i, x[:j] + x[j + 1 :])


def _candidates(kind: str, s: PlayState, rules: Rules) -> Iterator[Table]:
    verdict = check_turn(s.before, s.after, s.rack, s.opened, rules, s.elapsed)
    played = _keys(verdict.played)
    if not verdict.valid or verdict.action != "play":
        return
    if kind == "TABLE_TILE_REMOVED":
        yield from _drop_table_tile(s, played)
    elif kind == "TILE_NOT_IN_RACK":
        yield from _add_foreign_tile(s, rules)
    elif kind == "INVALID_SET":
        yield from _break_set(s)
    elif verdict.jokers_freed and rules.joker_release == "replace" and not rules.joker_sets_locked:
        yield from _unreplace_joker(s, played)


def _corrupt_turn(kind: str, s: PlayState, rules: Rules) -> Table | None:
    """A corrupted ``after`` for this turn giving ``kind`` (alone if possible), or None."""
    fallback = None
    for after in itertools.islice(_candidates(kind, s, rules), MAX_CHECKS):
        codes = {v.code for v in check_turn(s.before, after, s.rack, s.opened, rules, s.elapsed).violations}
        if codes == {kind}:
            return after
        if kind in codes and fallback is None:
            fallback = after
    return fallback


def corrupt_game(record: dict[str, Any], seed: int, kind: str | None = None) -> tuple[dict[str, Any], int, str]:
    """A copy of a legal ``record`` with one play turn corrupted: returns the copy, the
    turn's index and the violation code that turn now produces (``kind`` forces one of
    CORRUPTIONS). Earlier turns are untouched; later turns are kept as recorded. Raises
    ValueError when no turn can be corrupted that way."""
    rules = resolve_rules(record.get("rules"))
    rng = random.Random(seed)
    states = [s for s in walk_record(record, rules) if s.after != s.before]
    kinds = [kind] if kind is not None else rng.sample(CORRUPTIONS, len(CORRUPTIONS))
    for code in kinds:
        for s in rng.sample(states, len(states)):
            after = _corrupt_turn(code, s, rules)
            if after is not None:
                out = copy.deepcopy(record)
                out["turns"][s.index]["table"] = [format_tiles(x) for x in after]
                return out, s.index, code
    raise ValueError(f"no play turn of this record can be corrupted with {kinds}")
