"""Shared helpers for the stateful library tests (session 56, helper "stateful").

Everything here goes through the engine's public library API (``engine.__all__``,
``engine.solver.arrange``/``suggest``, ``engine.replay.replay_game``/``parse_game_record``) and
the service's in-process ``run_operation`` (the HTTP API's answers) for comparison.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any

from hypothesis import strategies as st

import engine
from engine import PRESETS, SUPPLIES, Rules, TableSet, format_tiles, parse_tiles, resolve_rules
from engine.rules import BOOLEANS, CHOICES
from service.limits import DEFAULT_LIMITS
from service.operations import run_operation

LIMITS = dataclasses.replace(DEFAULT_LIMITS, solver_budget_ms=60_000, analyze_budget_ms=60_000)
PRESET_NAMES = tuple(PRESETS)  # the 9 presets

# --- rules --------------------------------------------------------------------------------


def _override_strategies() -> dict[str, st.SearchStrategy[Any]]:
    out: dict[str, st.SearchStrategy[Any]] = {k: st.sampled_from(v) for k, v in CHOICES.items()}
    out.update({k: st.booleans() for k in BOOLEANS})
    out["initial_meld_min"] = st.sampled_from([0, 1, 10, 20, 30, 40, 50, 0, 0])
    out["timeout_penalty"] = st.integers(0, 4)
    out["failed_turn_penalty"] = st.integers(0, 4)
    out["joker_penalty"] = st.sampled_from([0, 1, 25, 30, 50])
    out["turn_time_limit"] = st.one_of(st.none(), st.sampled_from([1, 30, 60.5, 120]))
    return out


@st.composite
def rules_specs(draw: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(preset, overrides in Python form, the same overrides in JSON form). ``players``/``deal``
    overrides are drawn together so the deal covers every allowed count."""
    preset = draw(st.sampled_from(PRESET_NAMES))
    py = draw(st.fixed_dictionaries({}, optional=_override_strategies()))
    js = dict(py)
    if draw(st.booleans()):
        counts = sorted(set(draw(st.lists(st.integers(2, 5), min_size=1, max_size=3))))
        deal = {n: draw(st.sampled_from([3, 5, 7, 10, 14])) for n in counts}
        py["players"] = tuple(counts)
        # a count the request does not name keeps the preset's deal (openapi.yaml, Deal)
        py["deal"] = tuple(sorted({**dict(PRESETS[preset].deal), **deal}.items()))
        js["players"] = list(counts)
        js["deal"] = {str(n): k for n, k in deal.items()}
    return preset, py, js


def build_rules(preset: str, py: dict[str, Any], js: dict[str, Any], how: str) -> tuple[Rules, Any]:
    """The rules built one of four documented ways; also the JSON ``rules`` value for requests."""
    if how == "replace":
        rules = dataclasses.replace(PRESETS[preset], **py)
    elif how == "constructor":
        base = {f.name: getattr(PRESETS[preset], f.name) for f in dataclasses.fields(Rules)}
        rules = Rules(**{**base, **py})
    elif how == "resolve":
        rules = resolve_rules({"preset": preset, **js})
    else:  # "json"
        rules = resolve_rules(json.loads(json.dumps({"preset": preset, **js})))
    if not js:
        request_rules: Any = preset
    elif how == "json":
        request_rules = rules.to_dict()
    else:
        request_rules = {"preset": preset, **js}
    return rules, request_rules


# --- JSON forms ---------------------------------------------------------------------------


def set_json(s: TableSet) -> Any:
    if s.kind is None and s.id is None:
        return format_tiles(s.tiles)
    out: dict[str, Any] = {"tiles": format_tiles(s.tiles)}
    if s.kind is not None:
        out["kind"] = s.kind
    if s.id is not None:
        out["id"] = s.id
    return out


def table_json(table: Any) -> list[Any]:
    return [set_json(s) for s in table]


def fresh_set(s: TableSet) -> TableSet:
    """An equal TableSet built anew from its text (no object shared with ``s``)."""
    return TableSet(parse_tiles(format_tiles(s.tiles)), s.kind, s.id)


def fresh_table(table: Any) -> list[TableSet]:
    return [fresh_set(s) for s in table]


def turn_body(
    before: Any, after: Any, rack: Any, opened: bool, rules_json: Any, elapsed: float | None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "before": table_json(before),
        "after": table_json(after),
        "rack": format_tiles(rack),
        "opened": opened,
        "rules": rules_json,
    }
    if elapsed is not None:
        body["elapsed_seconds"] = elapsed
    return body


def api(name: str, body: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    return run_operation(name, json.loads(json.dumps(body)), lang, LIMITS)


# --- tiles --------------------------------------------------------------------------------


def counts(tiles: Any) -> Counter[str]:
    return Counter(t.key for t in tiles)


def supply_counts(rules: Rules) -> Counter[str]:
    return counts(SUPPLIES[rules.tiles].all_tiles())


def set_valid(s: TableSet, rules: Rules) -> bool:
    return engine.read_set(s.tiles, rules, s.kind).valid


def codes(violations: Any) -> list[tuple[str, str]]:
    return [(v.code, v.at) for v in violations]
