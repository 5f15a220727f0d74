"""Message wording found by the language audit of session 53 (lang): counts agree with their
nouns, Spanish continues lower-case after a colon, and the same state has one wording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.violations import Violation, render
from service.operations import RequestError, run_operation


def _messages(answer: Any) -> list[str]:
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if "code" in x and "message" in x:
                found.append(x["message"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(answer)
    return found


def test_pool_mismatch_of_one_undealt_tile_is_singular() -> None:
    params = {"count": 0, "expected": 1, "missing": "B3", "case": "one"}
    assert render("POOL_MISMATCH", params, "en") == (
        "The pool must hold exactly the 1 tile that was not dealt; it holds 0 (missing: B3)."
    )
    assert render("POOL_MISMATCH", params, "es") == (
        "El pozo debe tener exactamente la 1 ficha que no se repartió; tiene 0 (falta: B3)."
    )
    many = {"count": 77, "expected": 78, "missing": "K9", "case": "one"}
    assert "exactly the 78 tiles that were not dealt" in render("POOL_MISMATCH", many, "en")
    assert "exactamente las 78 fichas que no se repartieron" in render("POOL_MISMATCH", many, "es")


def test_group_joker_needing_both_colours_names_both_tiles_in_the_plural() -> None:
    body = {
        "before": [["R3", "B3", "J"], ["R4", "R5", "R6"]],
        "after": [["R3", "R4", "R5", "R6"], ["B3", "B4", "B5"], ["K10", "B10", "J"]],
        "rack": ["K10", "B10", "B4", "B5"],
        "opened": True,
        "rules": {"preset": "sabra", "group_joker_needs_both_colours": True},
    }
    en = _messages(run_operation("turns/verify", body, "en"))
    es = _messages(run_operation("turns/verify", body, "es"))
    assert en == [
        "A joker did not stay in a valid group, and the two missing tiles (K3 and O3) did not take its place."
    ]
    assert es == [
        "Un comodín no se quedó en un grupo válido, y las dos fichas que faltaban (K3 y O3) no ocuparon su lugar."
    ]


def test_spanish_or_before_an_orange_tile_is_u() -> None:
    assert "(K3 u O3)" in render("JOKER_NOT_REPLACED", {"tile": "K3 or O3"}, "es")
    assert "(B3 o K3)" in render("JOKER_NOT_REPLACED", {"tile": "B3 or K3"}, "es")


def test_spanish_continues_lower_case_after_a_colon() -> None:
    v = Violation("INVALID_SET", "/after/0", {"count": 2, "set_id": "izq"}, set_code="SET_TOO_SHORT")
    assert v.message("es") == (
        'Combinación "izq": esta combinación no es válida: una combinación necesita al menos 3 fichas; esta tiene 2.'
    )
    assert v.message("en") == 'Set "izq": this set is not valid: a set needs at least 3 tiles; this one has 2.'


def test_player_count_allowed_agrees_in_spanish() -> None:
    assert "(se permiten: 2, 3, 4)" in render("PLAYER_COUNT", {"count": 5, "allowed": "2, 3, 4"}, "es")


def test_no_tile_played_says_the_table_changed() -> None:
    body = {
        "before": [["R3", "R4", "R5"], ["K9", "B9", "O9"]],
        "after": [["R3", "R4", "R5"]],
        "rack": ["K1"],
        "opened": True,
    }
    assert "The table changed but no tile was played from the rack." in _messages(
        run_operation("turns/verify", body, "en")
    )
    assert "La mesa cambió sin que se jugara ninguna ficha del atril." in _messages(
        run_operation("turns/verify", body, "es")
    )


def test_end_mismatch_with_no_pass_yet_says_so() -> None:
    params = {"case": "no_pass", "passes": 0, "players": 4}
    assert "but no player has passed since the pool ran out" in render("END_MISMATCH", params, "en")
    assert "pero nadie ha pasado desde que se agotó" in render("END_MISMATCH", params, "es")
    assert "only 0" not in render("END_MISMATCH", params, "en")


def test_pictures_say_ha_abierto_for_an_opened_player() -> None:
    from engine import svg
    from engine.rules import SABRA
    from engine.sets import parse_table
    from engine.tiles import parse_tiles

    picture = svg.table_svg(
        parse_table([["R1", "R2", "R3"]], "/table"),
        SABRA,
        racks=[svg.RackView(parse_tiles(["R5"]), "Ann", True), svg.RackView(parse_tiles(["K2"]), "Bob", False)],
        lang="es",
    )
    assert "Atril — Ann (ha abierto)" in picture and "Atril — Bob (no ha abierto)" in picture
    assert "abrió" not in picture


def test_shared_wins_name_the_players_as_a_list() -> None:
    from cli.render import _names

    assert _names(["A", "B", "C"], "en") == "A, B and C"
    assert _names(["A", "B"], "es") == "A y B"
    assert _names(["A"], "es") == "A"


def test_html_report_of_one_game_is_singular(tmp_path: Any) -> None:
    import re
    from pathlib import Path

    from typer.testing import CliRunner

    from cli.main import app

    game = Path(__file__).resolve().parents[1] / "examples" / "games" / "illegal.json"
    for lang, words in (
        ("en", "1 game: 0 legal, 1 with an illegal turn or record, 0 unreadable"),
        ("es", "1 ronda: 0 legales, 1 con un turno o registro ilegal, 0 ilegibles"),
    ):
        page = tmp_path / f"report-{lang}.html"
        result = CliRunner().invoke(app, ["replay", str(game), "--html", str(page), "--lang", lang])
        assert result.exit_code == 1, result.output
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
        assert words in text


def test_a_valid_set_outlined_for_a_turn_violation_is_not_called_invalid() -> None:
    from engine import svg
    from engine.rules import SABRA
    from engine.sets import parse_table
    from engine.tiles import parse_tiles

    picture = svg.turn_svg(
        parse_table([["R3", "R4", "R5"]], "/before"),
        parse_table([["R3", "R4", "R5"], ["B1", "B2", "B3"]], "/after"),
        parse_tiles(["B1", "B2", "K5"]),
        True,
        SABRA,
        lang="es",
    )
    assert "Combinación 2: B1 B2 B3 — escalera, vale 6; TILE_NOT_IN_RACK: La ficha B3" in picture
    assert "no válida: TILE_NOT_IN_RACK" not in picture
    bad = svg.turn_svg(
        parse_table([], "/before"), parse_table([["B1", "B2"]], "/after"), parse_tiles(["B1", "B2", "K5"]), True, SABRA
    )
    assert "Set 1: B1 B2 — invalid: SET_TOO_SHORT" in bad


def _timed(elapsed: float, limit: float, lang: str) -> list[str]:
    body = {
        "before": [],
        "after": [["B1", "B2", "B3"]],
        "rack": ["B1", "B2", "B3", "K1"],
        "opened": True,
        "elapsed_seconds": elapsed,
        "rules": {"preset": "sabra", "turn_time_limit": limit},
    }
    return [v["message"] for v in run_operation("turns/verify", body, lang)["violations"]]


def test_seconds_are_written_as_the_request_wrote_them() -> None:
    """'121.0 s', '1e+20 s' at most for absurd values, and a decimal comma in Spanish (lang-03)."""
    assert _timed(121.0, 120.0, "en") == ["The turn took 121 s; the limit is 120 s."]
    assert _timed(120.0004, 120, "en") == ["The turn took 120.0004 s; the limit is 120 s."]
    assert _timed(121.5, 120.5, "es") == ["El turno duró 121,5 s; el límite es 120,5 s."]


def test_a_422_detail_names_the_place_before_the_reason() -> None:
    """'... presets: sabra, ..., online-sabra at /rules.' read as a preset's place (lang-11)."""
    try:
        run_operation("sets/validate", {"sets": [["R1", "R2", "R3"]], "rules": "nope"}, "en")
    except RequestError as exc:
        detail = exc.to_problem("en")["detail"]
    else:
        raise AssertionError("no 422")
    assert detail.startswith("The request cannot be read at /rules: unknown rules preset 'nope'; presets: sabra")
    assert detail.endswith("online-sabra.")


def test_spanish_supply_arrangement_and_penalty_words() -> None:
    """lang-06, lang-12, lang-15: 'solo tiene 2 fichas R5; la petición tiene 3', the tiles laid named with
    their article, and a penalty counted in tiles."""
    from cli.render import penalty_text

    assert render("TILE_SUPPLY_EXCEEDED", {"tile": "R5", "limit": 2, "count": 3, "tiles": "classic"}, "es") == (
        "El juego de fichas clásico solo tiene 2 fichas R5; la petición tiene 3."
    )
    assert (
        render("NO_ARRANGEMENT", {"count": 1, "case": "one"}, "es")
        == "La ficha no se puede colocar en una combinación válida."
    )
    assert render("ARRANGEMENT_NOT_FOUND", {"count": 12}, "es") == (
        "No se encontró cómo colocar las 12 fichas dentro del tiempo disponible."
    )
    assert penalty_text({"restore_table": True, "draw": 3}, "es") == "mesa restaurada, roba 3 fichas de penalización"
    assert penalty_text({"restore_table": True, "draw": 1}, "es") == "mesa restaurada, roba 1 ficha de penalización"
    assert penalty_text({"restore_table": True, "draw": 3}, "en") == "table restored, penalty draw 3"


def test_a_score_is_written_one_way_in_every_readable_report() -> None:
    """+2.33333 in the round report, +2.333333333 in the batch table, 43 without its sign on the
    --html page (lang-13)."""
    from cli.render import signed_score

    assert [signed_score(v) for v in (7 / 3, 43, -13, 0, -2.5)] == ["+2.333333333", "+43", "-13", "0", "-2.5"]


def test_a_csv_error_cell_has_one_shape_in_every_language() -> None:
    """The CSV cell said 'TILE_NOT_IN_RACK en /turns/6/...' under --lang es (lang-21)."""
    from pathlib import Path

    from typer.testing import CliRunner

    from cli.main import app

    game = str(Path(__file__).resolve().parent.parent / "examples" / "games" / "illegal.json")
    for lang in ("en", "es"):
        out = CliRunner().invoke(app, ["replay", game, "-f", "csv", "--lang", lang]).stdout
        assert ",6,TILE_NOT_IN_RACK at /turns/6/table/2: " in out.replace('"', ""), out


def test_review_a_group_joker_needing_three_colours_is_not_both() -> None:
    from service.operations import run_operation

    body = {
        "before": [{"tiles": ["K5", "J", "J"], "kind": "group"}, ["B6", "B7", "B8"]],
        "rack": ["K6", "K7", "K10", "K11", "R1", "R2"],
        "after": [["B6", "B7", "B8"], ["K5", "K6", "K7"], ["J", "K10", "K11"], ["J", "R1", "R2"]],
        "opened": True,
        "rules": {"preset": "sabra", "group_joker_needs_both_colours": True},
    }
    for lang, word in (("en", "both"), ("es", "las dos")):
        messages = [v["message"] for v in run_operation("turns/verify", body, lang)["violations"]]
        assert messages and not any(word in m for m in messages), messages


def test_review_show_json_of_a_position_is_not_limited_by_its_racks(tmp_path) -> None:
    import json

    from typer.testing import CliRunner

    from cli.main import app

    path = tmp_path / "pos.json"
    players = [{"name": f"P{i}", "rack": ["K5"]} for i in range(9)]
    path.write_text(json.dumps({"table": [["R1", "R2", "R3"]], "players": players, "pool": 3}))
    assert CliRunner().invoke(app, ["show", str(path), "--json"]).exit_code == 0
    assert CliRunner().invoke(app, ["show", str(path)]).exit_code == 2


def test_review_wordings_of_session_53() -> None:
    """The session's review: 'Ana e Inés', seconds never with an exponent below 10**16, one tile
    worded without '1', END_MISMATCH's no-pass case true after a play reset the passes."""
    from cli.render import _names
    from engine.violations import number_text

    assert _names(["Ana", "Inés"], "es") == "Ana e Inés" and _names(["Ana", "Hielo"], "es") == "Ana y Hielo"
    assert _names(["Ana", "Inés"], "en") == "Ana and Inés"
    assert number_text(2e-05) == "0.00002" and number_text(1e20) == "1e+20" and number_text(0.5, "es") == "0,5"
    assert (
        render("ARRANGEMENT_NOT_FOUND", {"count": 1, "case": "one"}, "en")
        == "No arrangement of the tile was found within the time budget."
    )
    message = render("END_MISMATCH", {"case": "no_pass", "passes": 0, "players": 4}, "en")
    assert "or since the last play after it" in message


def test_a_spanish_round_report_writes_a_shared_win_with_a_decimal_comma(tmp_path: Path) -> None:
    """Session 54: "+3.5" in a Spanish round report, where seconds were already "121,5 s"; the
    batch table and CSV keep the point (data, comma-separated)."""
    import json

    from typer.testing import CliRunner

    from cli.main import app
    from cli.render import signed_score

    assert [signed_score(v, "es") for v in (7 / 3, 43, -2.5)] == ["+2,333333333", "+43", "-2,5"]
    racks = (["R1"], ["B1"], ["R5"], ["K4"])
    names = ("Ana", "Inés", "Eva", "Leo")
    doc = {"rules": "sabra", "players": [{"name": n, "rack": r} for n, r in zip(names, racks, strict=True)]}
    runner = CliRunner()
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    spanish = runner.invoke(app, ["score", str(path), "--lang", "es"]).stdout
    english = runner.invoke(app, ["score", str(path)]).stdout
    csv = runner.invoke(app, ["score", str(path), str(path), "-f", "csv", "--lang", "es"]).stdout
    assert "+3,5" in spanish and "3.5" not in spanish, spanish
    assert "+3.5" in english and "3,5" not in english, english
    assert "3.5" in csv, csv
