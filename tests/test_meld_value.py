"""``best_meld_value`` (SPEC §4, opening with manipulation): exact against a brute force over
every partition, against the solver, and sane on multisets no tile supply allows."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.meld_value as meld_value
from engine.meld_value import best_meld_value, bounded_meld_value
from engine.rules import resolve_rules
from engine.sets import read_set
from engine.solver import suggest
from engine.solver.melds import MeldProgramme
from engine.tiles import COLORS, parse_tiles, tiles_of_keys

NUMBERED = [f"{c}{n}" for c in COLORS for n in range(1, 14)]


# --- the reference: every partition of the multiset ------------------------------------------


def set_value(keys: tuple[str, ...]) -> int | None:
    """The best value of ``keys`` as one set laid in any order, or None (SPEC §2, from first
    principles: a group of 3-4 distinct colours of one number, a run of 3-13 of one colour)."""
    if len(keys) < 3:
        return None
    plain = [(k[0], int(k[1:])) for k in keys if k != "J"]
    if not plain:
        return None
    best = None
    colours = [c for c, _ in plain]
    numbers = {n for _, n in plain}
    if len(numbers) == 1 and len(set(colours)) == len(colours) and len(keys) <= 4:
        best = plain[0][1] * len(keys)
    if len(set(colours)) == 1 and len(numbers) == len(plain) and len(keys) <= 13:
        size = len(keys)
        for first in range(1, 15 - size):
            if first <= min(numbers) and max(numbers) <= first + size - 1:
                value = sum(range(first, first + size))
                best = value if best is None else max(best, value)
    return best


def brute(counts: Mapping[str, int]) -> int:
    """The most disjoint sets can be worth: the first tile is left out or lies in some set
    with other tiles; every sub-multiset is tried."""

    @cache
    def best(tiles: tuple[str, ...]) -> int:
        if not tiles:
            return 0
        first, others = tiles[0], tiles[1:]
        result = best(others)
        seen = set()
        for size in range(2, len(others) + 1):
            for chosen in itertools.combinations(range(len(others)), size):
                picked = tuple(others[i] for i in chosen)
                if picked in seen:
                    continue
                seen.add(picked)
                value = set_value((first, *picked))
                if value is not None:
                    left = tuple(t for i, t in enumerate(others) if i not in chosen)
                    result = max(result, value + best(left))
        return result

    return best(tuple(sorted(k for k, n in counts.items() for _ in range(n))))


def test_reference_set_value_agrees_with_read_set() -> None:
    """The reference reads sets as the engine does, the player choosing the order."""
    rng = random.Random(7)
    for _ in range(400):
        colour, low = rng.choice(COLORS), rng.randint(1, 11)
        pool = [f"{colour}{n}" for n in range(low, low + 3)] + [f"{c}{low}" for c in COLORS] + ["J"] * 3
        keys = tuple(rng.sample(pool, rng.randint(3, 5)))
        engine = [read_set(parse_tiles(" ".join(p))) for p in set(itertools.permutations(keys))]
        values = [r.value for r in engine if r.valid and r.value is not None]
        assert set_value(keys) == (max(values) if values else None), keys


# --- worked cases --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tiles", "value"),
    [
        ("R1 R2 J B5 B6 B7", 26),  # R1 R2 left out; B5 B6 B7 J=B8
        ("B4 B5 B6 B7 B8 B9", 39),
        ("R11 R12 J", 36),
        ("K5 B5 J", 15),
        ("J J R13", 39),  # the group R13 J J (39) beats the run R11 R12 R13 (36)
        ("J J J", 0),
        ("", 0),
        ("R5 R5 R5", 0),
        ("R5 B5 O5 K5 R5", 20),
        ("R12 R13 J", 36),  # the joker can only be R11
        ("R1 J J", 6),  # R1 R2 R3, or the group of 1s (3)
        ("R5 J R7 R9 J R11", 48),  # R5 J R7 (18) and R9 J R11 (30); one run would need 7 tiles
        ("K13 B13 O13 R13 J", 52),  # a group holds 4 tiles at most
        ("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13", 91),
        ("R5 J J J J J J J J J J J J J J", 91),  # 12 jokers make R1..R13; the rest are idle
        ("R5 J J J J J J J J J J J", 90),  # 11 jokers: R2..R13
        ("R13 J J J J J", 63),  # R8..R13; the group R13 J J J holds three jokers only
    ],
)
def test_worked_cases(tiles: str, value: int) -> None:
    counts = Counter(tiles.split())
    assert best_meld_value(counts) == value
    if sum(counts.values()) <= 9:
        assert brute(counts) == value


def test_full_supplies_are_worth_everything() -> None:
    classic = Counter({k: 2 for k in NUMBERED} | {"J": 2})
    xp = Counter({k: 3 for k in NUMBERED} | {"J": 4})
    assert best_meld_value(classic) == 2 * 364 + 2 * 13
    assert best_meld_value(xp) == 3 * 364 + 4 * 13


def test_an_opening_of_sixteen_sets_is_worth_its_sets() -> None:
    sets = [f"{c}{n} {c}{n + 1} {c}{n + 2}" for c in COLORS for n in (1, 4, 7, 10)]
    counts = Counter(" ".join(sets).split())
    assert sum(counts.values()) == 48
    assert best_meld_value(counts) == sum(sum(int(t[1:]) for t in s.split()) for s in sets)


def test_the_turn_benchmark_opening() -> None:
    """bench/bench_turn_worst.py: 16 runs and R13. With K3 and B5 played as jokers the bound
    is still reached: every numbered tile in a set and both jokers standing for 13s."""
    runs = " ".join(f"{c}{n}" for c in COLORS for n in range(1, 13))
    assert best_meld_value(Counter(f"{runs} R13".split())) == 312 + 13
    with_jokers = Counter(f"{runs} R13".replace("K3 ", "J ").replace("B5 ", "J ").split())
    assert best_meld_value(with_jokers) == 312 + 13 - 3 - 5 + 2 * 13


def test_accepts_counters_and_ignores_empty_counts() -> None:
    assert best_meld_value({"R5": 1, "R6": 1, "R7": 1, "B2": 0, "K9": -3}) == 18


@pytest.mark.parametrize("key", ["X5", "R14", "R0", "r5", "J=R5", ""])
def test_rejects_keys_that_are_not_tile_keys(key: str) -> None:
    with pytest.raises(ValueError, match="not a tile key"):
        best_meld_value({key: 1, "R5": 1})


# --- random multisets against the brute force --------------------------------------------


@st.composite
def small_multisets(draw: st.DrawFn, most: int = 9, copies: int = 3) -> Counter[str]:
    """Up to ``most`` tiles from a few colours and neighbouring numbers (so sets are likely),
    up to ``copies`` of a tile and 0-4 jokers."""
    colours = draw(st.lists(st.sampled_from(COLORS), min_size=1, max_size=4, unique=True))
    low = draw(st.integers(1, 13))
    numbers = [n for n in range(low - 2, low + 3) if 1 <= n <= 13]
    keys = [f"{c}{n}" for c in colours for n in numbers]
    jokers = draw(st.integers(0, 4))
    tiles = draw(st.lists(st.sampled_from(keys), max_size=most - jokers))
    counts = Counter(tiles)
    for key in counts:
        counts[key] = min(counts[key], copies)
    counts["J"] = jokers
    return counts


@settings(max_examples=400, deadline=None)
@given(small_multisets())
def test_matches_the_brute_force(counts: Counter[str]) -> None:
    assert best_meld_value(counts) == brute(counts)


@settings(max_examples=150, deadline=None)
@given(small_multisets(most=10, copies=8))
def test_many_copies_match_the_brute_force(counts: Counter[str]) -> None:
    """The caps drop copies no collection of sets could use: they never change the answer."""
    assert best_meld_value(counts) == brute(counts)


@settings(max_examples=200, deadline=None)
@given(small_multisets(), st.integers(0, 60))
def test_at_most_is_the_smaller_of_the_value_and_the_cap(counts: Counter[str], at_most: int) -> None:
    assert best_meld_value(counts, at_most) == min(brute(counts), at_most)


# --- the integer programme, and the passes from its bounds ----------------------------------


@settings(max_examples=300, deadline=None)
@given(small_multisets())
def test_the_programme_proves_the_brute_force_value(counts: Counter[str]) -> None:
    programme = MeldProgramme(counts)
    value = brute(counts)
    assert programme.solve(30.0) == (value, value)
    bound = programme.relaxation_bound()
    assert bound is not None and bound >= value


@settings(max_examples=100, deadline=None)
@given(small_multisets(), st.data())
def test_the_programme_starting_from_a_reached_value(counts: Counter[str], data: st.DataObject) -> None:
    """Told that a value is reached, it seeks only better solutions; when there is none, that
    value is the answer."""
    value = brute(counts)
    reached = data.draw(st.integers(0, value))
    assert MeldProgramme(counts).solve(30.0, reached) == (value, value)


def test_the_programme_told_the_optimum_is_reached() -> None:
    """Nothing scores more than 40 here: HiGHS answered "optimal" with no tile laid (value 0),
    and the programme said no more than 0 could be reached (found by the test above)."""
    assert MeldProgramme(Counter({"J": 4, "K5": 2, "K2": 1, "K3": 1})).solve(30.0, 40) == (40, 40)


@pytest.mark.parametrize(
    ("tiles", "value"),
    [
        ("R1 R2 R3 J J J J", 28),  # R1..R7: a long run that does not split (J J J J alone is no set)
        ("R7 J J J J", 45),  # R7..R11
        ("R4 J J J J R11", 55),  # R9..R13 around R11 (R4..R11 would need 6 jokers)
        ("R4 R5 J J R8 R9", 42),  # R4 R5 J + R8 R9 J beat the run R4..R9 (39)
        ("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13", 91),  # split in runs of 3-5
        ("R5 J J J J J J", 0),  # more than 4 jokers: the programme is not asked (its columns multiply)
    ],
)
def test_the_programme_on_long_runs(tiles: str, value: int) -> None:
    counts = Counter(tiles.split())
    if counts["J"] > 4:
        assert best_meld_value(counts) == 5 + 6 + 7 + 8 + 9 + 10 + 11  # R5..R11, by the passes
        return
    assert MeldProgramme(counts).solve(30.0) == (value, value)
    assert best_meld_value(counts) == value
    if sum(counts.values()) <= 9:
        assert brute(counts) == value


@settings(max_examples=150, deadline=None)
@given(small_multisets(), st.data())
def test_the_passes_from_any_true_bounds(counts: Counter[str], data: st.DataObject) -> None:
    """The passes given an interval holding the value (the programme's bounds) find it."""
    value = brute(counts)
    reached = data.draw(st.integers(0, value))
    bound = data.draw(st.integers(value, value + 40))
    grid, jokers = meld_value._read(counts)
    jokers = meld_value._cap(grid, jokers)
    if meld_value._without_search(grid, jokers) is None:
        assert meld_value._Search(grid, jokers).best(reached, bound) == value


# A failed opening of 47 tiles with 4 jokers (XP supply): the programme's relaxation is 357,
# its first solutions 334; the passes settle 356 between them. The 100-tile one took the
# passes alone 5.5 s; the programme proves its value directly.
HARD_47 = {
    "O7": 1, "K6": 2, "B9": 2, "R10": 2, "O9": 1, "R13": 1, "O13": 1, "K1": 3, "B11": 2, "K13": 1,
    "R5": 1, "K7": 1, "O11": 1, "B13": 1, "R4": 1, "O10": 2, "O1": 1, "R3": 2, "K9": 1, "K11": 2,
    "B10": 2, "O2": 1, "K10": 1, "K5": 1, "O3": 1, "B2": 1, "K12": 1, "O5": 1, "B3": 2, "O12": 1,
    "R7": 1, "R6": 1, "O6": 1, "J": 4,
}  # fmt: skip


def test_a_hard_multiset_by_every_route(monkeypatch: pytest.MonkeyPatch) -> None:
    assert best_meld_value(HARD_47) == 356
    assert best_meld_value(HARD_47, 357) == 356
    assert best_meld_value(HARD_47, 300) == 300
    assert MeldProgramme(HARD_47).solve(60.0) == (356, 356)
    assert MeldProgramme(HARD_47).relaxation_bound() == 357
    monkeypatch.setattr(meld_value, "_TURNS", ())  # the passes alone
    assert best_meld_value(HARD_47) == 356
    monkeypatch.setattr(meld_value, "_TURNS", ((1, 0.0),))  # the programme stopped at once
    assert best_meld_value(HARD_47) == 356


# 100 XP tiles with 4 jokers: the relaxation says 684, the programme's first tenth of a second
# 630..683, and narrow passes at 683 find a solution worth it.
HARD_100 = {
    "B13": 2, "B4": 2, "K13": 2, "B8": 3, "B5": 2, "O7": 2, "R3": 3, "K7": 2, "K2": 3, "O4": 3,
    "K11": 2, "O13": 2, "R9": 2, "O6": 2, "O5": 2, "B9": 2, "R1": 2, "O1": 3, "R11": 2, "K6": 3,
    "B1": 3, "R6": 2, "K4": 2, "R4": 3, "B3": 1, "R8": 1, "K10": 3, "O12": 1, "O8": 2, "K12": 1,
    "B11": 3, "K3": 1, "O11": 2, "O9": 1, "B7": 1, "R7": 2, "K8": 1, "R13": 1, "R2": 1, "O3": 2,
    "O10": 2, "K9": 1, "B6": 2, "R5": 2, "O2": 3, "K1": 1, "B10": 1, "B2": 1, "R10": 1, "B12": 1,
    "R12": 1, "J": 4,
}  # fmt: skip


def test_a_hard_hundred_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    programme = MeldProgramme(HARD_100)
    assert programme.relaxation_bound() == 684
    assert programme.solve(60.0) == (683, 683)
    assert best_meld_value(HARD_100) == 683
    assert best_meld_value(HARD_100, 683) == 683
    assert best_meld_value(HARD_100, 684) == 683
    monkeypatch.setattr(meld_value, "_BOUND_BEAMS", ())  # the programme's turns alone
    assert best_meld_value(HARD_100) == 683


# --- larger multisets against the solver ----------------------------------------------------


def test_matches_the_solver_on_random_racks() -> None:
    """``engine.solver`` maximises the value of an opening (no minimum) independently."""
    rules = resolve_rules({"preset": "xp", "initial_meld_min": 0})  # 3 copies, 4 jokers
    rng = random.Random(2026)
    checked = 0
    for _ in range(60):
        pool = [k for k in NUMBERED for _ in range(rng.choice([1, 2, 3]))] + ["J"] * rng.randint(0, 4)
        if rng.random() < 0.5:
            low = rng.randint(1, 8)
            pool = [k for k in pool if k == "J" or low <= int(k[1:]) <= low + 5]
        counts = Counter(rng.sample(pool, min(rng.randint(8, 22), len(pool))))
        move = suggest((), tiles_of_keys(counts), False, rules, objective="value", budget_seconds=30)
        assert move.optimal_proven
        assert best_meld_value(counts) == move.value, sorted(counts.items())
        checked += 1
    assert checked == 60


# --- multisets no tile supply allows ------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "value"),
    [
        ({"R5": 40}, 0),
        ({"J": 30}, 0),
        ({"R5": 40, "B5": 40}, 0),
        ({"R5": 40, "B5": 40, "O5": 1}, 15),
        ({"R5": 40, "J": 2}, 5 + 6 + 7 + 0),  # R5 J J: the run R5 R6 R7 beats the group
    ],
)
def test_absurd_counts(counts: dict[str, int], value: int) -> None:
    assert best_meld_value(counts) == value


def test_copies_of_a_run_count_in_full() -> None:
    """No cap on copies can be a constant: every copy of R4 R5 R6 makes one more run."""
    assert best_meld_value({"R4": 40, "R5": 40, "R6": 40}) == 40 * 15
    assert best_meld_value({"R4": 40, "R5": 40, "R6": 1}) == 15


def test_jokers_beyond_twelve_per_tile_add_nothing() -> None:
    assert best_meld_value({"R5": 2, "B9": 1, "J": 36}) == 3 * 91
    assert best_meld_value({"R5": 2, "B9": 1, "J": 1000}) == 3 * 91


def test_joker_heavy_and_dense_multisets_finish() -> None:
    """Far beyond any supply, the answer is still exact (checked by its bounds here)."""
    counts = Counter({f"K{n}": 1 for n in range(1, 11)} | {"J": 30})
    value = best_meld_value(counts)
    assert 55 + 30 * 9 <= value <= 10 * 91
    rng = random.Random(11)
    dense = Counter(rng.choice(NUMBERED[:8]) for _ in range(150)) + Counter({"J": 10})
    assert best_meld_value(dense) >= best_meld_value(dense - Counter({"J": 10}))


@pytest.mark.parametrize("seed", range(6))
def test_bounded_value_is_exact_within_its_work_and_a_lower_bound_beyond(seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"{c}{n}" for c in COLORS for n in range(1, 14)]
    counts = Counter(rng.choices(keys, k=30))
    counts["J"] = 2
    exact = best_meld_value(counts)
    assert bounded_meld_value(counts) == (exact, True)
    low, finished = bounded_meld_value(counts, 0)  # no work beyond the first, narrow pass
    assert low == exact if finished else 0 <= low <= exact
