"""The HTTP service's endpoints: rules, meta routes, docs, CORS, the solver endpoints, and the
transport-free operations layer the CLI shares with it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from engine.rules import PRESETS, SETTINGS
from service.app import create_app, openapi_path
from service.limits import Limits
from service.operations import OPERATIONS, RequestError, get_rules, list_rules, run_operation

pytestmark = pytest.mark.http
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


# --- rules --------------------------------------------------------------------------------------


def test_rules_lists_every_preset_with_every_setting(client: FlaskClient) -> None:
    response = client.get("/v1/rules")
    assert response.status_code == 200
    body = response.get_json()
    assert body["default"] == "sabra"
    assert [p["name"] for p in body["presets"]] == list(PRESETS)
    for preset in body["presets"]:
        assert preset["description"]
        assert set(preset["settings"]) == set(SETTINGS)
    sabra = body["presets"][0]["settings"]
    assert (
        sabra["initial_meld_min"] == 30
        and sabra["joker_penalty"] == 30
        and sabra["deal"] == {"2": 14, "3": 14, "4": 14}
    )
    assert sabra["freed_joker_use"] == "any_set" and sabra["timeout_keeps_valid_sets"] is False
    assert sabra["pool_exhausted_end"] == "play_on"


def test_rules_lists_the_2026_presets(client: FlaskClient) -> None:
    presets = {p["name"]: p["settings"] for p in client.get("/v1/rules").get_json()["presets"]}
    timed = presets["classic-timed"]
    assert timed["deal"] == {"2": 10, "3": 7, "4": 7, "5": 7, "6": 7} and timed["players"] == [2, 3, 4, 5, 6]
    assert timed["tiles"] == "classic" and timed["turn_time_limit"] == 120 and timed["timeout_penalty"] == 3
    assert timed["timeout_keeps_valid_sets"] is True and timed["pool_exhausted_end"] == "play_on"
    online = presets["online-sabra"]
    assert online["pool_exhausted_end"] == "one_more_turn"
    assert {k: v for k, v in online.items() if k != "pool_exhausted_end"} == {
        k: v for k, v in presets["sabra"].items() if k != "pool_exhausted_end"
    }
    assert client.get("/v1/rules/online-sabra").get_json()["settings"] == online


def test_one_preset(client: FlaskClient) -> None:
    body = client.get("/v1/rules/pressman-2009").get_json()
    assert body["name"] == "pressman-2009"
    assert body["settings"]["joker_replacement_from"] == "rack"
    assert body["settings"]["turn_time_limit"] == 120
    assert client.get("/v1/rules/komoni").get_json()["settings"]["scoring"] == "penalty_only"


def test_rules_override_applies(client: FlaskClient) -> None:
    body = {"sets": [["K10", "B10", "O10"]], "rules": {"preset": "sabra", "initial_meld_min": 31}}
    result = client.post("/v1/melds/check", json=body).get_json()
    assert result["threshold"] == 31 and not result["valid"]
    assert client.post("/v1/melds/check", json={**body, "rules": "opening-50"}).get_json()["threshold"] == 50


# --- meta routes --------------------------------------------------------------------------------


def test_health_and_ready(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}


def test_openapi_is_the_committed_file(client: FlaskClient) -> None:
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.get_data() == (ROOT / "openapi.yaml").read_bytes()
    assert openapi_path().resolve() == (ROOT / "openapi.yaml").resolve()


def test_docs_page_loads_its_assets_from_this_server(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    assert any(a.endswith("swagger-ui.css") for a in assets)
    for asset in assets:
        assert asset.startswith("/"), f"{asset} is not served by us"
        loaded = client.get(asset)
        assert loaded.status_code == 200, asset
        assert loaded.get_data(), asset
    init = client.get("/docs/init.js").get_data(as_text=True)
    assert '"/openapi.yaml"' in init
    assert "http" not in html + init


def test_docs_serves_swagger_ui_5(client: FlaskClient) -> None:
    """OpenAPI 3.1 needs Swagger UI 5 or later."""
    bundle = client.get("/docs/swagger-ui-bundle.js").get_data(as_text=True)
    assert re.search(r'"?version"?\s*:\s*"5\.', bundle) or "5." in client.get("/docs/VERSION").get_data(as_text=True)
    assert client.get("/docs/no-such-file.js").status_code == 404


def test_cors_is_off_by_default(client: FlaskClient) -> None:
    response = client.post("/v1/sets/validate", json={"sets": []}, headers={"Origin": "https://app.example"})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_cors_when_configured() -> None:
    client = create_app(
        {"TESTING": True, "RUMMIKUB_CORS_ORIGINS": "https://app.example, https://b.example"}
    ).test_client()
    response = client.post("/v1/sets/validate", json={"sets": []}, headers={"Origin": "https://app.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert "Origin" in response.headers["Vary"]
    assert response.headers["Access-Control-Expose-Headers"] == "X-Request-ID, Retry-After"  # (the 503's)
    other = client.post("/v1/sets/validate", json={"sets": []}, headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    # the answer depends on Origin whatever it holds: a cache keys it by Origin (WHATWG Fetch
    # §3.2.5), here a public day-long docs asset fetched without Origin (session 51)
    assert "Origin" in other.headers["Vary"]
    asset = client.get("/docs/index.css")
    assert "Access-Control-Allow-Origin" not in asset.headers and "Origin" in asset.headers["Vary"]
    preflight = client.options(
        "/v1/turns/verify",
        headers={"Origin": "https://b.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 204  # (any 2xx passes a preflight; there is no content)
    assert "Content-Type" not in preflight.headers and "Content-Length" not in preflight.headers
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://b.example"
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]


@pytest.mark.parametrize(
    "path", ["/v1/turns/verify", "/v1/rules", "/v1/rules/sabra", "/healthz", "/docs", "/openapi.yaml"]
)
def test_options_answers_no_content(client: FlaskClient, path: str) -> None:
    """OPTIONS (with or without CORS) is a 204 naming the methods, not an empty text/html 200
    (a hostile-client audit, session 59: SUR-7)."""
    response = client.options(path)
    assert response.status_code == 204
    assert "OPTIONS" in response.headers["Allow"]
    assert response.data == b""
    assert "Content-Type" not in response.headers and "Content-Length" not in response.headers
    assert client.options("/v1/no-such-thing").status_code == 404


def test_cors_any_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUMMIKUB_CORS_ORIGINS", "*")
    client = create_app({"TESTING": True}).test_client()
    response = client.get("/v1/rules", headers={"Origin": "https://x.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


# --- solver endpoints ---------------------------------------------------------------------------


def test_arrange(client: FlaskClient) -> None:
    result = client.post("/v1/tables/arrange", json={"tiles": ["R1", "R2", "R3", "K7", "B7", "O7", "J"]}).get_json()
    assert result["arrangeable"] is True and result["optimal_proven"] is True
    placed = sorted(t.split("=")[0] for s in result["sets"] for t in s)
    assert placed == sorted(["R1", "R2", "R3", "K7", "B7", "O7", "J"])
    sets = client.post("/v1/sets/validate", json={"sets": result["sets"]}).get_json()
    assert sets["valid"]
    assert client.post("/v1/tables/arrange", json={"tiles": ["R1", "K9"]}).get_json()["arrangeable"] is False


@pytest.mark.parametrize(
    "body",
    [
        {"table": [["R3", "R4", "R5"]], "rack": ["R6", "K9", "B9", "O9", "R1"], "opened": True},
        {"table": [["R3", "R4", "R5"]], "rack": ["R6", "K9", "B9", "O9", "R1"], "opened": True, "objective": "value"},
        {"table": [["R3", "R4", "R5"]], "rack": ["K10", "B10", "O10", "R6"], "opened": False},
        {"table": [], "rack": ["K1", "B5"], "opened": False},
        {"table": [["K5", "J", "O5"]], "rack": ["B5", "R1", "R2"], "opened": True, "rules": "free-joker"},
    ],
)
def test_suggestion_verifies_as_a_legal_turn(client: FlaskClient, body: dict[str, Any]) -> None:
    move = client.post("/v1/moves/suggest", json=body).get_json()
    turn = {"before": body["table"], "after": move["after"], "rack": body["rack"], "opened": body["opened"]}
    if "rules" in body:
        turn["rules"] = body["rules"]
    verdict = client.post("/v1/turns/verify", json=turn).get_json()
    assert verdict["valid"], verdict
    if move["played"]:
        assert sorted(verdict["played"]) == sorted(t.split("=")[0] if t.startswith("J") else t for t in move["played"])
    else:
        assert verdict["action"] == "draw"


# --- the operations layer -----------------------------------------------------------------------


def test_operations_module_does_not_import_flask() -> None:
    code = "import sys, service.operations; print('flask' in sys.modules, 'werkzeug' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_run_operation_matches_http(client: FlaskClient) -> None:
    body = {"before": [["R3", "R4", "R5"]], "after": [["R3", "R4", "R5", "R6"]], "rack": ["R6", "K1"], "opened": True}
    assert run_operation("turns/verify", body) == client.post("/v1/turns/verify", json=body).get_json()
    es = client.post("/v1/sets/validate", json={"sets": [["R1"]]}, headers={"Accept-Language": "es"}).get_json()
    assert run_operation("sets/validate", {"sets": [["R1"]]}, lang="es") == es


def test_every_operation_has_a_route(client: FlaskClient) -> None:
    app = create_app({"TESTING": True})
    routes = {r.rule for r in app.url_map.iter_rules() if "POST" in (r.methods or set())}
    assert routes == {f"/v1/{name}" for name in OPERATIONS} | {"/v1/render"}  # render answers SVG, not JSON


def test_run_operation_errors() -> None:
    with pytest.raises(RequestError) as unknown:
        run_operation("sets/explode", {})
    assert unknown.value.status == 404
    with pytest.raises(RequestError) as bad:
        run_operation("sets/validate", {"sets": [["R0"]]})
    assert bad.value.status == 422
    assert bad.value.to_problem()["errors"] == [
        {"pointer": "/sets/0/0", "detail": "'R0' has number 0: tile numbers run from 1 to 13"}
    ]
    with pytest.raises(RequestError) as limited:
        run_operation("sets/validate", {"sets": [["R1", "R2", "R3"]]}, limits=Limits(max_tiles_per_set=2))
    assert limited.value.status == 413
    assert run_operation("sets/validate", {"sets": []}, lang="xx") == {"valid": True, "sets": []}


def test_rules_functions() -> None:
    assert list_rules()["presets"][0] == get_rules("sabra")
    with pytest.raises(RequestError) as missing:
        get_rules("house")
    assert missing.value.status == 404
    assert missing.value.to_problem("es")["title"] == "No encontrado"


# --- the parsed-set cache -----------------------------------------------------------------------


def test_set_cache_gives_the_same_answers() -> None:
    body = {
        "before": [["R3", "R4", "R5"], ["K7", "J", "O7"]],
        "after": [["R3", "R4", "R5", "R6"], ["K7", "J", "O7"]],
        "rack": ["R6", "K1"],
        "opened": True,
    }
    cached = create_app({"TESTING": True}).test_client()
    first = cached.post("/v1/turns/verify", json=body).get_json()
    assert cached.post("/v1/turns/verify", json=body).get_json() == first
    uncached = create_app({"TESTING": True, "RUMMIKUB_SET_CACHE_SIZE": 0}).test_client()
    assert uncached.post("/v1/turns/verify", json=body).get_json() == first
    create_app({"TESTING": True})  # back to the default cache for the other tests


def test_set_cache_still_reports_bad_tiles_and_counts_tiles() -> None:
    client = create_app({"TESTING": True}).test_client()
    for _ in range(2):
        result = client.post("/v1/sets/validate", json={"sets": [["R5", "R0", "R7"], ["R1", 5]]})
        assert result.status_code == 422
        assert [e["pointer"] for e in result.get_json()["errors"]] == ["/sets/0/1", "/sets/1/1"]
    limited = create_app({"TESTING": True, "RUMMIKUB_MAX_TILES": 5}).test_client()
    assert limited.post("/v1/sets/validate", json={"sets": [["R1", "R2", "R3"]]}).status_code == 200
    over = limited.post("/v1/sets/validate", json={"sets": [["R1", "R2", "R3"], ["R1", "R2", "R3"]]})
    assert over.status_code == 413
    assert over.get_json()["errors"][0]["pointer"] == "/sets/1"


def test_set_cache_size_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="RUMMIKUB_SET_CACHE_SIZE"):
        create_app({"RUMMIKUB_SET_CACHE_SIZE": -1})
    with pytest.raises(ValueError, match="RUMMIKUB_SET_CACHE_SIZE"):
        create_app({"RUMMIKUB_SET_CACHE_SIZE": "big"})


def test_replay_analysis(client: FlaskClient) -> None:
    a = ["K10", "B10", "O10", "R1", "R2", "K3", "B4", "O5", "R6", "K7", "B8", "O11", "R12", "K13"]
    b = ["K11", "B11", "O11", "R4", "K5", "B6", "O7", "R8", "K9", "B12", "O12", "R13", "J", "K2"]
    record = {
        "players": [{"name": "A", "rack": a}, {"name": "B", "rack": b}],
        "turns": [{"player": "A", "table": [["K10", "B10", "O10"]]}, {"player": "B", "draw": "R7"}],
        "analyze": True,
    }
    result = client.post("/v1/games/replay", json=record).get_json()
    assert result["valid"]
    assert result["analysis"]["draws_analyzed"] == 1
    assert result["analysis"]["missed_plays"] == [1] == result["analysis"]["late_openings"]
    best = result["turns"][1]["analysis"]["best"]
    assert best is not None and sum(1 for t in best["played"]) >= 3
    without = client.post("/v1/games/replay", json={**record, "analyze": False}).get_json()
    assert "analysis" not in without and "analysis" not in without["turns"][1]


def test_replay_round_end_codes_over_http(client: FlaskClient) -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}]
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, {"player": "B", "draw": "K2"}]
    body = {"players": players, "rules": {"deal": 3, "initial_meld_min": 6}, "turns": turns, "end": "pool_exhausted"}
    response = client.post("/v1/games/replay", json=body, headers={"Accept-Language": "es"})
    assert response.status_code == 200
    result = response.get_json()
    assert result["first_invalid_turn"] == 1 and result["turns"][1]["action"] == "round_over"
    assert result["turns"][1]["violations"][0]["message"] == "El turno 1 llega cuando la ronda ya ha terminado."
    # stopped at the entry after the end, but the round ended (A went out): `end` is judged
    assert result["result"]["winner"] == "A"
    assert [(v["code"], v["at"]) for v in result["violations"]] == [("END_MISMATCH", "/end")]
    going_on = client.post("/v1/games/replay", json={**body, "continue_on_error": True}).get_json()
    assert going_on["violations"] == [{**result["violations"][0], "message": going_on["violations"][0]["message"]}]
    assert going_on["result"] == result["result"]


def test_penalty_only_pool_exhausted_over_http(client: FlaskClient) -> None:
    players = [{"name": "A", "rack": ["K11", "B2"]}, {"name": "B", "rack": ["R4"]}, {"name": "C", "rack": ["O8", "J"]}]
    result = client.post("/v1/rounds/score", json={"players": players, "rules": "komoni"}).get_json()
    assert {s["name"]: s["score"] for s in result["scores"]} == {"A": 13, "B": 0, "C": 33}
    assert result["winner"] == "B" and result["ended_by"] == "pool_exhausted"


# --- loose tables -------------------------------------------------------------------------------


def test_loose_table_is_arranged_and_judged(client: FlaskClient) -> None:
    body = {
        "before": [["R3", "R4", "R5"]],
        "after": ["K2", "R3", {"color": "black", "number": 1}, "R4", "R6", "K3", "R5"],
        "rack": ["R6", "K1", "K2", "K3", "O9"],
        "opened": True,
    }
    verdict = client.post("/v1/turns/verify", json=body).get_json()
    assert verdict["valid"] and sorted(verdict["played"]) == ["K1", "K2", "K3", "R6"]
    again = client.post("/v1/turns/verify", json={**body, "after": verdict["after"]}).get_json()
    assert again["valid"] and "after" not in again


def test_loose_table_that_cannot_be_laid_out(client: FlaskClient) -> None:
    body = {
        "before": [["R3", "R4", "R5"]],
        "after": ["R3", "R4", "R5", "K9", "B1"],
        "rack": ["K9", "B1"],
        "opened": True,
    }
    verdict = client.post("/v1/turns/verify", json=body).get_json()
    assert not verdict["valid"]
    assert [v["code"] for v in verdict["violations"]] == ["NO_ARRANGEMENT"]


@pytest.mark.parametrize(
    ("before", "after", "rack", "code"),
    [
        ([["R1", "R2"]], ["R1", "R2", "R3"], ["R3"], "BEFORE_TABLE_INVALID"),  # was a 500
        ([["R1", "R2", "R3"]] * 3, ["R1", "R2", "R3"] * 3 + ["K1"], ["K1"], "TILE_SUPPLY_EXCEEDED"),
    ],
)
def test_loose_table_turns_illegal_whatever_the_arrangement(
    client: FlaskClient, before: list[Any], after: list[Any], rack: list[Any], code: str
) -> None:
    response = client.post("/v1/turns/verify", json={"before": before, "after": after, "rack": rack, "opened": True})
    verdict = response.get_json()
    assert response.status_code == 200 and not verdict["valid"]
    assert code in [v["code"] for v in verdict["violations"]]


@pytest.mark.parametrize(
    ("after", "pointer"),
    [(["R3", "R0"], "/after/1"), ([["R3", "R4", "R5"], "R6"], "/after/1"), (["R6", ["R3"]], "/after/1")],
)
def test_loose_table_errors(client: FlaskClient, after: list[Any], pointer: str) -> None:
    body = {"before": [["R3", "R4", "R5"]], "after": after, "rack": ["R6"], "opened": True}
    response = client.post("/v1/turns/verify", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.get_json()["errors"]] == [pointer]


def test_a_set_id_is_echoed_in_messages_and_changes_no_verdict(client: FlaskClient) -> None:
    # SPEC §1: "an `id` is a label the client keeps, echoed in messages, never a reason for
    # another verdict"
    sets = [["R1", "R2"], ["K10", "K11", "K12"]]
    labelled = [{"tiles": s, "id": name} for s, name in zip(sets, ("left", "k"), strict=True)]

    def strip(violations: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(v["code"], v["at"]) for v in violations]

    plain = client.post("/v1/sets/validate", json={"sets": sets}).get_json()
    named = client.post("/v1/sets/validate", json={"sets": labelled}).get_json()
    assert [strip(s["violations"]) for s in named["sets"]] == [strip(s["violations"]) for s in plain["sets"]]
    (short,) = named["sets"][0]["violations"]
    assert short["message"] == 'Set "left": a set needs at least 3 tiles; this one has 2.'

    body = {"sets": labelled, "rack": ["R1", "R2", "K10", "K11"]}
    meld = client.post("/v1/melds/check", json=body, headers={"Accept-Language": "es"}).get_json()
    plain_meld = client.post("/v1/melds/check", json={**body, "sets": sets}).get_json()
    assert strip(meld["violations"]) == strip(plain_meld["violations"])
    by_code = {v["code"]: v["message"] for v in meld["violations"]}
    assert by_code["INVALID_SET"].startswith('Combinación "left": ')
    assert by_code["TILE_NOT_IN_RACK"].startswith('Combinación "k": ')


def _verdicts_counted(client: FlaskClient, operation: str) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    found = re.findall(r'rummikub_verdicts_total\{code="(\w+)",operation="([\w/]+)"\} ([\d.]+)', text)
    return {code: float(n) for code, op, n in found if op == operation}


def test_an_invalid_replay_is_counted_by_its_violation_codes(client: FlaskClient) -> None:
    """/metrics counts a verdict by its violation codes, a replay's turns' too (it counted an
    invalid replay as ``INVALID``, a code no answer has: a docs audit, session 44)."""
    record = json.loads((Path(__file__).parents[1] / "examples" / "games" / "illegal.json").read_text())
    before = _verdicts_counted(client, "games/replay")
    assert client.post("/v1/games/replay", json=record).get_json()["valid"] is False
    after = _verdicts_counted(client, "games/replay")
    assert after.get("TILE_NOT_IN_RACK", 0) - before.get("TILE_NOT_IN_RACK", 0) == 1
    assert "INVALID" not in after


def test_made_up_methods_and_control_characters_stay_out_of_metrics_and_log_lines(tmp_path: Path) -> None:
    """A method the client makes up is counted as ``other`` (one series each grew /metrics to
    11 MB), and a path decoded from ``%0A`` or ``%1B`` is written escaped in the text access
    log, one line per request (it forged whole lines: a hostile-client audit, session 44)."""
    log = tmp_path / "access.log"
    client = create_app({"TESTING": True, "RUMMIKUB_ACCESS_LOG": str(log)}).test_client()
    for i in range(5):
        client.open("/v1/sets/validate", method=f"M{i}")
    client.get("/x%0A2026-12-05T23:59:59.000+00:00%20203.0.113.9%20%22POST%20/v1/admin%22%20200%1B[31m")
    text = client.get("/metrics").get_data(as_text=True)
    methods = set(re.findall(r'rummikub_http_requests_total\{method="([^"]*)"', text))
    assert "other" in methods and not any(m.startswith("M") for m in methods), methods
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 7 and "\\x0a" in lines[5] and "\\x1b" in lines[5] and "\x1b" not in lines[5]


def test_every_problem_detail_follows_accept_language(client: FlaskClient) -> None:
    """404, 405 and the adapter's 400 and 408 had an English ``detail`` under a Spanish title
    (a hostile-client audit, session 44)."""
    from service import server

    missing = client.get("/v1/nothing", headers={"Accept-Language": "es"}).get_json()
    assert missing["title"] == "No encontrado" and missing["detail"].startswith("No existe la ruta GET /v1/nothing")
    method = client.get("/v1/sets/validate", headers={"Accept-Language": "es"}).get_json()
    assert method["detail"] == "GET no está permitido en /v1/sets/validate (permitidos: OPTIONS, POST)."
    for status in (400, 408):
        problem = json.loads(server._problem(server._BodyError(status, "the body is late"), "es"))
        assert problem["detail"].startswith("No se puede leer la petición: el cuerpo"), problem
        assert problem["errors"] == [{"pointer": "", "detail": "the body is late"}]


def test_an_access_log_that_cannot_be_opened_is_named_by_its_setting(tmp_path: Path) -> None:
    """``RUMMIKUB_ACCESS_LOG=/proc/nope/x`` said only ``[Errno 2] No such file or directory``
    (the docs audit, session 54); ``rummikub serve`` writes this line and exits 2."""
    missing = tmp_path / "no such folder" / "access.log"
    with pytest.raises(
        ValueError, match=r"^RUMMIKUB_ACCESS_LOG: cannot open .*access\.log.* \(No such file or directory\)$"
    ):
        create_app({"TESTING": True, "RUMMIKUB_ACCESS_LOG": str(missing)})
