"""The exact memoised search (dynamic programme with branch and bound) over (number, colour)
stages, and the moves of one stage. See the package docstring for the method."""

from __future__ import annotations

import functools
import itertools
import time
from collections import Counter
from collections.abc import Iterator

from engine.solver.model import (
    ANY_JOKERS,
    CHECK_EVERY,
    DONE,
    END,
    FAIL,
    GROUP_STAGE,
    LAST,
    MAX_GROUP,
    NCOL,
    NEW_GROUP_JOKERS,
    NO_JOKERS,
    SOME_JOKERS,
    USED,
    ColourMove,
    ColourMoveFields,
    GroupBlock,
    GroupMove,
    GroupMoveFields,
    GroupOption,
    Key,
    Option,
    OutOfTime,
    Problem,
    RunBlock,
    State,
)
from engine.tiles import MIN_NUMBER

# --- group feasibility ----------------------------------------------------------------


_GROUP_TABLE: dict[tuple[int, ...], dict[int, int]] = {}


def _group_jokers(counts: tuple[int, ...]) -> dict[int, int]:
    """For numbered tiles of one number, ``counts[c]`` of colour c, all to be placed in new
    groups: every joker count that works, mapped to the most groups possible with it.

    With G groups the tiles are dealt round robin (no colour twice in a group, sizes within one
    of each other), which needs the fewest jokers to bring every group to 3; each group holds
    at most 4 tiles and at least one numbered tile.
    """
    key = tuple(sorted(counts))
    cached = _GROUP_TABLE.get(key)
    if cached is not None:
        return cached
    total = sum(key)
    out: dict[int, int] = {}
    if total == 0:
        out[0] = 0
    for groups in range(max(max(key), 1), total + 1):
        low, extra = divmod(total, groups)
        if low > MAX_GROUP or (low == MAX_GROUP and extra):
            continue
        need = (groups - extra) * max(0, 3 - low) + extra * max(0, 2 - low)
        for jokers in range(need, MAX_GROUP * groups - total + 1):
            out[jokers] = groups
    _GROUP_TABLE[key] = out
    return out


_COUNT_BITS = 8  # the bits of one run count in a ``State``, unless a problem's counts need more


def _pack(n1: int, n2: int, n3: int, nb: int, width: int = _COUNT_BITS) -> int:
    """One colour's run counts as the bits of its part of a ``State`` (``width`` bits each)."""
    return n1 | n2 << width | n3 << 2 * width | nb << 3 * width


def _unpack(runs: int, width: int = _COUNT_BITS) -> tuple[int, int, int, int]:
    """One colour's run counts from the bits ``_pack`` made of them."""
    count = (1 << width) - 1
    return runs & count, runs >> width & count, runs >> 2 * width & count, runs >> 3 * width


def _layout(width: int) -> tuple[int, int, int]:
    """A ``State`` of ``width`` bits per count: the bits of one colour, their mask, and the
    mask of every colour's counts of runs of one and two tiles."""
    colour_bits = 4 * width
    short = (1 << 2 * width) - 1
    return colour_bits, (1 << colour_bits) - 1, sum(short << (colour_bits * c) for c in range(NCOL))


def _lead_points(jokers: int, v: int) -> int:
    """Points of ``jokers`` jokers laid just before number ``v`` in a run (v-1, v-2, ...)."""
    return jokers * v - jokers * (jokers + 1) // 2


# --- the search -----------------------------------------------------------------------


class Search:
    """Exact memoised search over (number, colour) stages for one ``Problem``."""

    def __init__(self, problem: Problem, deadline: float, max_calls: int | None = None) -> None:
        self.p = problem
        self.deadline = deadline
        self.calls = 0
        self.max_calls = max_calls  # a cap on the work, independent of the clock
        # goal mode (``solve(floor, goal=True)``): the floor is an upper bound of the optimum
        # (from the linear relaxation), so the first solution reaching it is optimal
        self.goal = False
        # key -> (score, decision, next key): an exact best with its decision; (bound, None,
        # key) an upper bound only; (FAIL, DONE, key) no solution (or the terminal's value)
        self.memo: dict[Key, tuple[int, ColourMoveFields | GroupMoveFields | None, Key]] = {}
        self.colour_cache: dict[tuple[int, ...], tuple[Option, ...]] = {}
        self.group_cache: dict[tuple[int, tuple[int, ...], int, int], tuple[GroupOption, ...]] = {}
        self.starts_at: dict[tuple[int, int], tuple[RunBlock, ...]] = {}
        self.ends_at: Counter[tuple[int, int]] = Counter()
        for b in problem.run_blocks:
            self.starts_at[(b.colour, b.start)] = (*self.starts_at.get((b.colour, b.start), ()), b)
            self.ends_at[(b.colour, b.end)] += 1
        # tiles of (colour, number) that may be placed; 0 beyond 13 so runs cannot pass it
        self.available = [
            [r + o for r, o in zip(problem.required[c], problem.optional[c], strict=True)] + [0, 0] for c in range(NCOL)
        ]
        for c in range(NCOL):
            self.available[c][END] = 0
        self.block_starts = [[len(self.starts_at.get((c, v), ())) for v in range(END + 2)] for c in range(NCOL)]
        # a run in progress holds a tile or a joker at the number reached, or a block: a byte
        # per count holds every tile supply's, more bits a bigger multiset's (``arrange``)
        most = max(max(a) for a in self.available) + len(problem.run_blocks) + problem.jokers
        self.count_bits = max(_COUNT_BITS, most.bit_length())
        self.colour_bits, self.colour_mask, self.short_runs = _layout(self.count_bits)
        # tiles of the number that colours c.. may still send to its groups
        self.group_supply = [
            [sum(self.available[k][v] for k in range(c, NCOL)) for c in range(NCOL + 1)] for v in range(END + 1)
        ]
        self.groups_at: dict[int, tuple[GroupBlock, ...]] = {}
        for g in problem.group_blocks:
            self.groups_at[g.number] = (*self.groups_at.get(g.number, ()), g)
        # the groups that must be laid, by number: each holds a joker or a tile of one of the
        # colours
        self.groups_needed: dict[int, list[tuple[int, ...]]] = {}
        for number, colours in problem.groups_needed:
            self.groups_needed.setdefault(number, []).append(colours)
        self.runs_needed = {(c, v): copies for c, v, copies in problem.runs_needed}
        # "extra" counter: room for spare jokers (arrange) or meld value (opening), capped
        self.extra_cap = problem.jokers if problem.feasibility_only else problem.meld_min
        # optimistic bounds: the score of every optional tile from stage (v, c) on, and of a joker
        tw, vw = problem.tile_weight, problem.value_weight
        self.joker_bound = 0 if problem.feasibility_only else tw + problem.joker_weight * LAST
        self.rack_left = [[0] * (NCOL + 1) for _ in range(END + 1)]
        running = 0
        for v in range(LAST, MIN_NUMBER - 1, -1):
            self.rack_left[v][GROUP_STAGE] = running
            for c in range(NCOL - 1, -1, -1):
                if not problem.feasibility_only:
                    running += problem.optional[c][v] * (tw + vw * v)
                self.rack_left[v][c] = running

    def root(self) -> Key:
        return (MIN_NUMBER, 0, 0, (), self.p.jokers, 0, self.p.unscored)

    def solve(self, floor: int = 0, goal: bool = False) -> int | None:
        """The best score from the start if it is at least ``floor``, else None (also when
        nothing works). Raises OutOfTime.

        With ``goal`` the caller knows that no solution scores more than ``floor`` (an upper
        bound of the optimum): the search stops at the first solution reaching it. Every
        stage is then asked for exactly what is left to reach the bound, so a stage reaching
        that has found its exact best (no continuation of it can score more), and memoised
        results stay exact."""
        self.goal = goal
        try:
            value = self.best(self.root(), floor)
        finally:
            self.goal = False
        return value if value >= floor else None

    def best(self, key: Key, need: int) -> int:
        """Branch and bound over the memoised stages. Returns the exact best score from
        ``key`` when it is at least ``need``; otherwise an upper bound below ``need``
        (``FAIL`` when nothing works). Exact results are memoised with their decision,
        bounds without."""
        memo = self.memo
        hit = memo.get(key)
        if hit is not None and (hit[1] is not None or hit[0] < need):
            return hit[0]
        v, c, state, groups, jokers, extra, unscored = key
        if v == END:
            value = self._terminal(state, jokers, extra) if not unscored else FAIL
            memo[key] = (value, DONE, key)
            return value
        bound = self.rack_left[v][c] + jokers * self.joker_bound
        if bound < need:
            return bound
        self.calls += 1
        if not self.calls & CHECK_EVERY and (
            time.perf_counter() > self.deadline or (self.max_calls is not None and self.calls > self.max_calls)
        ):
            raise OutOfTime
        best = upper = FAIL
        bar = need  # a move must reach this: ``need``, then one more than the best so far
        choice: ColourMoveFields | GroupMoveFields | None = None
        after = key
        first = self.p.feasibility_only
        stop = first or self.goal
        cap = self.extra_cap
        if c < GROUP_STAGE:
            shift = self.colour_bits * c
            runs = state >> shift & self.colour_mask
            others = state ^ runs << shift
            sent = sum(groups)
            most = max(groups) if groups else 0  # each tile of one colour needs a group of its own
            group_blocks = self.groups_at.get(v)
            later = self.group_supply[v][c + 1] + jokers
            in_runs = self.runs_needed.get((c, v), 0)
            # arrange tries the moves without jokers first and builds the others only if needed
            for tier in (NO_JOKERS, SOME_JOKERS) if first and jokers else (ANY_JOKERS,):
                options = self._colour_options(v, c, runs, jokers, tier, unscored)
                for new, spent, to_groups, score, more, move, x in options:
                    if move[USED] - to_groups < in_runs:
                        continue
                    grouped = sent + to_groups
                    if (
                        grouped
                        and not group_blocks
                        and grouped + later - spent < 3 * (most if most > to_groups else to_groups)
                    ):
                        continue  # too few tiles left for the groups of this number
                    more += extra
                    nxt = (
                        v,
                        c + 1,
                        others | new << shift,
                        (*groups, to_groups),
                        jokers - spent,
                        more if more < cap else cap,
                        unscored - x,
                    )
                    target = bar - score
                    sub = self.best(nxt, target)
                    if sub >= target:
                        best, choice, after = sub + score, move, nxt
                        bar = best + 1
                        if stop:
                            break
                    elif sub + score > upper:
                        upper = sub + score
                if stop and choice is not None:
                    break
        else:
            needed = self.groups_needed.get(v, ())
            for spent, score, more, group_move, x in self._group_options(v, groups, jokers, unscored):
                if not group_move[NEW_GROUP_JOKERS] and not all(any(groups[c] for c in cs) for cs in needed):
                    continue
                more += extra
                nxt = (v + 1, 0, state, (), jokers - spent, more if more < cap else cap, unscored - x)
                target = bar - score
                sub = self.best(nxt, target)
                if sub >= target:
                    best, choice, after = sub + score, group_move, nxt
                    bar = best + 1
                    if stop:
                        break
                elif sub + score > upper:
                    upper = sub + score
        if choice is not None:
            memo[key] = (best, choice, after)
            return best
        memo[key] = (upper, None if upper > FAIL else DONE, key)
        return upper

    def _terminal(self, state: State, jokers: int, extra: int) -> int:
        """After 13: no short run may be left open; the joker and meld demands must be met."""
        if state & self.short_runs:
            return FAIL
        p = self.p
        if p.feasibility_only:
            return 0 if jokers <= extra else FAIL
        if p.jokers - jokers < p.jokers_required or extra < p.meld_min:
            return FAIL
        return 0

    def path(self) -> list[tuple[Key, ColourMove | GroupMove]]:
        """The decisions of the best solution, stage by stage (after a successful solve)."""
        out: list[tuple[Key, ColourMove | GroupMove]] = []
        key = self.root()
        while key[0] != END:
            _, move, key_next = self.memo[key]
            assert move is not None and move is not DONE
            if key[1] < GROUP_STAGE:
                out.append((key, ColourMove(*move)))
            else:
                out.append((key, GroupMove(*move)))
            key = key_next
        return out

    def leftover_jokers(self) -> int:
        """Jokers not placed by the best solution (arrange places them in the sets' room)."""
        key = self.root()
        while key[0] != END:
            key = self.memo[key][2]
        return key[4]

    # --- the moves of one stage (shared, pure, cached) ---------------------------------

    def _colour_options(self, v: int, c: int, runs: int, jokers: int, tier: int, unscored: int) -> tuple[Option, ...]:
        unscored = min(unscored, jokers)
        key = (v, c, runs, jokers, tier, unscored)
        cached = self.colour_cache.get(key)
        if cached is None:
            p = self.p
            starting = self.block_starts[c]
            cached = _colour_moves(
                v,
                *_unpack(runs, self.count_bits),
                jokers,
                tier,
                p.required[c][v],
                p.optional[c][v],
                self.ends_at[(c, v)],
                starting[v],
                self.available[c][v + 1] + starting[v + 1],
                self.available[c][v + 2] + starting[v + 2] + starting[v + 1],
                p.feasibility_only,
                p.meld_min > 0,
                p.tile_weight,
                p.value_weight,
                p.joker_weight,
                unscored,
                self.count_bits,
            )
            self.colour_cache[key] = cached
        return cached

    def _group_options(self, v: int, counts: tuple[int, ...], jokers: int, unscored: int) -> tuple[GroupOption, ...]:
        unscored = min(unscored, jokers)
        key = (v, counts, jokers, unscored)
        cached = self.group_cache.get(key)
        if cached is None:
            p = self.p
            blocks = tuple((b.size, tuple(sorted(b.allowed))) for b in self.groups_at.get(v, ()))
            cached = _group_moves(
                v,
                counts,
                jokers,
                blocks,
                p.feasibility_only,
                p.meld_min > 0,
                p.tile_weight,
                p.value_weight,
                p.joker_weight,
                unscored,
            )
            self.group_cache[key] = cached
        return cached


@functools.lru_cache(maxsize=1 << 16)
def _colour_moves(
    v: int,
    n1: int,
    n2: int,
    n3: int,
    nb: int,
    jokers: int,
    tier: int,
    required: int,
    optional: int,
    ending: int,
    blocks: int,
    next1: int,
    next2: int,
    arrange: bool,
    meld: bool,
    tw: int,
    vw: int,
    jw: int,
    unscored: int,
    width: int = _COUNT_BITS,
) -> tuple[Option, ...]:
    """Every way to place the tiles of one colour at number ``v``: ``required`` of them must
    be placed and up to ``optional`` more may be, given ``n1``/``n2``/``n3`` runs of length
    1/2/≥3 and ``nb`` runs holding a block in progress, ``jokers`` jokers left, ``blocks``
    blocks starting here and ``ending`` ending here; ``next1``/``next2`` tiles (or blocks)
    could extend runs at v+1 and v+2. ``tier`` keeps only the ways that spend no joker, some,
    or any. Scores weigh a tile ``tw``, a point ``vw`` and a joker's point ``jw``; ``arrange`` counts room for spare
    jokers in ``extra``, ``meld`` counts points. Each way comes once per number of its jokers,
    up to ``unscored``, that score no points (its lowest: ``Problem.unscored``). The new run
    counts come packed, ``width`` bits each (``_pack``).

    Runs of length 1–2 must all be extended; runs of ≥3 may be; a joker may take the place
    of a tile in any extension. New runs start with a numbered tile, optionally preceded by
    jokers. Blocks starting here start a run or join a run in progress."""
    found: dict[tuple[object, ...], Option] = {}
    budget = 0 if tier == NO_JOKERS else jokers  # jokers these ways may spend
    for attach, (a1, a2, a3), block_jokers, block_value in _attach_modes(blocks, v, n1, n2, n3, budget):
        m1, m2, m3 = n1 - a1, n2 - a2, n3 - a3
        left = budget - block_jokers
        for used in range(required, required + optional + 1):
            for e3 in range(m3 + 1):
                for eb in range(nb + 1):
                    extended = m1 + m2 + e3 + eb
                    ending_now = m3 - e3 + nb - eb
                    room = ending_now * (END - v) if arrange else 0
                    for jx in range(max(0, extended - used), min(extended, left) + 1):
                        rest = used - (extended - jx)
                        for s in range(rest + 1):
                            for starts, start_jokers, start_value in _start_patterns(s, left - jx, v):
                                k0 = starts.count(0)
                                if k0 and ending_now:
                                    continue  # extending a run that ends here does at least as well
                                k1 = starts.count(1)
                                ones = m1 + k1
                                new = _pack(k0, ones, m2 + e3 + s - k0 - k1, eb + ending, width)
                                spent = block_jokers + jx + start_jokers
                                if tier == SOME_JOKERS and not spent:
                                    continue
                                spare = jokers - spent
                                if k0 + ones > next1 + spare * (v < LAST) or k0 > next2 + spare * (v < LAST - 1):
                                    continue  # short runs that cannot be completed
                                tiles = used - required + spent
                                joker_value = jx * v + start_value + block_value
                                value = (used - required) * v + joker_value
                                score = tiles * tw + (value - joker_value) * vw + joker_value * jw
                                extra = room if arrange else (value if meld else 0)
                                move = (attach, used, e3, eb, jx, starts, rest - s)
                                lowest = 0  # points of the jokers scoring none, the lowest first
                                if unscored and spent:
                                    points = sorted(_laid_joker_points(attach, starts, jx, v))
                                for x in range(min(unscored, spent) + 1):
                                    if x:
                                        lowest += points[x - 1]
                                    found_key = (new, spent, rest - s, extra, x)
                                    old = found.get(found_key)
                                    if old is None or (not arrange and score - lowest * jw > old[3]):
                                        found[found_key] = (new, spent, rest - s, score - lowest * jw, extra, move, x)
    options = list(found.values())
    if arrange:  # (jokers spent, tiles sent to the groups)
        options.sort(key=lambda o: (o[1], o[2]))
    else:  # the best first: a good solution early raises the bar of the branch and bound
        options.sort(key=lambda o: (o[1], -o[3]))
    return tuple(options)


def _laid_joker_points(attach: tuple[tuple[str, int], ...], starts: tuple[int, ...], extend: int, v: int) -> list[int]:
    """The points of each joker a colour move lays at ``v``: ``extend`` in runs it extends,
    and before the runs and blocks it starts (v-1, v-2, ...)."""
    leading = [n for kind, n in attach if kind == "new"] + list(starts)
    return [v] * extend + [v - k for n in leading for k in range(1, n + 1)]


def _attach_modes(
    blocks: int, v: int, n1: int, n2: int, n3: int, jokers: int
) -> Iterator[tuple[tuple[tuple[str, int], ...], tuple[int, int, int], int, int]]:
    """For ``blocks`` blocks starting at ``v``: each starts a run (with 0.. leading jokers)
    or joins a run in progress that holds no block. Yields (modes, runs taken per class,
    jokers spent, points of those jokers)."""
    if not blocks:
        yield (), (0, 0, 0), 0, 0
        return
    choices: list[tuple[str, int]] = [("new", k) for k in range(min(v - 1, jokers) + 1)]
    choices += [("join", 1), ("join", 2), ("join", 3)]
    for modes in itertools.product(choices, repeat=blocks):
        taken = [0, 0, 0]
        spent = points = 0
        for kind, n in modes:
            if kind == "join":
                taken[n - 1] += 1
            else:
                spent += n
                points += _lead_points(n, v)
        if taken[0] <= n1 and taken[1] <= n2 and taken[2] <= n3 and spent <= jokers:
            yield modes, (taken[0], taken[1], taken[2]), spent, points


@functools.lru_cache(maxsize=4096)
def _start_patterns(starts: int, jokers: int, v: int) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """Ways to start ``starts`` runs at ``v``: leading jokers per run (non-decreasing, so the
    fewest jokers come first), with the jokers spent and their points."""
    lead = min(jokers, v - 1)
    out = []
    for pattern in itertools.combinations_with_replacement(range(lead + 1), starts):
        spent = sum(pattern)
        if spent <= jokers:
            out.append((pattern, spent, sum(_lead_points(n, v) for n in pattern)))
    out.sort(key=lambda x: x[1])
    return tuple(out)


@functools.lru_cache(maxsize=1 << 15)
def _group_moves(
    v: int,
    counts: tuple[int, ...],
    jokers: int,
    blocks: tuple[tuple[int, tuple[int, ...]], ...],
    arrange: bool,
    meld: bool,
    tw: int,
    vw: int,
    jw: int,
    unscored: int,
) -> tuple[GroupOption, ...]:
    """Every way to form the groups of ``v`` from ``counts[c]`` numbered tiles per colour
    and up to ``jokers`` jokers (a joker's point weighs ``jw``), including tiles added to the group ``blocks`` of ``v``
    (their sizes and the colours they may take); each once per number of its jokers, up to
    ``unscored``, that score no points."""
    per_joker = tw + jw * v
    found: dict[tuple[int, int, int], GroupOption] = {}
    for absorb, rest, block_jokers in _absorb_modes(blocks, counts, jokers):
        for gj, groups in _group_jokers(rest).items():
            spent = gj + block_jokers
            if spent > jokers:
                continue
            score = spent * per_joker
            room = MAX_GROUP * groups - sum(rest) - gj
            extra = room if arrange else (spent * v if meld else 0)
            move = (absorb, gj, groups)
            for x in range(min(unscored, spent) + 1):
                old = found.get((spent, extra, x))
                if old is None or (not arrange and score - x * v * jw > old[1]):
                    found[(spent, extra, x)] = (spent, score - x * v * jw, extra, move, x)
    options = list(found.values())
    options.sort(key=lambda o: (o[0], -o[2]))  # (jokers spent, change of the extra counter)
    return tuple(options)


def _absorb_modes(
    blocks: tuple[tuple[int, tuple[int, ...]], ...], counts: tuple[int, ...], jokers: int
) -> Iterator[tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[int, ...], int]]:
    """Ways for group blocks (size, colours they may take) to take tiles and jokers. Yields
    (per block: colours, jokers), the counts left for new groups, jokers spent."""
    if not blocks:
        yield (), counts, 0
        return
    size, allowed_colours = blocks[0]
    space = MAX_GROUP - size
    allowed = [c for c in allowed_colours if counts[c] > 0]
    for k in range(min(space, len(allowed)) + 1):
        for colours in itertools.combinations(allowed, k):
            after = list(counts)
            for colour in colours:
                after[colour] -= 1
            for j in range(min(space - k, jokers) + 1):
                for rest_modes, rest, spent in _absorb_modes(blocks[1:], tuple(after), jokers - j):
                    yield ((colours, j), *rest_modes), rest, spent + j
