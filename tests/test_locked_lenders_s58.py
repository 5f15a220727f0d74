"""Locked joker sets whose freed group jokers need both colours (xp, ``joker_sets_locked`` with
``group_joker_needs_both_colours``), their copies lent set to set (``engine.joker_replacement``):
the verdicts of session 57's hardest turns of that kind pinned, and the cut search of ``_replace``
(``may_hold``, the free copies reserved, the first pass with every need met) and the filtered naming
of lenders (``_lenders``) giving what the plain search and the plain enumeration give.

tests/data/locked_lenders_s58.json: ``slow``, turns that took 0.5-4.7 s before the cuts (four locked
groups of three at one number, one joker each, all freed to a sink), with the answer they had then;
``sample``, 68 turns of the same family (session 57's ``bigboth`` generator) of every verdict seen,
with their answers before the cuts (seven of their code lists as the
rack-only fix of ``tests/test_whitebox_s58.py`` words them: the same codes in another order, and
one with fewer)."""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

from engine import joker_replacement
from service.operations import run_operation

DATA = json.loads((Path(__file__).parent / "data" / "locked_lenders_s58.json").read_text(encoding="utf-8"))


def answer(body: dict[str, Any]) -> dict[str, Any]:
    return run_operation("turns/verify", copy.deepcopy(body), "en")


def facts(found: dict[str, Any]) -> tuple[bool, list[str], int]:
    return found["valid"], [v["code"] for v in found["violations"]], found["jokers_freed"]


@pytest.mark.parametrize("case", DATA["slow"], ids=[case["name"] for case in DATA["slow"]])
def test_the_slowest_locked_turns_needing_both_colours_keep_their_verdicts(case: dict[str, Any]) -> None:
    # e.g. ``O6 R6 J`` + ``J B6 R6`` + ``K6 B6 J`` + ``O6 K6 J`` + ``R6 R7 R8`` -> three groups of 6s
    # + ``R6 R7 R8`` + ``J J J J O13`` with O6 B6 O13 played: legal, each set unlocked by a chain
    # of lent copies starting from the played ones (2.9 s before the cuts)
    assert facts(answer(case["body"])) == (case["valid"], case["codes"], case["jokers_freed"])


@pytest.mark.parametrize("case", DATA["sample"])
def test_the_cut_search_answers_as_the_plain_search(case: dict[str, Any]) -> None:
    found = answer(case["body"])
    assert facts(found) == (case["valid"], case["codes"], case["jokers_freed"])
    with mock.patch.object(joker_replacement, "SMALL_SEARCH", 0):
        assert answer(case["body"]) == found  # (cut from the first step; messages and pointers too)
    with mock.patch.object(joker_replacement, "SEARCH_CUTS", False):
        assert answer(case["body"]) == found


@pytest.mark.parametrize("case", DATA["slow"][:2], ids=[case["name"] for case in DATA["slow"][:2]])
def test_a_large_search_is_begun_again_cut(case: dict[str, Any]) -> None:
    with mock.patch.object(joker_replacement, "SMALL_SEARCH", 10):
        assert facts(answer(case["body"])) == (case["valid"], case["codes"], case["jokers_freed"])


def plain_lenders(
    search: Any,
    lent: Sequence[tuple[int, str, int]],
    homes: Sequence[tuple[int, int]],
    took_locked: dict[int, int],
    broken: dict[int, int],
) -> Iterator[frozenset[tuple[tuple[int, int, str], int]]]:
    """``_lenders`` as it was: every naming of the full product, the first LENDER_CHOICES, each
    checked for its chain of lenders."""
    if not lent:
        yield frozenset()
        return
    choices = [
        [
            m
            for m in sorted(joker_replacement._unlocked_without(search, n))
            if m != n and search.sources[m].numbered.get(key)
        ]
        for n, key, _ in lent
    ]
    free_only = {n for n, _ in homes if not took_locked.get(n) and not broken.get(n)} - {n for n, _, _ in lent}
    for tried, named in enumerate(itertools.product(*choices)):
        if tried >= joker_replacement.LENDER_CHOICES:
            return
        unlocked = set(free_only)
        grown = True
        while grown:
            grown = False
            for n in {n for n, _, _ in lent} - unlocked:
                if took_locked.get(n) or broken.get(n):
                    continue
                if all(m in unlocked for (b, _, _), m in zip(lent, named, strict=True) if b == n):
                    unlocked.add(n)
                    grown = True
        if any(n not in unlocked and not broken.get(n) for n, _, _ in lent):
            continue
        yield frozenset(Counter((m, k, key) for (_, key, k), m in zip(lent, named, strict=True)).items())


def test_the_lenders_named_are_those_of_the_full_product_up_to_its_cap() -> None:
    rng = random.Random(58)
    tiles = ["K6", "B6", "O6", "R6"]
    compared = capped = 0
    for _ in range(3000):
        count = rng.randint(2, 6)
        search = SimpleNamespace(
            sources=[
                SimpleNamespace(numbered=dict.fromkeys(rng.sample(tiles, rng.randint(1, 3)), 1)) for _ in range(count)
            ]
        )
        without = {n: frozenset(m for m in range(count) if m != n and rng.random() < 0.8) for n in range(count)}
        lent = [(rng.randrange(count), rng.choice(tiles), rng.randrange(6)) for _ in range(rng.randint(0, 8))]
        homes = [(rng.randrange(count), rng.randrange(6)) for _ in range(rng.randint(0, 8))] + [
            (n, 0) for n, _, _ in lent
        ]
        took_locked = {n: 1 for n in range(count) if rng.random() < 0.1}
        broken = {n: 1 for n in range(count) if rng.random() < 0.15}
        with mock.patch.object(joker_replacement, "_unlocked_without", lambda _search, n, table=without: table[n]):
            plain = set(plain_lenders(search, lent, homes, took_locked, broken))
            named = list(joker_replacement._lenders(search, lent, homes, took_locked, broken))  # type: ignore[arg-type]
        assert len(named) == len(set(named))  # (each way once)
        assert set(named) == plain, (lent, homes, took_locked, broken, without)
        compared += bool(plain)
        sizes = [len([m for m in without[n] if search.sources[m].numbered.get(key)]) for n, key, _ in lent]
        capped += bool(plain) and math.prod(sizes) > joker_replacement.LENDER_CHOICES
    assert compared > 300 and capped > 10  # (the cap was reached in some)
