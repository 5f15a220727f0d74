"""A worker's first verdict costs what its later ones do (WORST-3, session 62).

Session 61's costliest verify left on the event loop (pressman-2009 with xp tiles, locked sets,
``strict_order``; 1.4 KB, illegal) cost 0.41-0.47 s of CPU as the first call of a bare process
and 0.15 s after it: the difference is numpy, scipy and HiGHS, imported by its freed jokers'
new-set checks. A server's worker imports them before it listens (``rsgi_app``:
``new_sets_programme.prepare()``), so on a fresh server its first such verify took what later
ones did (0.17 s over HTTP, median of 5 fresh servers each way). These tests keep it so: after
what a worker does before it listens, the verify (en and es) and a small one import nothing.

The verify stays inline, as every verdict under rules without ``manipulate_on_opening_turn`` or
both ``joker_sets_locked`` and ``group_joker_needs_both_colours`` does: what makes it cost (four
table jokers of an xp set moved) is an ordinary xp turn (18% of the turns of 59 generated xp
games move a table joker, at most 5.5 ms each), and a budget process would add ~0.65 ms to each
and a 503 under a full share (docs/service.md, "Fair share")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from service.operations import is_budgeted

WORST3 = {
    "before": [
        ["R1", "K1", "B1"],
        ["J", "O3", "O4"],
        ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "J", "B11", "B12"],
        ["B13", "O13", "J", "K13"],
        ["B1", "J", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13"],
        ["K8", "B8", "O4"],
        ["K6", "R4", "O13"],
        ["R1", "K1", "B1"],
    ],
    "after": [
        ["B13"],
        ["B2", "K13", "B5", "B6", "B7", "B8", "O12", "B10", "B9", "B11", "B12", "R1", "O1"],
        ["B9", "O2", "B8"],
        ["R13", "O13", "J", "J"],
        ["B10", "B4", "J", "K1", "B1", "K7"],
        ["R3"],
        ["K3", "B3", "O3", "B2", "R8"],
        ["R8", "O8", "J"],
        ["B7", "B6", "B4", "K11"],
        ["R5", "B5", "K5", "O4"],
        ["B10", "O13", "R1", "B2", "B3", "O13", "B4", "B6", "B11", "B8", "K2"],
        ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9", "K10", "K11", "K12", "B3"],
        ["R11", "B11", "O11"],
    ],
    "rack": (  # noqa: SIM905 (48 tiles)
        "R13 O2 B11 K11 J K4 O2 K3 R4 B4 J O5 O2 B8 B7 O7 R7 B3 O3 K10 R8 O8 J O3 K2 R5 B5 K5 O5 K6 "
        "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 R11 B11 O11 B5 K4"
    ).split(),
    "opened": True,
    "rules": {
        "preset": "pressman-2009",
        "tiles": "xp",
        "group_joker_needs_both_colours": False,
        "joker_sets_locked": True,
        "joker_replacement_from": "rack_or_table",
        "joker_release": "replace",
        "manipulate_on_opening_turn": False,
        "timeout_keeps_valid_sets": True,
        "strict_order": True,
    },
}
SMALL = {"before": [], "after": [["K10", "B10", "O10"]], "rack": ["K10", "B10", "O10", "R1"], "opened": False}


def test_a_fresh_workers_first_costly_verdict_loads_nothing() -> None:
    """After ``rsgi_app()`` (what a worker does before it listens) the WORST-3 verify, in either
    language, and a small one import no module: a first request pays for no import."""
    code = f"""
import json, sys
from service.server import rsgi_app
rsgi_app()
from service.operations import run_operation
before = set(sys.modules)
bodies = json.loads({json.dumps([WORST3, SMALL])!r})
answers = [run_operation("turns/verify", body, lang) for body in bodies for lang in ("en", "es")]
assert [a["valid"] for a in answers] == [False, False, True, True], answers
print(json.dumps(sorted(set(sys.modules) - before)))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=Path(__file__).parent.parent
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_costly_verify_and_ordinary_joker_moves_stay_inline() -> None:
    """Neither WORST-3 nor an ordinary xp or strict-joker turn moving a table joker is budgeted."""
    assert not is_budgeted("turns/verify", WORST3)
    retrieve = {
        "before": [["R5", "J", "R7"]],
        "after": [["R5", "R6", "R7"], ["J", "B9", "O9"]],
        "rack": ["R6", "B9", "O9", "K1"],
        "opened": True,
    }
    for rules in ({"preset": "xp"}, {"preset": "strict-joker"}, {"preset": "xp", "joker_sets_locked": True}):
        assert not is_budgeted("turns/verify", {**retrieve, "rules": rules})
    both = {"preset": "xp", "joker_sets_locked": True, "group_joker_needs_both_colours": True}
    assert is_budgeted("turns/verify", {**WORST3, "rules": both})
