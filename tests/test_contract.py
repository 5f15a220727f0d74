"""openapi.yaml is the contract: it is a valid OpenAPI 3.1 document, it matches the app route for
route, its examples are real answers, and schemathesis (in-process, every operation) finds no
server error, no response outside the schema and no undocumented status code."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.checks import positive_data_acceptance

from engine.rules import CHOICES, PRESETS, Rules
from engine.violations import MESSAGES
from service.app import create_app
from service.operations import BUDGETED_ALWAYS, BUDGETED_SOMETIMES, OPERATIONS, get_rules, list_rules, run_operation
from tests.test_turns import PAST_JOINT_STEPS_XP, few_joint_steps

pytestmark = pytest.mark.contract
ROOT = Path(__file__).resolve().parents[1]
SPEC: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
APP = create_app({"TESTING": True})


def test_spec_is_valid_openapi_3_1() -> None:
    assert SPEC["openapi"].startswith("3.1")
    validate(SPEC)


def test_spec_paths_match_the_app() -> None:
    documented = {
        (path, method.upper()) for path, item in SPEC["paths"].items() for method in item if method != "parameters"
    }
    served = set()
    for rule in APP.url_map.iter_rules():
        if rule.endpoint in ("static", "docs_asset", "docs_init", "docs_slash"):
            continue
        path = rule.rule.replace("<preset>", "{preset}")
        served |= {(path, m) for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    assert documented == served


def _walk(node: Any, where: str = "#") -> list[str]:
    """Schema objects declaring ``type: object`` without listing properties."""
    found = []
    if isinstance(node, dict):
        types = node.get("type")
        is_object = types == "object" or (isinstance(types, list) and "object" in types)
        if is_object and not ({"properties", "patternProperties"} & set(node)):
            found.append(where)
        for key, value in node.items():
            if key not in ("example", "examples"):
                found += _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _walk(value, f"{where}/{i}")
    return found


def test_no_untyped_objects() -> None:
    assert _walk(SPEC["paths"]) + _walk(SPEC["components"]["schemas"]) == []


def test_request_schemas_are_closed() -> None:
    for name, schema in SPEC["components"]["schemas"].items():
        if schema.get("type") == "object" and (name.endswith("Request") or name in ("SetObject", "RoundPlayer")):
            assert schema.get("additionalProperties") is False, name


def test_every_operation_documents_its_status_codes() -> None:
    for name in OPERATIONS:
        responses = SPEC["paths"][f"/v1/{name}"]["post"]["responses"]
        busy = {"503"} if name in BUDGETED_ALWAYS | BUDGETED_SOMETIMES else set()
        assert set(responses) == {"200", "400", "408", "413", "415", "422", "500"} | busy, name
        assert "examples" in SPEC["paths"][f"/v1/{name}"]["post"]["requestBody"]["content"]["application/json"]


def test_the_timeout_example_is_the_servers_answer() -> None:
    """The 408 a body too slow gets from the server (``service.server``; missing from the
    contract until a docs audit, session 44) is documented as it is sent."""
    from service import server

    example = SPEC["components"]["responses"]["Timeout"]["content"]["application/problem+json"]["example"]
    error = server._BodyError(408, "the body did not arrive within 10 s (RUMMIKUB_READ_TIMEOUT)")
    assert json.loads(server._problem(error, "en")) == example


def test_every_violation_code_is_explained_in_the_docs() -> None:
    """docs/rules-engine.md's table of codes names each one (nine were only in openapi's enum:
    a docs audit, session 43)."""
    text = (Path(__file__).parents[1] / "docs" / "rules-engine.md").read_text(encoding="utf-8")
    table = text[text.index("## Violation codes") : text.index("## Reading a set")]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    named = {code for row in rows for code in row.split(" | ")[0].strip("| ").replace("`", "").split(", ")}
    assert named == {code for code in MESSAGES if "/" not in code}


def test_enums_match_the_engine() -> None:
    schemas = SPEC["components"]["schemas"]
    assert set(schemas["ViolationCode"]["enum"]) == {code for code in MESSAGES if "/" not in code}
    assert schemas["PresetName"]["enum"] == list(PRESETS)
    settings_fields = {f.name for f in dataclasses.fields(Rules)} - {"preset"}
    assert set(schemas["Settings"]["properties"]) == settings_fields
    assert set(schemas["RulesOverrides"]["properties"]) == settings_fields | {"preset"}


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """A component schema with every ``$ref`` resolvable (the spec's components in $defs)."""
    return {**schema, "components": SPEC["components"]}


def _check(instance: Any, ref: str) -> None:
    jsonschema.validate(instance, {"$ref": ref, "components": SPEC["components"]}, cls=jsonschema.Draft202012Validator)


EXAMPLE_PAIRS = [
    ("SetsValidate", "sets/validate", "SetsValidateRequest", "SetsValidateResponse"),
    ("MeldCheck", "melds/check", "MeldCheckRequest", "MeldCheckResponse"),
    ("TurnVerify", "turns/verify", "TurnVerifyRequest", "TurnVerdict"),
    ("TurnVerifyInvalid", "turns/verify", "TurnVerifyRequest", "TurnVerdict"),
    ("TurnVerifyLoose", "turns/verify", "TurnVerifyRequest", "TurnVerdict"),
    ("RoundScore", "rounds/score", "RoundScoreRequest", "RoundResult"),
    ("MatchScore", "matches/score", "MatchScoreRequest", "MatchResult"),
    ("GameReplay", "games/replay", "GameReplayRequest", "ReplayResult"),
    ("Arrange", "tables/arrange", "ArrangeRequest", "ArrangeResponse"),
    ("Suggest", "moves/suggest", "SuggestRequest", "SuggestResponse"),
]


@pytest.mark.parametrize(("example", "operation", "request_schema", "response_schema"), EXAMPLE_PAIRS)
def test_examples_are_real_answers(example: str, operation: str, request_schema: str, response_schema: str) -> None:
    examples = SPEC["components"]["examples"]
    request = examples[f"{example}Request"]["value"]
    response = examples[f"{example}Response"]["value"]
    _check(request, f"#/components/schemas/{request_schema}")
    _check(response, f"#/components/schemas/{response_schema}")
    assert run_operation(operation, request) == response


def test_rules_examples_are_real_answers() -> None:
    examples = SPEC["components"]["examples"]
    assert examples["RulesIndex"]["value"] == list_rules()
    assert examples["Preset"]["value"] == get_rules("komoni")
    _check(list_rules(), "#/components/schemas/RulesIndex")


def test_replay_analysis_matches_its_schema() -> None:
    record = dict(SPEC["components"]["examples"]["GameReplayRequest"]["value"])
    result = run_operation("games/replay", {**record, "analyze": True})
    assert "analysis" in result
    _check(result, "#/components/schemas/ReplayResult")


def test_replay_round_over_and_record_violations_match_their_schema() -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}]
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, {"player": "B", "draw": "K2"}]
    record = {"players": players, "rules": {"deal": 3, "initial_meld_min": 6}, "turns": turns}
    result = run_operation("games/replay", {**record, "end": "pool_exhausted", "continue_on_error": True}, "es")
    assert result["turns"][1]["action"] == "round_over" and result["violations"][0]["code"] == "END_MISMATCH"
    _check(result, "#/components/schemas/ReplayResult")
    short_pool = run_operation("games/replay", {**record, "pool": ["K9"]})
    assert short_pool["violations"][0]["code"] == "POOL_MISMATCH"
    _check(short_pool, "#/components/schemas/ReplayResult")


def test_a_verdict_whose_jokers_were_not_judged_exactly_matches_its_schema() -> None:
    with few_joint_steps():
        result = run_operation("turns/verify", PAST_JOINT_STEPS_XP)
    assert result["jokers_exact"] is False
    _check(result, "#/components/schemas/TurnVerdict")
    record = json.loads((Path(__file__).parent / "data" / "replay_starved_steps.json").read_text(encoding="utf-8"))
    with few_joint_steps():
        replayed = run_operation("games/replay", record)
    assert replayed["turns"][44]["jokers_exact"] is False
    _check(replayed, "#/components/schemas/ReplayResult")


def test_a_penalty_keeping_sets_matches_its_schema() -> None:
    kept = {"draw": 3, "restore_table": False, "kept": [["K10", "B10", "O10"]], "returned": ["R4", "K7"]}
    _check(kept, "#/components/schemas/Penalty")
    with pytest.raises(jsonschema.ValidationError):
        _check({**kept, "kept": [["R0"]]}, "#/components/schemas/Penalty")


def test_setting_enums_match_the_engine() -> None:
    schemas = SPEC["components"]["schemas"]
    for setting, name in (
        ("freed_joker_use", "FreedJokerUse"),
        ("pool_exhausted_end", "PoolExhaustedEnd"),
        ("pool_exhausted_scoring", "PoolExhaustedScoring"),
        ("scoring", "Scoring"),
    ):
        assert schemas[name]["enum"] == list(CHOICES[setting]), setting
        assert schemas["Settings"]["properties"][setting] == {"$ref": f"#/components/schemas/{name}"}
    for preset in PRESETS:
        assert f"`{preset}`" in schemas["PresetName"]["description"], preset
    assert (
        ", ".join(PRESETS)
        in SPEC["components"]["responses"]["NotFound"]["content"]["application/problem+json"]["example"]["detail"]
    )


def test_problem_examples_match_the_problem_schema() -> None:
    for name, response in SPEC["components"]["responses"].items():
        _check(response["content"]["application/problem+json"]["example"], "#/components/schemas/Problem")
        assert name


# --- schemathesis -------------------------------------------------------------------------------

# Every check runs, with two adjustments: a schema-valid body may still describe no real game (two
# empty racks, a player count the rules forbid), a documented 422, so ``positive_data_acceptance``
# is off; and a body over a limit is rejected with 413 before its content is read, so 413 is an
# expected answer to schema-violating data too. The coverage phase (every boundary case the schema
# defines, about 6,700 requests, 40 s here) runs once in the suite, in the live CLI run of
# tests/test_contract_live.py, where every check is on; here the examples and fuzzing phases run.
CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {"negative_data_rejection": {"expected-statuses": [400, 404, 405, 413, 415, 422]}},
        "phases": {"coverage": {"enabled": False}},
    }
)
schema = schemathesis.openapi.from_wsgi("/openapi.yaml", APP, config=CONFIG)


@schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_conforms_to_contract(case: schemathesis.Case) -> None:
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


def test_render_is_documented_with_examples_that_draw() -> None:
    """``POST /v1/render`` answers SVG, not JSON: its examples are drawn by the app."""
    import xml.etree.ElementTree as ET

    operation = SPEC["paths"]["/v1/render"]["post"]
    assert set(operation["responses"]) == {"200", "400", "408", "413", "415", "422", "500", "503"}
    assert set(operation["responses"]["200"]["content"]) == {"image/svg+xml"}
    client = APP.test_client()
    for name in ("RenderRequest", "RenderPositionRequest"):
        request = SPEC["components"]["examples"][name]["value"]
        _check(request, "#/components/schemas/RenderRequest")
        answer = client.post("/v1/render", json=request)
        assert answer.status_code == 200 and answer.mimetype == "image/svg+xml", name
        assert ET.fromstring(answer.data).tag == "{http://www.w3.org/2000/svg}svg"


def test_replay_unnamed_tiles_match_their_schema() -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3", "R4"]}, {"name": "B", "rack": ["K1", "K5", "O9", "O12"]}]
    turns = [
        {"player": "A", "table": [["R1", "R2", "R3"]]},
        {"player": "B", "table": [["R1", "R2", "R3"]]},
        {"player": "A", "table": [["R1", "R2", "R3", "R4"]]},
    ]
    result = run_operation(
        "games/replay", {"players": players, "rules": {"deal": 4, "initial_meld_min": 6}, "turns": turns}
    )
    assert result["result"]["scores"][1]["unnamed_tiles"] == 1
    _check(result, "#/components/schemas/ReplayResult")
