"""Pictures (issue #17): engine.svg, POST /v1/render, `show --format svg`, `replay --html`.

Every SVG is parsed as XML; each tile of the input appears once with its label and colour;
invalid sets are outlined with their code; the same input gives the same bytes. The headless
Chromium tests open an SVG and the HTML report, take screenshots and check they are not blank.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.generate import corrupt_game, generate_game
from engine.replay import parse_game_record, replay_game, replay_moments
from engine.rules import resolve_rules
from engine.sets import TableSet
from engine.svg import COLORS_HEX, RackView, rack_svg, table_svg, turn_svg
from engine.tiles import SUPPLIES, parse_tiles
from service.app import create_app

NS = "{http://www.w3.org/2000/svg}"
COLOR_OF = {"K": "black", "B": "blue", "O": "orange", "R": "red"}


def _sets(*words: str) -> list[TableSet]:
    return [TableSet(parse_tiles(w)) for w in words]


def _tiles(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{NS}g") if "tile" in (g.get("class") or "").split()]


def _check_tile(g: ET.Element) -> None:
    code = g.get("data-tile") or ""
    title = g.find(f"{NS}title")
    assert title is not None and title.text and title.text.startswith(code)
    texts = [t for t in g.iter(f"{NS}text")]
    if code.startswith("J"):
        assert g.get("data-color") == "joker"
        assert g.find(f"{NS}circle") is not None  # the face
        if "=" in code:
            assert texts[-1].text == code[2:]  # the declared tile
    else:
        assert g.get("data-color") == COLOR_OF[code[0]]
        assert texts[0].text == code[1:]
        assert texts[0].get("fill") == COLORS_HEX[code[0]]


def _codes(tiles: list[ET.Element]) -> Counter[str]:
    return Counter(g.get("data-tile") or "" for g in tiles)


def test_table_every_tile_once_with_label_and_colour() -> None:
    table = _sets("R3 R4 R5 J", "K9 B9 O9", "J=R8 R9 R10", "B12 B13 B1", "K1 O1")
    rack = parse_tiles("R6 K1 J O13")
    picture = table_svg(table, racks=[RackView(rack, "Ann", True)], pool=40)
    root = ET.fromstring(picture)
    assert root.tag == f"{NS}svg" and root.get("viewBox", "").startswith("0 0 ")
    tiles = _tiles(root)
    expected = Counter(t.code for s in table for t in s.tiles) + Counter(t.code for t in rack)
    assert _codes(tiles) == expected
    for g in tiles:
        _check_tile(g)
    sets = [g for g in root.iter(f"{NS}g") if (g.get("class") or "").startswith("set ")]
    assert [g.get("class") for g in sets] == ["set valid", "set valid", "set valid", "set invalid", "set invalid"]
    for g, code in zip(sets[3:], ("RUN_WRAPAROUND", "SET_TOO_SHORT"), strict=True):
        assert g.get("data-code") == code
        outline = g.find(f"{NS}rect")
        assert outline is not None and outline.get("class") == "outline" and outline.get("stroke") == "#d32f2f"
        assert code in "".join(t.text or "" for t in g.iter(f"{NS}text"))
        title = g.find(f"{NS}title")
        assert title is not None and code in (title.text or "")
    # an undeclared run joker shows the tile it stands for
    first_joker = next(g for g in tiles if g.get("data-tile") == "J")
    assert [t.text for t in first_joker.iter(f"{NS}text")] == ["R6"]
    assert picture == table_svg(table, racks=[RackView(rack, "Ann", True)], pool=40)


def test_turn_marks_played_tiles_freed_jokers_and_invalid_sets() -> None:
    before = _sets("R5 R6 J R8")
    after = _sets("R5 R6 R7 R8", "K11 K12 J", "B1 B3 O4")
    rack = parse_tiles("R7 K11 K12 B1 B3 O4")
    picture = turn_svg(before, after, rack, True, lang="es")
    root = ET.fromstring(picture)
    tiles = _tiles(root)
    expected = Counter(t.code for s in [*before, *after] for t in s.tiles) + Counter(t.code for t in rack)
    assert _codes(tiles) == expected
    for g in tiles:
        _check_tile(g)
    played = [g.get("data-tile") for g in tiles if "played" in (g.get("class") or "")]
    assert Counter(played) == Counter(["R7", "K11", "K12", "B1", "B3", "O4"] * 2)  # on the table and the rack
    freed = [g for g in tiles if "freed" in (g.get("class") or "")]
    assert len(freed) == 1 and freed[0].get("data-tile") == "J"
    invalid = [g for g in root.iter(f"{NS}g") if g.get("class") == "set invalid"]
    assert len(invalid) == 1 and invalid[0].get("data-code") == "NOT_A_SET"
    words = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert "Turno ilegal" in words and "INVALID_SET" in words
    assert picture == turn_svg(before, after, rack, True, lang="es")
    # a replay's pointers into the record instead of the verdict's, one per violation
    record = turn_svg(before, after, rack, True, lang="es", pointers=["/turns/3/table/2"])
    assert "/turns/3/table/2" in record and "/after/2" not in record and "/after/2" in picture
    with pytest.raises(ValueError, match="one per violation"):
        turn_svg(before, after, rack, True, pointers=[])


def test_text_is_escaped() -> None:
    table = [TableSet(parse_tiles("R1 R2 R3"), id='<a&b "c">\x01'), TableSet(parse_tiles("R1 K2"), id="</svg>")]
    root = ET.fromstring(table_svg(table))
    titles = [t.text or "" for t in root.iter(f"{NS}title")]
    assert any('<a&b "c">' in t for t in titles) and any("</svg>" in t for t in titles)
    assert ET.fromstring(rack_svg(parse_tiles("J=K5 B2"), title="<&>")).find(f"{NS}title").text == "<&>"  # type: ignore[union-attr]


def test_a_full_table_renders_every_tile() -> None:
    rules = resolve_rules("sabra")
    everything = SUPPLIES["classic"].all_tiles()
    table = [TableSet(tuple(everything[i : i + 4])) for i in range(0, len(everything), 4)]
    root = ET.fromstring(table_svg(table, rules))
    assert sum(_codes(_tiles(root)).values()) == 106


def test_replay_moments_match_replay_game() -> None:
    record = parse_game_record(corrupt_game(generate_game(7, 3), 7)[0])
    moments = replay_moments(record)
    result = replay_game(record)
    assert [m.turn for m in moments] == list(result.turns)
    bad = result.first_invalid_turn
    assert bad is not None and moments[bad].turn.verdict is not None


# --- HTTP ------------------------------------------------------------------------------------

CLIENT = create_app({"TESTING": True}).test_client()


def test_render_endpoint_turn_and_position() -> None:
    turn = {"before": [["R5", "R6", "J", "R8"]], "after": [["R5", "R6", "R7", "R8"]], "rack": ["R7"], "opened": True}
    answer = CLIENT.post("/v1/render", json=turn, headers={"Accept-Language": "es"})
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    assert answer.headers["Content-Language"] == "es"
    root = ET.fromstring(answer.data)
    assert _codes(_tiles(root)) == Counter(["R5", "R6", "J", "R8", "R5", "R6", "R7", "R8", "R7"])
    assert answer.data == CLIENT.post("/v1/render", json=turn, headers={"Accept-Language": "es"}).data
    position = {"table": [["R1", "R2", "R3"], {"tiles": ["K5", "K5", "K6"], "id": "x"}], "rack": ["J"]}
    answer = CLIENT.post("/v1/render", json=position)
    assert answer.status_code == 200
    assert [
        g.get("data-code") for g in ET.fromstring(answer.data).iter(f"{NS}g") if g.get("class") == "set invalid"
    ] == ["RUN_DUPLICATE_NUMBER"]
    loose = {"before": [], "after": ["R1", "R2", "R3", "R4"], "rack": ["R1", "R2", "R3", "R4"], "opened": True}
    assert CLIENT.post("/v1/render", json=loose).status_code == 200


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"table": [["R14"]]}, "/table/0/0"),
        ({"before": [], "after": [], "rack": ["R1"]}, "/opened"),
        ({"before": [], "after": [], "rack": [], "opened": True}, "/rack"),
        ({"table": [], "colour": 1}, "/colour"),
        ([1, 2], ""),
    ],
)
def test_render_endpoint_rejects_bad_input(body: object, pointer: str) -> None:
    answer = CLIENT.post("/v1/render", json=body)
    assert answer.status_code == 422 and answer.mimetype == "application/problem+json"
    assert pointer in [e["pointer"] for e in answer.get_json()["errors"]]


def test_render_endpoint_limits() -> None:
    small = create_app({"TESTING": True, "RUMMIKUB_MAX_TILES_PER_SET": 5}).test_client()
    answer = small.post("/v1/render", json={"table": [["R1", "R2", "R3", "R4", "R5", "R6"]]})
    assert answer.status_code == 413


# --- CLI ---------------------------------------------------------------------------------------

RUNNER = CliRunner()


def _games(folder: Path) -> None:
    for seed in range(2):
        (folder / f"good{seed}.json").write_text(json.dumps(generate_game(seed, 3)))
    bad, _, _ = corrupt_game(generate_game(7, 3), 7)
    (folder / "bad.json").write_text(json.dumps(bad))
    (folder / "broken.json").write_text('{"players": 3}')


def test_show_format_svg(tmp_path: Path) -> None:
    position = {"table": [["R3", "R4", "J"], ["K1", "B2", "O3"]], "players": [{"name": "Ann", "rack": ["R6"]}]}
    (tmp_path / "pos.json").write_text(json.dumps(position))
    result = RUNNER.invoke(app, ["show", str(tmp_path / "pos.json"), "--format", "svg"])
    assert result.exit_code == 1  # the table has an invalid set
    root = ET.fromstring(result.stdout)
    assert _codes(_tiles(root)) == Counter(["R3", "R4", "J", "K1", "B2", "O3", "R6"])
    turn = {"before": [], "after": [["R10", "R11", "R12"]], "rack": ["R10", "R11", "R12", "K1"], "opened": False}
    (tmp_path / "turn.json").write_text(json.dumps(turn))
    result = RUNNER.invoke(app, ["show", str(tmp_path / "turn.json"), "-f", "svg", "--lang", "es"])
    assert result.exit_code == 0 and "Jugada legal" in result.stdout
    ET.fromstring(result.stdout)
    (tmp_path / "bad.json").write_text(json.dumps({**position, "players": [{"name": "A", "rack": ["Z1"]}]}))
    result = RUNNER.invoke(app, ["show", str(tmp_path / "bad.json"), "--format", "svg"])
    assert result.exit_code == 2


def test_replay_html_report(tmp_path: Path) -> None:
    _games(tmp_path)
    report = tmp_path / "report.html"
    result = RUNNER.invoke(app, ["replay", str(tmp_path), "--html", str(report), "--lang", "es"])
    assert result.exit_code == 2  # one document is unreadable
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'lang="es"' in page
    assert page.count("<tr class=") == 4 and "Rondas con problemas" in page
    assert "INVALID_SET" in page and page.count("<svg") == 1  # the offending turn of bad.json
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # self-contained
    # in Spanish throughout: the turn's action and the first problem's pointer (a docs
    # audit, session 44: "Turno 1 (A): play", "INVALID_SET at /turns/…")
    assert re.search(r"Turno \d+ \([^)]*\): juega<", page) and ": play<" not in page
    assert re.search(r"INVALID_SET en /turns/\d+", page) and " at /turns/" not in page
    english = RUNNER.invoke(app, ["replay", str(tmp_path / "bad.json"), "--html", str(report)])
    page = report.read_text(encoding="utf-8")
    assert english.exit_code == 1 and ": play<" in page and re.search(r"INVALID_SET at /turns/\d+", page)


# --- headless Chromium -------------------------------------------------------------------------


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _png_size_and_colours(data: bytes) -> tuple[int, int, int]:
    """Width, height and the number of distinct pixel colours of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = depth = colour = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    colours: set[bytes] = set()
    i = 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        colours.update(bytes(line[x : x + 3]) for x in range(0, stride, bpp * 3))
        previous = line
    return width, height, len(colours)


def _screenshot(browser: str, target: Path, out: Path, width: int, height: int) -> bytes:
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={out.parent / 'profile'}",
            f"--screenshot={out}",
            f"--window-size={width},{height}",
            target.as_uri(),
        ],
        check=False,
        capture_output=True,
        timeout=120,
    )
    assert out.is_file(), f"chromium wrote no screenshot of {target}"
    return out.read_bytes()


@pytest.mark.slow
def test_pictures_in_headless_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
    folder = tmp_path  # pytest keeps the last few runs' folders (the screenshots) and removes older ones
    picture = folder / "turn.svg"
    before = _sets("R5 R6 J R8", "K9 B9 O9")
    after = _sets("R5 R6 R7 R8", "K9 B9 O9", "K11 K12 J", "B1 B3 O4")
    picture.write_text(turn_svg(before, after, parse_tiles("R7 K11 K12 B1 B3 O4 K2"), True), encoding="utf-8")
    root = ET.fromstring(picture.read_text(encoding="utf-8"))
    w, h = int(root.get("width") or 0), int(root.get("height") or 0)
    shot = _screenshot(browser, picture, folder / "turn.png", w, h)
    width, height, colours = _png_size_and_colours(shot)
    assert (width, height) == (w, h)
    assert colours > 20, "the SVG screenshot is blank"
    games = folder / "games"
    games.mkdir()
    _games(games)
    report = folder / "report.html"
    RUNNER.invoke(app, ["replay", str(games), "--html", str(report)])
    shot = _screenshot(browser, report, folder / "report.png", 1100, 1400)
    width, height, colours = _png_size_and_colours(shot)
    assert (width, height) == (1100, 1400)
    assert colours > 20, "the report screenshot is blank"
