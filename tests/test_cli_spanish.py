"""``--lang es``: every report a command prints on stdout is in Spanish (headings, verdicts,
table columns, batch summaries, preset descriptions), English stays the default, and the
machine-readable outputs (``--json``, ``-f jsonl``, ``-f csv``) keep their field names, codes and
statuses. tests/test_cli_server.py checks the Spanish reports are the same with ``--server``.
"""

from __future__ import annotations

import io
import json
import re
import string
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cli import batch, render
from engine.generate import generate_game
from engine.rules import PRESET_DESCRIPTIONS, PRESET_DESCRIPTIONS_ES, PRESETS
from tests.test_cli import KEPT_PENALTY, POSITION, ROUND, ROUND_2, SHORT_RECORD, TURN_BAD, TURN_OK, invoke, write

pytestmark = pytest.mark.cli

WIDE = {"COLUMNS": "200"}


def both(*args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    """The stdout of ``rummikub ARGS`` in English (the default) and with ``--lang es``; the
    exit code and stderr do not depend on the report's language."""
    english = invoke(*args, env={**WIDE, **(env or {})})
    spanish = invoke(*args, "--lang", "es", env={**WIDE, **(env or {})})
    assert spanish.exit_code == english.exit_code, spanish.stdout
    return english.stdout, spanish.stdout


def lines(text: str) -> list[str]:
    """Report lines with runs of spaces squeezed and trailing spaces removed."""
    return [re.sub(r" {2,}", "  ", line).rstrip() for line in text.splitlines()]


# --- the word tables ---------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("table", [render.WORDS, batch._WORDS], ids=["render", "batch"])
def test_every_english_phrase_has_a_spanish_one_with_the_same_fields(table: dict[str, dict[str, str]]) -> None:
    english, spanish = table["en"], table["es"]
    assert set(english) <= set(spanish)
    for key, template in english.items():
        assert _fields(spanish[key]) == _fields(template), key
    for key, template in spanish.items():  # Spanish-only variants (by gender) name English keys
        assert key in english or key.rsplit("_", 1)[0] in english, key
        assert _fields(template) == _fields(english.get(key, english.get(key.rsplit("_", 1)[0], ""))), key


def test_every_preset_has_a_spanish_description() -> None:
    assert set(PRESET_DESCRIPTIONS_ES) == set(PRESET_DESCRIPTIONS) == set(PRESETS)
    assert all(PRESET_DESCRIPTIONS_ES[name] != PRESET_DESCRIPTIONS[name] for name in PRESETS)


def test_an_unknown_language_reads_as_english() -> None:
    assert render.words("fr") is render.WORDS["en"]
    assert batch.plural("game", "fr") == "games"


# --- one command at a time -----------------------------------------------------------------------


def test_validate() -> None:
    en, es = both("validate", "R5 R6 R7", "K9 B9 J", "K1 K1 B1")
    assert "✗ 1 of 3 sets invalid" in en and "run 18" in en and "group 27" in en and "verdict" in en
    assert "✗ 1 de 3 combinaciones no válidas" in es
    assert "✓ escalera 18" in es and "✓ grupo 27" in es
    assert "fichas" in es and "veredicto" in es and "verdict" not in es
    assert "Un grupo no puede tener dos fichas del mismo color." in es
    en, es = both("validate", "R5 R6 R7", "K9 B9 J")
    assert "✓ all 2 sets valid" in en and "✓ las 2 combinaciones son válidas" in es
    en, es = both("validate", "R5 R6 R7")
    assert "✓ 1 set valid" in en and "✓ 1 combinación válida" in es
    en, es = both("validate", "R5 J J")
    assert "(also group 15)" in en and "(también grupo 15)" in es
    en, es = both("validate", "R5 R6")
    assert "✗ 1 of 1 set invalid" in en and "✗ 1 de 1 combinación no válida" in es
    # the hint for loose tiles given as sets, in the report's language (English before)
    spanish = invoke("validate", "R1", "R2", "R3", "--lang", "es")
    assert "consejo: cada argumento es una combinación" in spanish.stderr and "hint" not in spanish.stderr
    assert "hint: each argument is one set" in invoke("validate", "R1", "R2", "R3").stderr
    # the tile set named in Spanish ("El juego classic": a docs audit, session 44)
    en, es = both("validate", "R5 J J", "K9 B9 J")
    assert "classic tile set" in en and "El juego de fichas clásico solo tiene 2" in " ".join(es.split())


def test_the_environment_variable_gives_spanish_reports() -> None:
    report = invoke("validate", "R5 R6 R7", env={"RUMMIKUB_LANG": "es"})
    assert "✓ 1 combinación válida" in report.stdout


def test_meld() -> None:
    en, es = both("meld", "K10 B10 O10", "R1 R2 R3", "--rack", "K10 B10 O10 R1 R2")
    assert "Meld value 36 (needs 30)  ✗ does not open" in lines(en)
    assert "Valor de la primera jugada 36 (se necesitan 30)  ✗ no abre" in lines(es)
    assert "Rack  K10 B10 O10 R1 R2" in lines(en) and "Atril  K10 B10 O10 R1 R2" in lines(es)
    assert "Violations" in en and "TILE_NOT_IN_RACK at /sets/1" in en
    assert "Infracciones" in es and "TILE_NOT_IN_RACK en /sets/1: La ficha R3" in es
    _, es = both("meld", "R11 R12 R13", "--rack", "R11 R12 R13 K1")
    assert "Valor de la primera jugada 36 (se necesitan 30)  ✓ abre" in lines(es)


def test_verify(tmp_path: Path) -> None:
    en, es = both("verify", write(tmp_path / "ok.json", TURN_OK))
    for word in ("Before", "After", "Rack", "Played", "Rack after", "Opened  yes → yes", "✓ legal play"):
        assert word in "\n".join(lines(en)), word
    for word in (
        "Antes",
        "Después",
        "Atril",
        "Fichas jugadas",
        "Atril después  K1",
        "Ha abierto  sí → sí",
        "✓ jugada legal",
    ):
        assert word in "\n".join(lines(es)), word
    assert "Before" not in es and "legal play" not in es
    en, es = both("verify", write(tmp_path / "bad.json", TURN_BAD))
    assert "✗ illegal turn: table restored, penalty draw 3" in en
    assert "✗ turno ilegal: mesa restaurada, roba 3 fichas de penalización" in es
    assert "Violations" in en and "INVALID_SET at /after/0" in en
    assert "Infracciones" in es and "INVALID_SET en /after/0: Esta combinación no es válida" in es
    assert "Opened  no → no" in lines(en) and "Ha abierto  no → no" in lines(es)
    went_out = {"before": [], "after": [["R1", "R2", "R3"]], "rack": ["R1", "R2", "R3"], "opened": True}
    en, es = both("verify", write(tmp_path / "out.json", went_out))
    assert "✓ legal play — the player went out" in en and "(empty: went out)" in en
    assert "✓ jugada legal — el jugador se quedó sin fichas" in es and "(vacío: se quedó sin fichas)" in es
    draw = {"before": [["R1", "R2", "R3"]], "after": [["R1", "R2", "R3"]], "rack": ["K5"], "opened": False}
    en, es = both("verify", write(tmp_path / "draw.json", draw))
    assert "✓ legal draw (nothing played)" in en and "✓ robo legal (no se jugó nada)" in es


def test_verify_kept_position_in_spanish() -> None:
    body = {"before": [], "after": [*KEPT_PENALTY["kept"], ["R4", "K7"]], "rack": ["R4"], "opened": False}
    result = {
        "valid": False,
        "action": "play",
        "played": [],
        "rack_after": ["R4", "K7"],
        "opened_after": True,
        "initial_meld": {"value": 36, "exact": False},
        "violations": [{"code": "TIME_LIMIT_EXCEEDED", "message": "El turno duró 130 s.", "at": "/elapsed_seconds"}],
        "penalty": KEPT_PENALTY,
    }
    console = Console(record=True, width=160)
    render.render_verify(console, body, result, "es")
    text = "\n".join(lines(console.export_text()))
    assert (
        "✗ turno ilegal: se quedan 2 combinaciones válidas, vuelven 2 fichas al atril, roba 3 fichas de penalización"
        in text
    )
    assert "Se quedan en la mesa" in text and "Vuelven al atril  R4 K7" in text
    assert "Primera jugada  al menos 36" in text
    one = {**KEPT_PENALTY, "kept": KEPT_PENALTY["kept"][:1], "returned": ["R4"]}
    assert render.penalty_text(one, "es") == (
        "se queda 1 combinación válida, vuelve 1 ficha al atril, roba 3 fichas de penalización"
    )
    assert render.penalty_text(one) == "1 valid set kept, 1 tile back to the rack, penalty draw 3"


def test_score_round_and_match(tmp_path: Path) -> None:
    en, es = both("score", write(tmp_path / "round.json", ROUND))
    assert "player  rack  rack value  score" in lines(en) and "A wins (a player went out)" in en
    assert "jugador  atril  valor del atril  puntos" in lines(es)
    assert "gana A (un jugador se quedó sin fichas)" in es and "(vacío)" in es
    en, es = both("score", write(tmp_path / "match.json", {"rounds": [ROUND, ROUND_2]}), "--rules", "komoni")
    assert "Round 1" in en and "Totals" in en and "place  player  total" in lines(en)
    assert "Ronda 1" in es and "Ronda 2" in es and "Totales" in es and "puesto  jugador  total" in lines(es)
    assert "D wins the match" in en and "D gana la partida" in es
    no_winner = {"players": [{"name": "A", "rack": ["R1"]}, {"name": "B", "rack": ["R1"]}]}
    en, es = both("score", write(tmp_path / "tie.json", no_winner))
    assert "(the pool ran out)" in en and "(se agotó el pozo)" in es


def test_score_batch(tmp_path: Path) -> None:
    rounds = tmp_path / "rounds.jsonl"
    rounds.write_text("\n".join(json.dumps(d) for d in (ROUND, ROUND_2, {"rounds": [ROUND, ROUND_2]})) + "\n{\n")
    en, es = both("score", str(rounds))
    assert "document  status  winner  scores" in lines(en)
    assert "documento  estado  ganador  puntos" in lines(es)
    assert "✓ correcto" in es and "✗ ilegible" in es and "✗ unreadable" in en
    for english, spanish in (("documents  4", "documentos  4"), ("  scored  3", "  puntuados  3")):
        assert english in lines(en) and spanish in lines(es)
    assert "  unreadable  1" in lines(en) and "  ilegibles  1" in lines(es)
    assert "totals" in lines(en) and "totales" in lines(es)


def test_batch_machine_outputs_do_not_change(tmp_path: Path) -> None:
    rounds = write(tmp_path / "a.json", ROUND), write(tmp_path / "b.json", ROUND_2)
    game = write(tmp_path / "g.json", generate_game(7, 3))
    for args in (
        ("score", *rounds, "-f", "csv"),
        ("score", *rounds, "-f", "jsonl"),
        ("score", rounds[0], "--json"),
        ("replay", game, game, "-f", "csv"),  # (a violation's message would follow --lang)
        ("replay", game, "-f", "jsonl"),
        ("rules", "--json"),
        ("rules", "komoni", "--json"),
        ("arrange", "R1 R2 R3 J", "--json"),
        ("suggest", "--table", "R3 R4 R5", "--rack", "R6 K1", "--opened", "--json"),
    ):
        en, es = both(*args)
        assert es == en, args
    csv_es = invoke("score", *rounds, "-f", "csv", "--lang", "es")
    assert csv_es.stdout.splitlines()[0] == ",".join(batch.CSV_COLUMNS)
    assert "documentos" in csv_es.stderr  # the summary, on stderr, is a report: in Spanish


def test_replay(tmp_path: Path) -> None:
    went_out = [{"player": "A", "table": [["R1", "R2", "R3"]]}]
    late = write(tmp_path / "late.json", {**SHORT_RECORD, "turns": [*went_out, {"player": "B", "draw": "K2"}]})
    en, es = both("replay", late)
    assert "play" in en and "round over" in en and "went out  opens with 6" in en
    assert "✗ turn 1 is illegal" in en and "ROUND_OVER at /turns/1" in en
    assert "juega" in es and "ronda acabada" in es and "se quedó sin fichas  abre con 6" in es
    assert "✗ el turno 1 es ilegal" in es and "ROUND_OVER en /turns/1: El turno 1 llega" in es
    assert "gana A (un jugador se quedó sin fichas)" in es
    claimed = write(tmp_path / "claimed.json", {**SHORT_RECORD, "turns": went_out, "end": "pool_exhausted"})
    en, es = both("replay", claimed)
    assert "The record" in en and "not a legal game (END_MISMATCH)" in en
    assert "El registro" in es and "✗ el registro no es una ronda legal (END_MISMATCH)" in es
    good = write(tmp_path / "good.json", generate_game(7, 3))
    en, es = both("replay", good)
    assert "✓ every turn is legal" in en and "✓ todos los turnos son legales" in es
    assert "roba" in es and " draw " not in es


def test_replay_unnamed_tiles_and_analysis(tmp_path: Path) -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3", "R4"]}, {"name": "B", "rack": ["K1", "K5", "O9", "O12"]}]
    turns = [
        {"player": "A", "table": [["R1", "R2", "R3"]]},
        {"player": "B", "table": [["R1", "R2", "R3"]]},
        {"player": "A", "table": [["R1", "R2", "R3", "R4"]]},
    ]
    doc = {"rules": {"deal": 4, "initial_meld_min": 6}, "players": players, "turns": turns}
    _, es = both("replay", write(tmp_path / "unnamed.json", doc))
    assert "Los puntos cuentan solo las fichas que nombra el registro; fichas sin nombre (robadas sin pozo): B 1" in es
    missed = {
        "rules": {"deal": 4, "initial_meld_min": 6},
        "players": [{"name": "A", "rack": ["R1", "R2", "R3", "K9"]}, {"name": "B", "rack": ["K1", "K5", "O9", "O12"]}],
        "turns": [{"player": "A", "table": []}, {"player": "B", "table": []}],
    }
    en, es = both("replay", write(tmp_path / "missed.json", missed), "--analyze")
    assert "! an opening was possible: R1 R2 R3" in en and "Analysis: 2 draws checked, 1 missed play," in en
    assert (
        "! podía abrir: R1 R2 R3" in es
        and "Análisis: 2 robos revisados, 1 jugada desaprovechada, 1 primera jugada tardía" in es
    )


@pytest.mark.parametrize("columns", ["60", "100"])  # 100: only the (longer) Spanish messages wrap
def test_replay_wraps_a_violation_under_its_text(columns: str) -> None:
    game = str(Path(__file__).resolve().parents[1] / "examples" / "games" / "illegal.json")
    for lang in ("en", "es"):
        report = invoke("replay", game, "--continue", "--lang", lang, env={"COLUMNS": columns}).stdout.splitlines()
        result = json.loads(invoke("replay", game, "--continue", "--lang", lang, "--json").stdout)
        messages = [v["message"] for turn in result["turns"] for v in turn["violations"]]
        # a violation's line: indented, its mark, its text (the column as rich lays the grid out)
        starts = [i for i, line in enumerate(report) if re.match(r" {6,}✗ ", line)]
        assert len(starts) == len(messages) > 1
        wrapped = 0
        for start, message in zip(starts, messages, strict=True):
            column = report[start].index("✗ ") + 2
            end = start + 1
            while end < len(report) and report[end].startswith(" " * column) and report[end][column] != " ":
                end += 1  # continuation lines: under the text, not under the mark nor at column 0
            wrapped += end - start - 1
            text = " ".join(line.strip() for line in report[start:end])
            assert text.endswith(message), (lang, report[start:end])
            assert report[end] == "" or report[end].lstrip()[:1] in ("✓", "✗"), (lang, report[start : end + 1])
        if columns == "60" or lang == "es":
            assert wrapped > 0, lang


def test_replay_batch(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    write(folder / "good.json", generate_game(7, 3))
    went_out = [{"player": "A", "table": [["R1", "R2", "R3"]]}]
    write(folder / "late.json", {**SHORT_RECORD, "turns": [*went_out, {"player": "B", "draw": "K2"}]})
    en, es = both("replay", str(folder))
    assert "document  status  winner  scores  note" in lines(en)
    assert "documento  estado  ganador  puntos  nota" in lines(es)
    assert "✗ invalid" in en and "turn 1: ROUND_OVER" in en
    assert "✗ no válido" in es and "turno 1: ROUND_OVER" in es
    assert "games  2" in lines(en) and "  valid  1" in lines(en) and "  invalid  1" in lines(en)
    assert "registros  2" in lines(es) and "  válidos  1" in lines(es) and "  no válidos  1" in lines(es)


def test_show(tmp_path: Path) -> None:
    en, es = both("show", write(tmp_path / "position.json", POSITION))
    assert "Table" in en and "Players" in en and "Pool  40 tiles" in lines(en) and "✓ the table is valid" in en
    assert "player  opened  tiles  rack" in lines(en)
    assert "Mesa" in es and "Jugadores" in es and "Pozo  40 fichas" in lines(es) and "✓ la mesa es válida" in es
    assert "jugador  ha abierto  fichas  atril" in lines(es) and "Ann  sí  3  R6 J O7" in lines(es)
    bad = {**POSITION, "table": [["K1", "K1", "B1"]], "pool": ["R1", "R2"]}
    en, es = both("show", write(tmp_path / "bad.json", bad))
    assert "✗ the table has 1 invalid set" in en and "✗ la mesa tiene 1 combinación no válida" in es
    assert "Pozo  2 fichas  R1 R2" in lines(es)
    _, es = both("show", write(tmp_path / "turn.json", TURN_BAD))
    assert "Antes" in es and "Después" in es and "✗ turno ilegal" in es


def test_rules() -> None:
    en, es = both("rules")
    assert "preset  description" in lines(en) and PRESET_DESCRIPTIONS["sabra"][:40] in en
    assert "reglas  descripción" in lines(es) and PRESET_DESCRIPTIONS_ES["sabra"][:40] in es
    assert (
        "rummikub rules PRESET" in en
        and "Para ver todos los ajustes de un conjunto de reglas: rummikub rules NOMBRE" in es
    )
    assert PRESET_DESCRIPTIONS["sabra"][:40] not in es
    en, es = both("rules", "komoni")
    assert "setting  value" in lines(en) and "ajuste  valor" in lines(es)
    assert PRESET_DESCRIPTIONS_ES["komoni"][:40] in es
    assert 'scoring  "penalty_only"' in lines(es)  # setting names and values are the API's


def test_rules_description_from_elsewhere_is_shown_as_given() -> None:
    """A service whose preset (or description) this CLI does not know: its English words."""
    console = Console(record=True, width=200)
    listing = {"presets": [{"name": "house", "description": "Our house rules."}]}
    render.render_rules_list(console, listing, "es")
    assert "Our house rules." in console.export_text()
    console = Console(record=True, width=200)
    render.render_rules_one(console, {"name": "sabra", "description": "Newer words.", "settings": {}}, "es")
    assert "Newer words." in console.export_text()


def test_arrange() -> None:
    en, es = both("arrange", "R5 R6 R7 K9 B9 O9 J")
    assert "Tiles  R5 R6 R7 K9 B9 O9 J" in lines(en) and "Arrangement" in en
    assert "✓ every tile fits in a valid set" in en
    assert "Fichas  R5 R6 R7 K9 B9 O9 J" in lines(es) and "Colocación" in es
    assert "✓ todas las fichas caben en combinaciones válidas" in es
    en, es = both("arrange", "R1 R2 K5")
    assert "✗ these tiles cannot all be laid out in valid sets" in en
    assert "✗ estas fichas no se pueden colocar todas en combinaciones válidas" in es


def test_suggest() -> None:
    args = ("suggest", "--table", "R3 R4 R5", "--table", "K9 B9 O9", "--rack", "R6 R7 K1", "--opened")
    en, es = both(*args)
    assert "Rack  R6 R7 K1" in lines(en) and "Play  R6 R7  (worth 13)" in lines(en)
    assert "Table after the move" in en and "Steps" in en
    assert "Mesa" in es and "Atril  R6 R7 K1" in lines(es) and "Jugada  R6 R7  (vale 13)" in lines(es)
    assert "Mesa después de la jugada" in es and "Pasos" in es and "1. añade R6 R7 a R3 R4 R5" in es
    assert "Table" not in es and "Rack" not in es and "Play" not in es


def test_suggest_not_proven_optimal() -> None:
    result = {"played": ["R6"], "value": 6, "after": [["R3", "R4", "R5", "R6"]], "optimal_proven": False}
    console = Console(record=True, width=200)
    render.render_suggest(console, {"table": [["R3", "R4", "R5"]], "rack": ["R6"]}, result, "es")
    assert "(no está demostrado que sea la mejor: se agotó el tiempo de búsqueda)" in console.export_text()


def test_progress_bar_label(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    terminal = Console(file=io.StringIO(), force_terminal=True)
    labels: dict[str, Any] = {}
    for lang in ("en", "es"):
        progress = batch.progress_bar(terminal, 10, "game", lang=lang)
        assert progress is not None
        labels[lang] = getattr(progress.columns[0], "text_format", None)
    assert labels == {"en": "games", "es": "registros"}
