"""Pictures: the items of the session-52 audit (helper h4) left open, fixed by helper h8.

- h4-6: a loose ``after`` that no arrangement was found for was drawn as "(empty table)";
- h4-7: bidirectional overrides and control characters from a record reached the HTML report
  and the SVG as they were (a name's U+202E reversed the rest of its scores cell);
- h4-8: ``show -f svg`` of a position file drew any number of players and tiles;
- h4-9: a heading was one line, however long: a long name pushed "(opened)" off the picture.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.batch import Job, Row
from cli.inputs import Source
from cli.main import app
from cli.pictures import html_report
from engine.sets import TableSet
from engine.svg import PAD, RackView, table_svg, turn_svg
from engine.tiles import parse_tiles
from engine.turns import TurnVerdict
from engine.violations import Violation
from service.limits import Limits
from service.operations import RequestError, render_svg
from tests.test_cli import one_line_error

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{NS}g") if cls in (g.get("class") or "").split()]


def _words(root: ET.Element) -> str:
    return " ".join(t.text or "" for t in root.iter(f"{NS}text"))


# --- h4-6: a loose after with no arrangement ---------------------------------------------------------

LOOSE = {
    "before": [["R5", "R6", "R7"]],
    "after": {"loose": ["R5", "R6", "R7", "K1", "B9"]},
    "rack": ["K1", "B9", "O4"],
    "opened": True,
}


@pytest.mark.parametrize("form", ["object", "list"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_loose_after_with_no_arrangement_shows_the_tiles_laid(form: str, lang: str) -> None:
    body = dict(LOOSE, after=LOOSE["after"]["loose"]) if form == "list" else LOOSE  # type: ignore[index]
    root = ET.fromstring(render_svg(body, lang))
    assert "(empty table)" not in _words(root) and "(mesa vacía)" not in _words(root)
    [laid] = _groups(root, "loose")
    assert laid.get("data-code") == "NO_ARRANGEMENT" and "invalid" in (laid.get("class") or "").split()
    tiles = _groups(laid, "tile")
    assert [g.get("data-tile") for g in tiles] == ["R5", "R6", "R7", "K1", "B9"]
    assert [g.get("data-tile") for g in tiles if "played" in (g.get("class") or "")] == ["K1", "B9"]
    title = laid.find(f"{NS}title")
    assert title is not None and "NO_ARRANGEMENT" in (title.text or "")


def test_a_loose_after_of_a_hundred_tiles_is_wrapped_not_widened() -> None:
    tiles = [f"{c}{n}" for c in "KBOR" for n in range(1, 14)] * 2
    laid = [t for i, t in enumerate(tiles) if i % 3] + ["J"]  # 70 tiles that cannot all be laid out
    body = {"before": [], "after": laid, "rack": laid, "opened": True}
    # (a budget no load runs out: 0.6 s of the service's 1 s here, and NO_ARRANGEMENT is proven)
    unhurried = Limits(solver_budget_ms=30_000)
    root = ET.fromstring(render_svg(body, "en", unhurried))
    [group] = _groups(root, "loose")
    assert group.get("data-code") == "NO_ARRANGEMENT"
    assert len(_groups(group, "tile")) == len(laid)
    width = int(root.get("width") or 0)
    assert width <= 24 * 39 + 2 * PAD + 10  # a row of TILES_PER_ROW tiles at most
    for rect in group.iter(f"{NS}rect"):
        assert int(rect.get("x") or 0) + int(rect.get("width") or 0) <= width


def test_a_loose_after_whose_search_ran_out_is_drawn_with_arrangement_not_found() -> None:
    before = [TableSet(parse_tiles("R5 R6 R7"))]
    laid, rack = parse_tiles("R5 R6 R7 K1 B9"), parse_tiles("K1 B9 O4")
    verdict = TurnVerdict(
        action="play",
        played=parse_tiles("B9 K1"),
        rack_after=rack,
        opened_after=True,
        initial_meld_value=None,
        jokers_freed=0,
        violations=(Violation("ARRANGEMENT_NOT_FOUND", "/after", {"count": 5}),),
        penalty_draw=3,
        after=None,
    )
    root = ET.fromstring(turn_svg(before, (), rack, True, verdict=verdict, loose=laid))
    [group] = _groups(root, "loose")
    assert group.get("data-code") == "ARRANGEMENT_NOT_FOUND"
    assert [g.get("data-tile") for g in _groups(group, "tile")] == ["R5", "R6", "R7", "K1", "B9"]
    # and an arrangement found is drawn as its sets, as before
    found = ET.fromstring(turn_svg(before, (), rack, True, loose=parse_tiles("R5 R6 R7 K1 K2 K3"), lang="en"))
    assert not _groups(found, "loose") and len(_groups(found, "set")) == 3


def test_a_loose_after_with_a_tile_off_the_rack_is_wrapped_not_widened() -> None:
    tiles = [f"{c}{n}" for c in "KBOR" for n in range(1, 14)]
    body = {"before": [], "after": [*tiles, "J"], "rack": tiles, "opened": True}  # the joker is not on the rack
    root = ET.fromstring(render_svg(body, "en"))
    width = int(root.get("width") or 0)
    assert width <= 24 * 39 + 2 * PAD + 10  # was 2106 px: one row of the 53 tiles nobody laid out
    [laid] = [g for g in _groups(root, "set") if g.get("data-code") == "TILE_NOT_IN_RACK"]
    assert len(_groups(laid, "tile")) == 53
    for rect in root.iter(f"{NS}rect"):
        assert int(rect.get("x") or 0) + int(rect.get("width") or 0) <= width


def test_a_set_longer_than_a_row_has_rows_of_its_own() -> None:
    long = TableSet(parse_tiles(" ".join(f"{c}{n}" for c in "KB" for n in range(1, 14)) + " O1 O2 O3 O4"))
    table = [TableSet(parse_tiles("R1 R2 R3")), long, TableSet(parse_tiles("R7 R8 R9"))]
    root = ET.fromstring(table_svg(table))
    width = int(root.get("width") or 0)
    assert width <= 24 * 39 + 2 * PAD + 10
    first, wrapped, last = (
        [(int(r.get("x") or 0), int(r.get("y") or 0)) for r in g.iter(f"{NS}rect") if r.get("class") != "outline"]
        for g in _groups(root, "set")
    )
    assert len({y for _, y in wrapped}) == 2 and max(x for x, _ in wrapped) + 36 <= width - PAD
    assert max(y for _, y in first) < min(y for _, y in wrapped)  # a row of its own
    assert max(y for _, y in wrapped) < min(y for _, y in last)


def test_show_draws_a_loose_after_with_no_arrangement(tmp_path: Path) -> None:
    path = tmp_path / "loose.json"
    path.write_text(json.dumps(LOOSE))
    result = CliRunner().invoke(app, ["show", str(path), "-f", "svg"])
    assert result.exit_code == 1, result.output
    [group] = _groups(ET.fromstring(result.stdout), "loose")
    assert len(_groups(group, "tile")) == 5


# --- h4-7: bidirectional overrides and control characters --------------------------------------------


def test_the_html_report_escapes_overrides_and_controls_and_isolates_names() -> None:
    names = ["A\x1b[31m", "B\u202e", "C\u2067\x00"]
    row = Row("g.json", None, "game", "ok", result={"valid": True, "turns": []}, winner="B\u202e")
    row.scores = [(names[0], 35), (names[1], -12), (names[2], -11)]
    page = html_report([(Source("g\u202e.json"), row)], Job("replay"), "en")
    assert not any(ch in page for ch in BIDI + "\x1b\x00")
    assert "<bdi>A\\x1b[31m</bdi> +35, <bdi>B\\u202e</bdi> -12, <bdi>C\\u2067\\x00</bdi> -11" in page
    assert "<td><bdi>B\\u202e</bdi></td>" in page  # the winner


def test_a_replay_report_shows_a_name_with_an_override_escaped(tmp_path: Path) -> None:
    text = (EXAMPLES / "games" / "illegal.json").read_text(encoding="utf-8")
    record = tmp_path / "game.json"
    record.write_text(text.replace('"P3"', '"P3\\u202e\\u0007"'), encoding="utf-8")  # turn 6 is illegal
    page = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["replay", str(record), "--html", str(page)])
    assert result.exit_code == 1, result.output
    written = page.read_text(encoding="utf-8")
    assert "<h3>Turn 6 (<bdi>P3\\u202e\\x07</bdi>): play</h3>" in written
    assert "<svg" in written
    assert not any(ch in written for ch in BIDI + "\x07")


def test_a_picture_shows_overrides_and_controls_escaped() -> None:
    table = [TableSet(parse_tiles("R1 R2 R3"), id="x\u202ey\u2066\x01")]
    picture = table_svg(table, racks=[RackView(parse_tiles("K5"), "B\u202e\x1b[1m", True)])
    assert not any(ch in picture for ch in BIDI + "\x1b\x01")
    root = ET.fromstring(picture)
    assert "x\\u202ey\\u2066\\x01" in " ".join(t.text or "" for t in root.iter(f"{NS}title"))
    assert "B\\u202e\\x1b[1m (opened)" in _words(root)


# --- h4-8: the limits of a position picture -----------------------------------------------------------


def _position(players: int, tiles_each: int) -> dict[str, object]:
    return {
        "table": [["R1", "R2", "R3"]],
        "players": [{"name": f"P{i}", "rack": ["K1"] * tiles_each} for i in range(players)],
    }


def test_a_position_picture_has_at_most_the_players_of_a_request(tmp_path: Path) -> None:
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(_position(9, 1)))
    result = CliRunner().invoke(app, ["show", str(path), "-f", "svg"])
    assert result.exit_code == 2 and result.stdout == ""
    line = one_line_error(result)
    assert "/players: this array has 9 items; the limit is 8 (RUMMIKUB_MAX_PLAYERS)" in line
    text = CliRunner().invoke(app, ["show", str(path)])  # the text report holds every rack too
    assert text.exit_code == 2 and one_line_error(text) == line


def test_a_position_picture_has_at_most_the_tiles_of_a_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(_position(8, 2500)))  # 3 + 20,000 tiles
    result = CliRunner().invoke(app, ["show", str(path), "-f", "svg"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "/players/7/rack: the position holds more than 20000 tiles; the limit is 20000 (RUMMIKUB_MAX_TILES)" in (
        one_line_error(result)
    )
    monkeypatch.setenv("RUMMIKUB_MAX_TILES", "20003")  # the limit is the service's setting, here too
    drawn = CliRunner().invoke(app, ["show", str(path), "-f", "svg"])
    assert drawn.exit_code == 0 and len(_groups(ET.fromstring(drawn.stdout), "tile")) == 20_003


def test_the_service_draws_a_position_within_the_same_limits() -> None:
    body = {"table": [["R1", "R2", "R3"]], "rack": ["K1"] * 19_998}
    with pytest.raises(RequestError) as over:
        render_svg(body, "en")
    assert over.value.status == 413
    assert render_svg(body, "en", Limits(max_tiles=20_001)).startswith("<svg")
    players = {"table": [], "players": [{"name": "A", "rack": []}]}
    with pytest.raises(RequestError) as position:  # a position file's players: the CLI's only
        render_svg(players, "en")
    assert position.value.status == 422


# --- h4-9: long headings -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["N" * 300, "W" * 120, "Ana María de los Ángeles " * 8, "山田" * 60])
def test_a_long_name_is_wrapped_in_its_heading(name: str) -> None:
    root = ET.fromstring(table_svg([parse_tiles("R1 R2 R3")], racks=[RackView(parse_tiles("K5"), name, False)]))
    width = int(root.get("width") or 0)
    headings = [t.text or "" for t in root.iter(f"{NS}text") if t.get("font-size") == "16"]
    rack = headings[1:]
    assert len(rack) > 1 and rack[-1].endswith("(not opened)")
    assert " ".join(rack).replace(" ", "") == f"Rack — {name} (not opened)".replace(" ", "")
    widest = {"N": 0.84, "W": 1.11, "山": 1.0}  # ems in DejaVu Sans Bold, measured
    for line in rack:
        ems = sum(widest.get(ch, 0.72) for ch in line)
        assert PAD + ems * 16 <= width - PAD, line
    ys = [float(t.get("y") or 0) for t in root.iter(f"{NS}text") if t.get("font-size") == "16"]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # one under the other


def test_a_short_heading_is_one_line_as_before() -> None:
    root = ET.fromstring(table_svg([parse_tiles("R1 R2 R3")], racks=[RackView(parse_tiles("K5"), "Ann", True)]))
    headings = [t.text or "" for t in root.iter(f"{NS}text") if t.get("font-size") == "16"]
    assert headings == ["Table — 1 set, every set is valid", "Rack — Ann (opened)"]


def test_the_text_report_and_the_picture_have_at_most_the_tiles_of_a_request(tmp_path: Path) -> None:
    """A 12.6 MB position file took 59 s and 1.1 GB for the text report (session 53)."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({**_position(2, 9_000), "pool": ["R5"] * 1_998}))  # 3 + 18,000 + 1,998
    for args in (["show", str(path)], ["show", str(path), "-f", "svg"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and result.stdout == ""
        assert "/pool: the position holds more than 20000 tiles; the limit is 20000 (RUMMIKUB_MAX_TILES)" in (
            one_line_error(result)
        )
    path.write_text(json.dumps({**_position(2, 9_000), "pool": ["R5"] * 1_997}))  # 20,000: within the limit
    assert CliRunner().invoke(app, ["show", str(path)]).exit_code == 0
