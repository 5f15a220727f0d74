"""The surfaces audit of session 59: one-line errors English in every --lang, a request body with
a content coding, a bounded unknown-preset 404, the Spanish wording, and odd option values
(``--html ''``, a blank ``--server`` or ``RUMMIKUB_SERVER``). Local-vs-remote ``rules NAME`` is in
tests/test_cli_server.py."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from service.operations import run_operation
from tests.test_api_errors import problem
from tests.test_cli import invoke, one_line_error, write

ROUND = {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


# --- SUR-2: the CLI's one-line errors and error cells are English in every --lang ------------------


@pytest.mark.cli
def test_a_whole_request_error_line_is_the_same_in_english_and_spanish(tmp_path: Path) -> None:
    """An over-size document's line was the Spanish detail under --lang es ("El cuerpo de la
    petición supera ..."), and a body that is no object said more in English than in Spanish."""
    env = {"RUMMIKUB_MAX_BODY_BYTES": "100"}
    big = write(tmp_path / "big.json", {"sets": [["R5", "R6", "R7"]] * 20})
    lines = {lang: one_line_error(invoke("validate", big, "--lang", lang, env=env)) for lang in ("en", "es")}
    assert (
        lines["en"]
        == lines["es"]
        == (f"rummikub: {big}: the request body is larger than 100 bytes (RUMMIKUB_MAX_BODY_BYTES)")
    )
    for body in ("[]", "[1, 2]"):
        en, es = (invoke("score", "-", "--lang", lang, input=body) for lang in ("en", "es"))
        assert en.exit_code == es.exit_code == 2
        assert one_line_error(en) == one_line_error(es) == "rummikub: stdin: must be a JSON object"


@pytest.mark.cli
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_batchs_error_cells_are_english_in_every_lang(tmp_path: Path, fmt: str) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    write(folder / "a.json", ROUND)
    write(folder / "b.json", {"players": [{"name": "A" * 200, "rack": []}, {"name": "B", "rack": ["R5"]}]})
    env = {"RUMMIKUB_MAX_BODY_BYTES": "150"}
    outputs = {lang: invoke("score", str(folder), "-f", fmt, "--lang", lang, env=env) for lang in ("en", "es")}
    assert outputs["en"].stdout == outputs["es"].stdout
    assert "the request body is larger than 150 bytes (RUMMIKUB_MAX_BODY_BYTES)" in outputs["es"].stdout
    assert "supera" not in outputs["es"].stdout


@pytest.mark.cli
def test_rules_of_an_unknown_preset_still_speaks_the_lang() -> None:
    """The one exception docs/cli.md makes: the service's own 404 detail, in --lang."""
    assert one_line_error(invoke("rules", "nope", "--lang", "es")).startswith(
        "rummikub: Conjunto de reglas 'nope' desconocido; disponibles: sabra"
    )
    assert one_line_error(invoke("rules", "nope")).startswith("rummikub: Unknown rules preset 'nope'; presets: sabra")


# --- SUR-3: suggest reads a body without a table as an empty table ---------------------------------


@pytest.mark.cli
def test_suggest_reads_a_body_without_a_table_as_an_empty_table() -> None:
    body = {"rack": ["R5", "R6", "R7", "R10", "R11", "R12"], "opened": True}
    result = invoke("suggest", "-", "--json", input=json.dumps(body))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == run_operation("moves/suggest", {**body, "table": []})
    nothing = invoke("suggest", "-", input=json.dumps({"rack": ["R5"], "opened": True}))
    assert nothing.exit_code == 1 and "No legal play" in nothing.stdout


# --- SUR-4: Spanish wording ---------------------------------------------------------------------


def test_spanish_404_names_the_route(client: FlaskClient) -> None:
    body = problem(client.get("/v1/nope", headers={"Accept-Language": "es"}), 404)
    assert body["detail"] == "No existe la ruta GET /v1/nope: las rutas de la API están en /openapi.yaml y /docs."


USTED = re.compile(r"\b(envíe|envíelo|envíela|reintente|escríbalas|escriba|pruebe|añada|compruebe|indique)\b")
"""Imperatives in the usted register: the Spanish texts use tú ("roba una ficha", "envía la mesa")."""


def test_spanish_texts_use_one_register() -> None:
    roots = [Path(__file__).parent.parent / part for part in ("engine", "service", "cli")]
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for root in roots
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if USTED.search(line)
    ]
    assert found == []


# --- SUR-5: a request body with a content coding is a 415 -------------------------------------


@pytest.mark.http
@pytest.mark.parametrize(
    ("coding", "data"),
    [("gzip", gzip.compress(b'{"sets": []}')), ("gzip", b'{"sets": []}'), ("br", b"{}"), ("identity, gzip", b"{}")],
    ids=["gzip-body", "plain-body-labelled-gzip", "br", "identity-then-gzip"],
)
def test_a_content_coded_body_is_415(client: FlaskClient, coding: str, data: bytes) -> None:
    for path in ("/v1/sets/validate", "/v1/moves/suggest"):
        response = client.post(
            path, data=data, headers={"Content-Type": "application/json", "Content-Encoding": coding}
        )
        body = problem(response, 415)
        assert body["detail"] == (
            f"The request body is sent with Content-Encoding {coding}: content codings are not accepted; "
            "send the body uncoded."
        )
        assert body["errors"] == [{"pointer": "", "detail": f"unsupported content coding {coding}"}]
        assert response.headers["Accept-Encoding"] == "identity"


@pytest.mark.http
def test_an_identity_coding_is_read(client: FlaskClient) -> None:
    for coding in ("identity", "Identity", ""):
        response = client.post(
            "/v1/sets/validate",
            data=b'{"sets": []}',
            headers={"Content-Type": "application/json", "Content-Encoding": coding},
        )
        assert response.status_code == 200, response.get_data(as_text=True)


@pytest.mark.http
def test_a_content_coded_body_is_415_in_spanish(client: FlaskClient) -> None:
    response = client.post(
        "/v1/sets/validate",
        data=b"{}",
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip", "Accept-Language": "es"},
    )
    assert problem(response, 415)["detail"] == (
        "El cuerpo llega con Content-Encoding gzip: no se aceptan codificaciones de contenido; "
        "envía el cuerpo sin codificar."
    )


# --- SUR-6: an unknown preset's 404 repeats at most 100 characters of its name ----------------


@pytest.mark.http
@pytest.mark.parametrize("lang", ["en", "es"])
def test_an_unknown_presets_404_is_bounded(client: FlaskClient, lang: str) -> None:
    name = "abcdefghij" * 500
    response = client.get(f"/v1/rules/{name}", headers={"Accept-Language": lang})
    body = problem(response, 404)
    shown = f"'{name[:100]}'…"
    assert shown in body["detail"] and name[:101] not in body["detail"]
    assert body["errors"] == [{"pointer": "", "detail": f"unknown preset {shown}"}]
    assert len(response.get_data()) < 1000
    exact = problem(client.get(f"/v1/rules/{name[:100]}"), 404)  # (100 characters: all of them, no "…")
    assert exact["errors"] == [{"pointer": "", "detail": f"unknown preset '{name[:100]}'"}]


# --- SUR-8: odd option values --------------------------------------------------------------------


@pytest.mark.cli
def test_an_empty_html_path_names_no_file(tmp_path: Path) -> None:
    from engine.generate import generate_game

    game = write(tmp_path / "game.json", generate_game(3, 2))
    result = invoke("replay", game, "--html", "")
    assert result.exit_code == 2
    assert one_line_error(result) == "rummikub: --html: an empty path names no file"


@pytest.mark.cli
@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_rummikub_server_is_unset(blank: str) -> None:
    result = invoke("validate", "R5 R6 R7", "--json", env={"RUMMIKUB_SERVER": blank})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["valid"] is True


@pytest.mark.cli
@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize("args", [["validate", "R5 R6 R7"], ["rules"], ["score", "-"]], ids=lambda a: a[0])
def test_a_blank_server_option_is_exit_2(blank: str, args: list[str]) -> None:
    """``--server ''`` ran in-process, quietly; docs/cli.md makes a --server that is not an
    http(s) URL exit 2."""
    result = invoke(*args, "--server", blank, input=json.dumps(ROUND))
    assert result.exit_code == 2, result.output
    assert one_line_error(result) == f"rummikub: --server {blank!r}: not a usable http:// or https:// URL"
