"""The best opening value of a multiset of tiles (SPEC §4, ``manipulate_on_opening_turn``).

With ``manipulate_on_opening_turn`` the opening is worth "the most that valid sets made only of
tiles played from the rack this turn could be worth (the player may lay them first, then join
them to table sets)". ``best_meld_value(counts)`` computes exactly that number from the played
multiset alone: the highest total value of disjoint valid sets (SPEC §2) drawn from ``counts``,
tiles may be left over, the empty collection is worth 0. A set is worth the numbers of its
tiles, a joker counting as the tile it stands for; the order tiles are laid in is free, so
``strict_order`` plays no part.

Method
------
1. **Caps** (exact). Every set holding a copy of ``(c, n)`` is a run without joker (it holds
   a copy of ``(c, n-1)``, or else copies of ``(c, n+1)`` and ``(c, n+2)``), a group without
   joker (it holds two tiles of the other colours at ``n``) or a set with a joker (a joker
   of its own). So no collection uses more than ``min(r[n-1] + min(r[n+1], r[n+2]), r[n+1] +
   min(r[n-1], r[n-2])) + others // 2 + jokers`` copies, ``r`` the row of colour ``c`` and
   ``others`` the tiles of the other colours at ``n``; copies beyond that are dropped (every
   collection of the original multiset is one of the capped multiset and conversely, so the
   answer is unchanged), repeated until nothing changes. A set has a numbered tile and at
   most 13 tiles, so at most ``12 * N`` jokers are ever used (``N`` numbered tiles); with that
   many jokers every numbered tile heads its own run 1..13 and the answer is ``91 * N`` (no set
   is worth more than 91). No cap on the copies of a tile can be a constant: ``L`` copies each
   of R4 R5 R6 are worth ``15 * L``.
2. **Upper bound reached?** The numbered tiles plus 13 per joker bound the answer; a laid
   opening usually reaches it. An exact cover search (highest tile first, it tops its run;
   runs of 3-5 tiles, longer ones split; a joker only where it stands for a 13) looks for
   that within a budget of steps (small with jokers: then a pass of step 4 at the bound
   follows). Running out of budget only means going on.
3. **Dynamic programme** over the numbers 13 down to 1 (after van Rijn, Takes & Vis, "The
   Complexity of Rummikub Problems", 2015; ``engine.solver`` uses the same idea). The state of
   a colour is how many runs in progress (their lowest tile at the number just done) hold 1,
   2, or 3+ tiles; with the jokers used so far it is the whole state. At each number each
   tile of a colour extends a run (runs of 1-2 tiles must be extended, by a tile or a joker),
   starts a run (it is the run's highest numbered tile; jokers may stand above it, stacked as
   high as they go), goes to a group of that number, or is left over; then the groups are
   formed from the tiles sent to them and jokers (feasible from their count, the largest count
   of one colour and the jokers alone). Sets of jokers alone never arise: every run starts at
   a numbered tile and every group holds one. Safe dominance rules drop moves (a tile left over
   while a joker fills its place or a run of 3+ of its colour ends; a run started next to an
   ending one) and states (one with at least the value, at most the jokers used and, per
   colour, no more runs of 1 tile, no more of 1-2 tiles, at least as many runs, can finish
   whatever the other can).
4. **Branch and bound without deadline.** A pass keeps only the states whose value plus a
   bound on what is still to come (the tiles of the numbers left; ``k`` jokers at their best
   places: stacks of jokers above runs, at most one run per numbered tile, then the numbers
   below) reaches a threshold, so it finds every solution reaching the threshold and, when it
   finds one, that is the answer. Thresholds fall 2, 4, 8, ... below the last one that failed;
   after two failures a narrow beam pass gives a lower bound, which is then proved (one pass
   at lower bound + 1) or the interval between is halved. Caps, dominance and bounds only
   drop what cannot be better and the search never stops early, so the result is exact for
   every input; nothing depends on the clock or on earlier calls.
5. **Turns with an integer programme** (``engine.solver.melds.MeldProgramme``, HiGHS):
   within a tile supply (at most 4 jokers) the passes get a little work first (``_TURNS``).
   When that is not enough, the programme (one column per set the tiles can make) gives its
   linear relaxation's bound, and narrow passes (beams, ``_BOUND_BEAMS``) look for a solution
   worth it: found, that is the answer. Else the programme runs for a tenth of a second and
   returns the best solution it found and a bound, the narrow passes try any lower bound, the
   passes go on inside that interval with more work, then the programme gets a second, and
   the passes the rest. The relaxation is usually on the answer or a point or two above it,
   which is where the full passes are slowest on 60-120 tiles with jokers (a pass at a
   threshold just above the answer: seconds); the passes close a small gap faster than
   HiGHS's branching. Every step only proves, so the answer is the same exact value whichever
   finishes; only the time spent depends on the clock.

Complexity
----------
After the caps let ``K`` be the largest count and ``J`` the jokers (``J < 12 N``). Runs in
progress of a colour never exceed ``K + J``, so a colour has at most ``(K + J + 1) ** 3``
states, a number's layer at most that to the fourth times ``J + 1``, and each of the 13
numbers makes 4 colour steps of at most ``O((K + 1) ** 3 (J + 1) ** 2)`` moves per state:
polynomial in the counts (with 4 colours and 13 numbers fixed), but that worst case is not
small, and since copies cannot be capped by a constant (step 1) no constant bound exists for
multisets beyond every tile supply. Measured (``bench/bench_meld_value.py``, one core): a
laid 48-tile opening of 16 sets 0.1-1 ms without jokers (the cover search answers), a few ms
with 1-2 of its tiles as jokers (tens at worst); the classic and xp supplies 0.2-0.4 ms;
random racks of 20-40 tiles a few ms; 40 copies of a tile, 1000 jokers, or 40 copies each of
R4 R5 R6 well under 1 ms; 150 tiles of one colour with 10 jokers 20-200 ms; 160 random tiles
of every kind (counts up to 7) with 4 jokers about 6 s; within the XP supply, 60-120 tiles
with 1-4 jokers were up to 29 s by the passes alone (most of it in ``pareto``, quadratic in a
layer's states; the same tiles without jokers 0.1 s) and are under half a second of CPU with
step 5 (``bench_meld_value.py --xp``, 2 x 200 such racks: p99 0.39 and 0.31 s, max 0.47 s,
against p99 0.59 and 1.27 s, max 1.5 and 4.1 s without it); ``at_most`` lets a caller that
needs only a threshold stop after the beam pass. Moves are memoised per (state, tiles,
jokers, number) in module tables shared by all calls (they do not depend on the input, and are
cleared when large).
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.tiles import COLORS, JOKER_KEY, MAX_NUMBER, MIN_NUMBER

__all__ = ["MELD_VALUE_WORK", "best_meld_value", "bounded_meld_value"]

MELD_VALUE_WORK = 2_000_000
"""The work ``bounded_meld_value`` gives its last passes (state moves and dominance comparisons):
about half a second of CPU, after the turns of step 5 (about 1.2 s more at most)."""

_TURNS = ((400_000, 0.1), (2_000_000, 1.0))
"""Work of the passes (400,000: about 0.1 s) and seconds of CPU for the integer programme, turn
by turn, before the last passes."""
_PROGRAMME_JOKERS = 4  # the XP supply's; with more the programme's columns multiply
_BOUND_BEAMS = (64, 256)  # the narrow passes looking for a solution worth the relaxation's bound

_NCOL = len(COLORS)
_TOP = MAX_NUMBER
_RUN_MAX_VALUE = sum(range(MIN_NUMBER, MAX_NUMBER + 1))  # 91: the run 1..13, the best set
_NONE = -(1 << 60)
_FAR = 1 << 30
_KEYS: dict[str, tuple[int, int]] = {
    f"{c}{n}": (i, n) for i, c in enumerate(COLORS) for n in range(MIN_NUMBER, MAX_NUMBER + 1)
}
_ORDER = tuple(range(_TOP, MIN_NUMBER - 1, -1))  # the numbers, highest first
_CACHE_LIMIT = 200_000

State = tuple[int, int, int]  # runs in progress of one colour holding 1, 2, 3+ tiles
Move = tuple[State, int, int, int]  # new state, jokers used, tiles sent to groups, value
StepMove = tuple[int, int, int, int]  # change of the packed state, jokers, to groups, value


def best_meld_value(counts: Mapping[str, int], at_most: int | None = None) -> int:
    """The highest total value of disjoint valid sets made from the tiles ``counts`` holds
    (tile keys such as ``"R5"``, ``"J"`` for jokers, mapped to copies; counts of 0 or less
    count as none). Any multiset is accepted, however many copies it holds. Raises ValueError
    for a key that is not a tile key. With ``at_most``, the smaller of that value and
    ``at_most``: whether an opening reaches its minimum, which a quick lower bound (the beam
    pass) usually settles without the exact value's passes (seconds for some 100-tile
    multisets)."""
    grid, jokers = _read(counts)
    jokers = _cap(grid, jokers)
    value = _without_search(grid, jokers)
    if value is None:
        _clear_large_caches()
        search = _Search(grid, jokers)
        if at_most is not None and search.search(0, beam=4) >= at_most:
            return at_most
        value = _exact(search)
    return value if at_most is None else min(value, at_most)


def bounded_meld_value(counts: Mapping[str, int], work: int = MELD_VALUE_WORK) -> tuple[int, bool]:
    """``best_meld_value(counts)`` and True when it is proved by the turns of step 5 or by the
    last passes within ``work`` (state moves and dominance comparisons); else the best value
    found, a lower bound, and False."""
    grid, jokers = _read(counts)
    jokers = _cap(grid, jokers)
    value = _without_search(grid, jokers)
    if value is not None:
        return value, True
    _clear_large_caches()
    search = _Search(grid, jokers)
    lower = max(0, search.search(0, beam=4))  # bounded by the beam: not counted
    try:
        return _exact(search, work), True
    except _OutOfWork:
        return max(lower, search.lower), False


def _exact(search: _Search, work: int | None = None) -> int:
    """The exact value: the passes, then (within a tile supply: at most 4 jokers) turns of the
    integer programme and the passes, each given more time at each turn of ``_TURNS`` and
    starting from the bounds the other found; each is fast where the other is slow (module
    docstring, step 5). The last passes get ``work`` (else raise ``_OutOfWork``)."""
    lower, upper = 0, None
    programme = None
    for passes_work, programme_cpu in _TURNS:
        search.work_left = passes_work
        try:
            return search.best(lower, upper)
        except _OutOfWork:
            lower = max(lower, search.lower)
            search.work_left = None
        if search.jokers > _PROGRAMME_JOKERS:
            break
        if programme is None:
            from engine.solver.melds import MeldProgramme  # HiGHS: loaded only when needed

            grid = search.grid
            counts = {f"{COLORS[c]}{n}": grid[c][n] for c in range(_NCOL) for n in range(MIN_NUMBER, _TOP + 1)}
            programme = MeldProgramme(counts | {JOKER_KEY: search.jokers})
            upper = programme.relaxation_bound()
            if upper is not None and _reaches(search, upper):
                return upper
        lower, bound = programme.solve(programme_cpu, lower)
        if bound is not None and (upper is None or bound < upper):
            upper = bound
            if lower < upper and _reaches(search, upper):
                return upper
        if lower == upper:
            return lower
    search.work_left = work
    return search.best(lower, upper)


def _reaches(search: _Search, bound: int) -> bool:
    """Whether narrow passes find a solution worth ``bound``, known to be the most any is
    worth: then that is the value. A few milliseconds where a full pass can take seconds."""
    return any(search.search(bound, beam=beam) >= bound for beam in _BOUND_BEAMS)


def _without_search(grid: list[list[int]], jokers: int) -> int | None:
    """The value when no search is needed (no numbered tile, or jokers enough to make every
    tile the run 1..13), else None."""
    real = sum(map(sum, grid))
    if real == 0:
        return 0
    if jokers >= (_TOP - 1) * real:
        return _RUN_MAX_VALUE * real
    return None


def _read(counts: Mapping[str, int]) -> tuple[list[list[int]], int]:
    """Counts by colour and number (padded with zeros around 1..13), and the jokers."""
    grid = [[0] * (_TOP + 3) for _ in range(_NCOL)]
    jokers = 0
    for key, count in counts.items():
        if count <= 0:
            continue
        if key == JOKER_KEY:
            jokers += count
            continue
        place = _KEYS.get(key)
        if place is None:
            raise ValueError(f"not a tile key: {key!r}")
        grid[place[0]][place[1]] += count
    return grid, jokers


def _cap(grid: list[list[int]], jokers: int) -> int:
    """Lower every count to the copies any collection of sets could use (module docstring,
    step 1); return the jokers any collection could use."""
    changed = True
    while changed:
        changed = False
        for c in range(_NCOL):
            row = grid[c]
            for n in range(MIN_NUMBER, _TOP + 1):
                k = row[n]
                if not k:
                    continue
                below2 = row[n - 2] if n > MIN_NUMBER else 0
                runs = min(row[n - 1] + min(row[n + 1], row[n + 2]), row[n + 1] + min(row[n - 1], below2))
                others = grid[0][n] + grid[1][n] + grid[2][n] + grid[3][n] - k
                cap = runs + others // 2 + jokers
                if k > cap:
                    row[n] = cap
                    changed = True
    return min(jokers, (_TOP - 1) * sum(map(sum, grid)))


# --- the upper bound reached: an exact cover ---------------------------------------------------


def _covers(grid: list[list[int]], jokers: int, budget: int) -> bool | None:
    """Whether every tile fits in a set with every joker standing for a 13: an exact cover,
    the highest tile first (it tops its run, so the run only goes down). None when ``budget``
    steps were not enough to tell."""
    cnt = [0] * (_NCOL * (_TOP + 2))
    for c in range(_NCOL):
        for n in range(MIN_NUMBER, _TOP + 1):
            cnt[_NCOL * n + c] = grid[c][n]
    failed: set[tuple[int, int, tuple[int, ...]]] = set()
    steps = [budget]

    def place(v: int, jokers: int) -> bool:
        while v >= MIN_NUMBER and not any(cnt[_NCOL * v : _NCOL * v + _NCOL]):
            v -= 1
        if v < MIN_NUMBER:
            return jokers == 0
        base = _NCOL * v
        if jokers and (v < _TOP - 1 or (v == _TOP - 1 and jokers > sum(cnt[base : base + _NCOL]))):
            return False  # a joker left can no longer stand for a 13
        # everything above v is placed and runs reach at most 4 below it: the state is this
        key = (v, jokers, tuple(cnt[_NCOL * max(0, v - 4) : base + _NCOL]))
        if key in failed:
            return False
        steps[0] -= 1
        if steps[0] < 0:
            return False
        c = next(d for d in range(_NCOL) if cnt[base + d])
        cnt[base + c] -= 1
        # runs of 3-5 tiles topped by this tile (longer ones split); a joker above it at 13 only
        stretch = v  # the tiles of colour c go down without a gap to ``stretch``
        while stretch > MIN_NUMBER and cnt[_NCOL * (stretch - 1) + c]:
            stretch -= 1
        for top_joker in (1, 0) if v == _TOP - 1 and jokers else (0,):
            for low in range(v - 2 + top_joker, max(stretch, v - 4 + top_joker) - 1, -1):
                for n in range(low, v):
                    cnt[_NCOL * n + c] -= 1
                # one or two tiles of colour c cut off below the run can only be in groups
                ok = (
                    cnt[_NCOL * low + c]
                    or not 0 < low - stretch < 3
                    or all(sum(1 for d in cnt[_NCOL * n : _NCOL * n + _NCOL] if d) >= 3 for n in range(stretch, low))
                ) and place(v, jokers - top_joker)
                for n in range(low, v):
                    cnt[_NCOL * n + c] += 1
                if ok:
                    return True
        # groups of this number; jokers in them only at 13
        others = [base + d for d in range(c + 1, _NCOL) if cnt[base + d]]
        spare = min(jokers, 3) if v == _TOP else 0
        for mask in range(1 << len(others)):
            chosen = [others[k] for k in range(len(others)) if mask >> k & 1]
            size = 1 + len(chosen)
            for extra in range(max(0, 3 - size), min(spare, 4 - size) + 1):
                for i in chosen:
                    cnt[i] -= 1
                ok = place(v, jokers - extra)
                for i in chosen:
                    cnt[i] += 1
                if ok:
                    return True
        cnt[base + c] += 1
        failed.add(key)
        return False

    found = place(_TOP, jokers)
    return None if not found and steps[0] < 0 else found


# --- what one colour can do at one number --------------------------------------------------

_MOVES: dict[tuple[int, int, int, int, int, int], tuple[Move, ...]] = {}
_PATTERNS: dict[tuple[int, int, int], tuple[tuple[int, int, int, int, int], ...]] = {}
_GROUPS: dict[tuple[int, int, int], tuple[int, ...]] = {}


def _moves(state: State, a: int, left: int, v: int) -> tuple[Move, ...]:
    """The moves of a colour in ``state`` with ``a`` tiles at number ``v`` and ``left``
    jokers: (new state, jokers used, tiles sent to groups, value gained), the best value per
    outcome. Memoised (the table does not depend on anything else)."""
    x1, x2, x3 = state
    useful = x1 + x2 + x3 + a * (_TOP - v)  # jokers beyond these cannot be placed here
    if left > useful:
        left = useful
    key = (x1, x2, x3, a, left, v)
    found = _MOVES.get(key)
    if found is None:
        found = _MOVES[key] = _make_moves(x1, x2, x3, a, left, v)
    return found


def _make_moves(x1: int, x2: int, x3: int, a: int, left: int, v: int) -> tuple[Move, ...]:
    forced = x1 + x2
    best: dict[tuple[State, int, int], int] = {}
    for rf in range(max(0, forced - left), min(a, forced) + 1):
        jf = forced - rf  # jokers extending runs of 1-2 tiles
        a1, k1 = a - rf, left - jf
        for e3 in range(x3 + 1):  # runs of 3+ tiles extended (the others end)
            for r3 in range(max(0, e3 - k1), min(a1, e3) + 1):
                j3 = e3 - r3  # of them by jokers
                a2, k2 = a1 - r3, k1 - j3
                for s in range(a2 + 1):  # runs started by a tile
                    a3 = a2 - s
                    for s0, s1, t2, u2, above in _start_patterns(s, k2, v):
                        if s0 and e3 < x3:
                            continue  # a run started next to one that ends: extend that one
                        new = (s0, x1 + s1, x2 + e3 + t2)
                        if (v < 3 and new[0]) or (v < 2 and new[1]):
                            continue  # too close to 1 to reach 3 tiles
                        jk = jf + j3 + s1 + u2
                        for g in range(a3 + 1):  # tiles sent to groups, the rest left over
                            if a3 - g and (jf or j3 or e3 < x3):
                                continue  # a tile left over could replace a joker or extend a run
                            gain = v * (forced + e3 + s + g) + above
                            mk = (new, jk, g)
                            if best.get(mk, _NONE) < gain:
                                best[mk] = gain
    return tuple((k[0], k[1], k[2], gain) for k, gain in best.items())


def _start_patterns(s: int, k: int, v: int) -> tuple[tuple[int, int, int, int, int], ...]:
    """Ways to start ``s`` runs whose highest numbered tile is at ``v`` with at most ``k``
    jokers above them: (runs with no joker above, with one, with two or more, jokers in the
    last kind, value of all the jokers above). Only the count per kind matters afterwards, so
    the jokers of the last kind are stacked as high as they go (each such run gets 2..13-v;
    the value only grows with height): one pattern per joker count."""
    key = (s, k, v)
    found = _PATTERNS.get(key)
    if found is not None:
        return found
    room = _TOP - v
    out = []
    for s1 in range(min(s, k) + 1 if room >= 1 else 1):
        for t2 in range(s - s1 + 1 if room >= 2 else 1):
            for u2 in range(2 * t2, min(k - s1, t2 * room) + 1):
                value, extra = 0, u2 - 2 * t2
                for _ in range(t2):
                    n = 2 + min(extra, room - 2)
                    extra -= n - 2
                    value += n * v + n * (n + 1) // 2
                out.append((s - s1 - t2, s1, t2, u2, s1 * (v + 1) + value))
    found = _PATTERNS[key] = tuple(out)
    return found


def _group_jokers(most: int, total: int, left: int) -> tuple[int, ...]:
    """Joker counts that let ``total`` tiles of one number, at most ``most`` of one colour,
    form groups: ``G`` groups need ``most <= G <= total`` (a colour once per group, a numbered
    tile in each) and ``3G <= total + jokers <= 4G``; dealing the tiles round robin then works."""
    if total == 0:
        return (0,)
    key = (most, total, left)
    found = _GROUPS.get(key)
    if found is None:
        found = _GROUPS[key] = tuple(
            j for j in range(left + 1) if max(most, -(-(total + j) // 4)) <= min(total, (total + j) // 3)
        )
    return found


# --- the search over the numbers -----------------------------------------------------------


def _joker_bound(grid: list[list[int]], v: int, jokers: int) -> list[int]:
    """For k = 0..jokers, the most k jokers can add once the numbers above ``v`` are done.
    A joker then stands at ``v`` or lower, or above ``v`` in the stack of jokers over a run
    whose highest numbered tile is at ``v`` or lower: those stacks start at ``v + 1``, one per
    run, and there are at most ``N`` runs (every set holds a numbered tile). At a number ``p``
    at most ``N`` jokers lie in runs and 3 per group, a group per tile of ``p`` at most. So:
    full stacks first (every joker above ``v`` beats every one below), then the numbers below."""
    sets = sum(map(sum, grid))
    values: list[int] = []
    height = _TOP - v
    if height > 0:
        column = list(range(v + 1, _TOP + 1))
        while len(values) < jokers and len(values) < sets * height:
            values += column
    p = v
    while len(values) < jokers and p >= MIN_NUMBER:
        room = sets + 3 * sum(grid[c][p] for c in range(_NCOL))
        values += [p] * min(room, jokers - len(values))
        p -= 1
    bound = [0]
    for x in values[:jokers]:
        bound.append(bound[-1] + x)
    bound += [bound[-1]] * (jokers + 1 - len(bound))
    return bound


def _clear_large_caches() -> None:
    """The module's move tables are shared by all calls: cleared when large, so memory stays
    bounded."""
    for cache in (_MOVES, _PATTERNS, _GROUPS):
        if len(cache) > _CACHE_LIMIT:
            cache.clear()


class _OutOfWork(Exception):
    """The passes used up ``_Search.work_left``."""


class _Search:
    """Branch and bound passes of the dynamic programme for one (capped) multiset. A state
    packs each colour's (runs of 1, 2, 3+ tiles) in fields of ``width`` bits."""

    def __init__(self, grid: list[list[int]], jokers: int) -> None:
        self.grid = grid
        self.jokers = jokers
        steps = len(_ORDER)
        self.rest = [0] * (steps + 1)  # value of the tiles from step i on
        for i in range(steps - 1, -1, -1):
            v = _ORDER[i]
            self.rest[i] = self.rest[i + 1] + v * sum(grid[c][v] for c in range(_NCOL))
        self.jb = [_joker_bound(grid, _ORDER[i] if i < steps else 0, jokers) for i in range(steps + 1)]
        self.upper = self.rest[0] + self.jb[0][jokers]
        # runs in progress never exceed the tiles and jokers that could have started them
        most = max(max(row) for row in grid) * 2 + jokers
        self.width = max(1, most.bit_length())
        self.need_memo: dict[tuple[int, int, State], int] = {}
        self.table: dict[tuple[int, int, int, int], list[StepMove]] = {}
        self.signatures: dict[int, tuple[int, int]] = {}
        self.work_left: int | None = None  # None: no limit
        self.lower = 0  # the best value a pass has found so far

    def best(self, reached: int = 0, bound: int | None = None) -> int:
        """The value, knowing that it is at least ``reached`` and at most ``bound`` (when given,
        those bounds replace the search's own: the cover search and the first pass at the
        upper bound are skipped)."""
        if bound is None:
            tiles = sum(map(sum, self.grid))
            covered: bool | None = None
            # the cover search places every joker at 13: the bound, unless jokers outnumber 13s
            if self.jb[0][self.jokers] == _TOP * self.jokers:
                budget = 50 * tiles + 100 if self.jokers == 0 else 2 * tiles + 50 if tiles > 64 else tiles + 30
                covered = _covers(self.grid, self.jokers, budget)
                if covered:
                    return self.upper
            if covered is None and self.search(self.upper) >= self.upper:
                return self.upper
            bound = self.upper - 1
        # passes at falling thresholds: the answer lies in lower .. last - 1
        lower, last, step = reached, min(bound, self.upper) + 1, 2
        while True:
            if step == 8:  # the answer is not close to the bound: find a lower bound
                lower = max(lower, self.search(0, beam=4))
            self.lower = lower
            if lower + 1 >= last:
                return lower
            threshold = last - step
            if lower:  # close to the lower bound, prove it; else halve the interval
                threshold = lower + 1 if last - lower <= 8 else max(threshold, (lower + 1 + last) // 2)
            threshold = max(threshold, lower + 1)
            found = self.search(threshold)
            if found >= threshold:
                return found
            lower = max(lower, found)
            self.lower = lower
            last, step = threshold, 2 * step

    def pack(self, state: State) -> int:
        w = self.width
        return state[0] | (state[1] << w) | (state[2] << (2 * w))

    def unpack(self, packed: int, c: int) -> State:
        w = self.width
        mask = (1 << w) - 1
        field = packed >> (3 * w * c)
        return field & mask, (field >> w) & mask, (field >> (2 * w)) & mask

    def need(self, c: int, i: int, state: State) -> int:
        """Fewest jokers colour ``c`` needs to finish its runs of 1-2 tiles from step ``i``
        (a lower bound: its tiles could all go to those runs)."""
        key = (c, i, state)
        found = self.need_memo.get(key)
        if found is None:
            x1, x2, _ = state
            if not x1 and not x2:
                found = 0
            elif i == len(_ORDER):
                found = _FAR
            else:
                short = max(0, x1 + x2 - self.grid[c][_ORDER[i]])
                found = min(_FAR, short + self.need(c, i + 1, (0, x1, 0))) if x1 else short
            self.need_memo[key] = found
        return found

    def step_moves(self, i: int, c: int, packed: int, left: int) -> list[StepMove]:
        """The moves of colour ``c`` at step ``i`` in the packed state, with ``left`` jokers:
        (change of the packed state, jokers used, tiles to groups, value); moves leaving runs
        that cannot be finished are dropped."""
        state = self.unpack(packed, c)
        key = (i, c, self.pack(state), left)
        found = self.table.get(key)
        if found is None:
            v = _ORDER[i]
            shift = 3 * self.width * c
            old = self.pack(state) << shift
            found = []
            for new, jk, g, gain in _moves(state, self.grid[c][v], left, v):
                if (new[0] or new[1]) and self.need(c, i + 1, new) > left - jk:
                    continue
                found.append(((self.pack(new) << shift) - old, jk, g, gain))
            self.table[key] = found
        return found

    def search(self, threshold: int, beam: int = 0) -> int:
        """The best value among the solutions whose bound stays at least ``threshold`` (every
        solution worth that much is among them); -1 when none is left. With ``beam``, only
        the most promising states are kept at each step: a quick lower bound."""
        jokers = self.jokers
        grid = self.grid
        rest = self.rest
        table = self.table
        field_mask = (1 << (3 * self.width)) - 1
        layer: dict[tuple[int, int], int] = {(0, 0): 0}
        for i, v in enumerate(_ORDER):
            counts = [grid[c][v] for c in range(_NCOL)]
            later = sum(counts)
            jb = self.jb[i]
            cur: dict[tuple[int, int, int, int], int] = {(k[0], k[1], 0, 0): val for k, val in layer.items()}
            for c in range(_NCOL):
                later -= counts[c]
                floor = threshold - rest[i + 1] - later * v
                shift = 3 * self.width * c
                nxt: dict[tuple[int, int, int, int], int] = {}
                get = nxt.get
                work = len(cur)
                for (packed, used, most, total), value in cur.items():
                    left = jokers - used
                    moves = table.get((i, c, (packed >> shift) & field_mask, left))
                    if moves is None:
                        moves = self.step_moves(i, c, packed, left)
                    work += len(moves)
                    for delta, jk, g, gain in moves:
                        val = value + gain
                        if val + jb[left - jk] < floor:
                            continue
                        if g:
                            m2 = most if most >= g else g
                            t2 = total + g
                            if 3 * m2 > t2 + later + left - jk:
                                continue  # these group tiles can no longer make groups
                            k2 = (packed + delta, used + jk, m2, t2)
                        else:
                            k2 = (packed + delta, used + jk, most, total)
                        if get(k2, _NONE) < val:
                            nxt[k2] = val
                if self.work_left is not None:
                    self.spend(work)
                if beam and len(nxt) > 8 * beam:
                    # the most promising states, and some whose group tiles already make groups
                    ranked = sorted(nxt.items(), key=lambda kv: kv[1] + jb[jokers - kv[0][1]], reverse=True)
                    safe = [kv for kv in ranked if _group_jokers(kv[0][2], kv[0][3], jokers - kv[0][1])]
                    nxt = dict(ranked[: 8 * beam] + safe[:beam])
                cur = nxt
            floor = threshold - rest[i + 1]
            jb = self.jb[i + 1]
            layer = {}
            for (packed, used, most, total), value in cur.items():
                for jg in _group_jokers(most, total, jokers - used):
                    u = used + jg
                    val = value + v * jg
                    if val + jb[jokers - u] < floor:
                        continue
                    if layer.get((packed, u), _NONE) < val:
                        layer[(packed, u)] = val
            if len(layer) > 1:
                layer = self.pareto(layer)
            if beam and len(layer) > beam:
                kept = sorted(layer.items(), key=lambda kv: kv[1] + jb[jokers - kv[0][1]], reverse=True)
                layer = dict(kept[:beam])
        return max(layer.values(), default=-1)

    def pareto(self, layer: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
        """Drop every state that another one dominates: at least its value, at most its jokers
        used and, colour by colour, no more runs of 1 tile, no more runs of 1-2 tiles and at
        least as many runs (give each run of the dominated state a run at least as long; the
        dominating state's other runs hold 3+ tiles and may end: it finishes whatever the
        dominated one can). Fields are compared all at once (guard bits, one subtraction)."""
        signatures = self.signatures
        items = []
        for (packed, used), value in layer.items():
            found = signatures.get(packed)
            if found is None:
                found = signatures[packed] = self.signature(packed)
            if found[0] < 0 or used >= _SIG_LIMIT:
                return layer
            items.append((-value, found[1] + used, found[0] | used, packed, used))
        items.sort()  # best value first; among equals, a dominating state sorts first
        kept: list[int] = []
        out = {}
        for negative, _, sig, packed, used in items:
            if self.work_left is not None:
                self.spend(len(kept))
            probe = sig | _SIG_GUARD
            for other in kept:
                if (probe - other) & _SIG_GUARD == _SIG_GUARD:
                    break
            else:
                kept.append(sig)
                out[(packed, used)] = -negative
        return out

    def spend(self, work: int) -> None:
        """Count ``work`` against ``work_left``; raise ``_OutOfWork`` once it is used up."""
        assert self.work_left is not None
        self.work_left -= work
        if self.work_left < 0:
            raise _OutOfWork

    def signature(self, packed: int) -> tuple[int, int]:
        """The dominance fields of a packed state, jokers used going in the lowest field, and
        their sum; (-1, 0) when a count is too large for a field."""
        sig = 0
        weight = 0
        shift = _SIG_WIDTH
        for c in range(_NCOL):
            x1, x2, x3 = self.unpack(packed, c)
            q, r = x1 + x2, x1 + x2 + x3
            if r >= _SIG_LIMIT:
                return -1, 0
            sig |= (x1 << shift) | (q << (shift + _SIG_WIDTH)) | ((_SIG_LIMIT - 1 - r) << (shift + 2 * _SIG_WIDTH))
            shift += 3 * _SIG_WIDTH
            weight += x1 + q - r
        return sig, weight


_SIG_WIDTH = 12
_SIG_LIMIT = 1 << (_SIG_WIDTH - 1)
_SIG_GUARD = sum(1 << (f * _SIG_WIDTH + _SIG_WIDTH - 1) for f in range(3 * _NCOL + 1))
