"""Pictures and readable outputs: the audit of session 52 (helper h4).

- a turn picture dashed no freed joker when the before table held two identical sets with
  jokers and one of them stayed whole (turns/verify: jokers_freed 1);
- ``replay --html`` wrote a service's ``first_invalid_turn`` into the page unescaped (and the
  CLI took a string there for a verdict);
- the picture of a WRONG_PLAYER turn named the recorded player over the rack of the player due;
- at 40 columns a violation code longer than the verdict column was cut ("JOKER_DECLARATIO…").
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.batch import Job, Row
from cli.inputs import Source
from cli.main import app
from cli.pictures import html_report
from engine.sets import TableSet
from engine.svg import turn_svg
from engine.tiles import parse_tiles
from service.operations import render_svg, run_operation
from tests.test_cli import one_line_error
from tests.test_cli_server import serve_wsgi

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _tiles(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{NS}g") if "tile" in (g.get("class") or "").split()]


def test_a_freed_joker_of_one_of_two_identical_sets_is_dashed() -> None:
    body = {
        "before": [["O8", "J", "O10"], ["O8", "J", "O10"]],
        "after": [["O8", "O9", "O10"], ["O8", "J", "O10"], ["B8", "J", "B10"]],
        "rack": ["O9", "B8", "B10"],
        "opened": True,
    }
    assert run_operation("turns/verify", body, "en")["jokers_freed"] == 1
    root = ET.fromstring(render_svg(body, "en"))
    freed = [g for g in _tiles(root) if "freed" in (g.get("class") or "").split()]
    assert [g.get("data-tile") for g in freed] == ["J"]
    # one identical set staying whole still keeps its joker undashed: nothing freed, nothing dashed
    same = [TableSet(parse_tiles("O8 J O10")), TableSet(parse_tiles("O8 J O10"))]
    still = ET.fromstring(turn_svg(same, [*same, TableSet(parse_tiles("K1 K2 K3"))], parse_tiles("K1 K2 K3"), True))
    assert not [g for g in _tiles(still) if "freed" in (g.get("class") or "").split()]


def test_the_html_report_escapes_the_first_invalid_turn() -> None:
    row = Row("g.json", None, "game", "invalid", result={"valid": False, "turns": []})
    row.first_invalid_turn = "<script>alert(1)</script>"  # type: ignore[assignment]
    page = html_report([(Source("g.json"), row)], Job("replay"), "en")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.fixture(scope="module")
def turn_as_markup() -> Iterator[str]:
    """Another program (or one in the way): a replay whose first invalid turn is markup."""
    answer = {"valid": False, "turns": [], "first_invalid_turn": "<script>alert(1)</script>", "violations": []}

    def wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(answer).encode()]

    yield from serve_wsgi(wsgi)


def test_a_first_invalid_turn_that_is_no_number_is_not_the_service(tmp_path: Path, turn_as_markup: str) -> None:
    page = tmp_path / "r.html"
    for args in (["-f", "csv"], ["--html", str(page)]):
        result = CliRunner().invoke(
            app, ["replay", str(EXAMPLES / "game.json"), *args, "--server", turn_as_markup], env={"NO_COLOR": "1"}
        )
        assert result.exit_code == 3, (args, result.output)
        assert "'first_invalid_turn' is " in one_line_error(result)
        assert "<script>" not in result.stdout
    assert not page.exists() or "<script>" not in page.read_text(encoding="utf-8")


def test_the_rack_drawn_for_a_wrong_player_is_named_after_its_owner(tmp_path: Path) -> None:
    game = json.loads((EXAMPLES / "game.json").read_text())
    assert game["turns"][1]["player"] == "P2"
    game["turns"][1]["player"] = "P3"  # WRONG_PLAYER: the rack drawn is P2's, who was due
    (tmp_path / "g.json").write_text(json.dumps(game))
    page = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "g.json"), "--html", str(page)])
    assert result.exit_code == 1, result.output
    text = page.read_text(encoding="utf-8")
    assert "WRONG_PLAYER" in text
    assert "Rack — P2 (not opened)" in text and "Rack — P3" not in text


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_code_is_never_cut_at_40_columns(lang: str) -> None:
    result = CliRunner().invoke(app, ["validate", "R5 J=K6 R7", "--lang", lang], env={"NO_COLOR": "1", "COLUMNS": "40"})
    assert result.exit_code == 1
    assert "…" not in result.stdout
    assert "JOKER_DECLARATION_MISMATCH" in "".join(line.strip() for line in result.stdout.splitlines())


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["1 draw undecided", "2 draws not searched: the analysis budget ran out"]),
        ("es", ["1 robo sin decidir", "2 robos sin revisar: se agotó el tiempo del análisis"]),
    ],
)
def test_the_html_report_says_when_the_analysis_was_cut(lang: str, words: list[str]) -> None:
    """The page listed the missed plays found as if they were all: the text report's "N not
    searched (the analysis budget ran out)" was missing, and a game whose cut analysis found
    none had no section at all."""
    analysis = {
        "draws_analyzed": 3,
        "draws_not_searched": 2,
        "missed_plays": [],
        "late_openings": [],
        "undecided": [4, 5, 6],
        "budget_exhausted": True,
    }
    row = Row(
        str(EXAMPLES / "game.json"), None, "game", "ok", result={"valid": True, "turns": [], "analysis": analysis}
    )
    page = html_report([(Source(str(EXAMPLES / "game.json")), row)], Job("replay", analyze=True), lang)
    assert 'id="game-1"' in page
    for text in words:
        assert text in page


def test_a_position_picture_says_not_opened_when_opened_is_left_out(tmp_path: Path) -> None:
    position = {"table": [["R1", "R2", "R3"]], "players": [{"name": "Ann", "rack": ["R5"]}]}
    (tmp_path / "p.json").write_text(json.dumps(position))
    result = CliRunner().invoke(app, ["show", str(tmp_path / "p.json"), "-f", "svg"])
    assert result.exit_code == 0, result.output
    headings = [t.text for t in ET.fromstring(result.stdout).iter(f"{NS}text")]
    assert "Rack — Ann (not opened)" in headings


def test_the_picture_of_an_illegal_recorded_turn_points_into_the_record(tmp_path: Path) -> None:
    # the page's summary said /turns/6/table/2 and the turn's picture /after/2, a pointer into
    # no document the user gave (the docs followed literally, session 58)
    page = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["replay", str(EXAMPLES / "games" / "illegal.json"), "--html", str(page)])
    assert result.exit_code == 1, result.output
    text = page.read_text(encoding="utf-8")
    assert text.count("/turns/6/table/2") >= 3 and "/after/" not in text
