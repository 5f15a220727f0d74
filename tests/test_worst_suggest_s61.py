"""Session 61, helper ``worst`` (WORST-1): the least change's few-moved step listed every column
of its programme before refusing a programme of more than ``_MOST_COLUMNS`` (a 105-tile XP
rack beside a small table: 43,737 columns, 1.3 s, the suggestion 2.4-2.9 s against its 1 s
budget); it now stops listing at the limit, with the same answer (the step not answered)."""

from __future__ import annotations

from collections import Counter

from engine.rules import resolve_rules
from engine.solver import few_moved, suggest
from engine.tiles import parse_tiles
from service.operations import run_operation

TABLE = [["O7", "O8", "J", "O10", "O11"], ["R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"], ["K10", "B10", "O10"]]
RACK_TEXT = (
    "O6 B11 B2 K12 K4 K5 O1 O7 O8 R6 K9 O9 J B4 O2 O9 O12 K1 K6 B10 K9 B7 O4 K3 K1 J K3 B7 O12 B7 B12 "
    "B1 K13 O5 R12 K13 O1 O13 K7 O11 B8 K8 K10 O2 B10 R1 O7 B13 K11 B5 K10 K1 R2 O6 R8 O5 K12 O11 O12 "
    "K13 B9 K5 O4 K2 R3 R9 B12 R12 B6 B4 O5 R13 R11 B12 R10 B3 O8 B2 K11 K11 R5 B1 O6 B3 B3 K12 R11 "
    "K9 R13 O2 K2 R1 B4 O9 B8 B8 B13 O3 B5 B13 J K4 B9 B5 K4"
)
RACK = RACK_TEXT.split()
RULES = {
    "preset": "strict-joker",
    "tiles": "xp",
    "manipulate_on_opening_turn": True,
    "joker_release": "free",
    "freed_joker_use": "new_set_with_two_rack_tiles",
    "joker_sets_locked": True,
    "initial_meld_min": 300,
}


def test_a_programme_beyond_the_column_limit_is_not_listed_whole(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The listing stops one column past the limit (it listed all 43,737 before)."""
    table = [parse_tiles(" ".join(s)) for s in TABLE]
    rack = parse_tiles(" ".join(RACK))
    layouts = 0
    real = few_moved._valid_layout

    def counted(*args):  # type: ignore[no-untyped-def]
        nonlocal layouts
        layouts += 1
        return real(*args)

    monkeypatch.setattr(few_moved, "_valid_layout", counted)
    moves = few_moved.few_moved_moves(table, rack, resolve_rules(RULES), (1, 0), 1, 2, 30.0)
    assert next(moves) is None  # not answered, as when the whole programme was refused
    assert layouts <= few_moved._MOST_COLUMNS + 1


def test_the_columns_under_the_limit_are_all_listed() -> None:
    """A small position's programme is listed whole, as before."""
    table = [parse_tiles("R1 R2 R3"), parse_tiles("K5 B5 O5")]
    rack: Counter[tuple[int, int]] = Counter({(0, 4): 1})
    befores = [few_moved._before(s) for s in table]
    cols = few_moved._columns(table, [b for b in befores if b is not None], rack, resolve_rules("sabra"), 2)
    assert cols is not None and 0 < len(cols.shapes) <= few_moved._MOST_COLUMNS


def test_the_answer_is_unchanged() -> None:
    """With time enough (the service's 1 s runs out on loaded cores) the whole rack is played
    and verifies."""
    rules = resolve_rules(RULES)
    answer = suggest([parse_tiles(" ".join(s)) for s in TABLE], parse_tiles(" ".join(RACK)), False, rules, "tiles", 30)
    assert len(answer.played) == 105 and answer.value == 764 and answer.optimal_proven
    after = [[str(t) for t in s] for s in answer.after]
    verdict = run_operation(
        "turns/verify", {"before": TABLE, "after": after, "rack": RACK, "opened": False, "rules": RULES}, "en"
    )
    assert verdict["valid"] is True
