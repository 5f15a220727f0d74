"""Session 60's language review (en + es): the wordings it asked for, item by item (A1-A5,
B1-B5, C1-C11, D1-D6 of its report). Codes, pointers and JSON stay as they were."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.violations import Violation, render
from service.limits import DEFAULT_LIMITS
from service.operations import RequestError, get_rules, run_operation

ROOT = Path(__file__).resolve().parents[1]


def _violations(operation: str, body: Any, lang: str) -> list[tuple[str, str, str]]:
    return [(v["code"], v["at"], v["message"]) for v in run_operation(operation, body, lang)["violations"]]


def _problem(operation: str, body: Any, lang: str) -> dict[str, Any]:
    with pytest.raises(RequestError) as caught:
        run_operation(operation, body, lang)
    return caught.value.to_problem(lang)


# --- A1 / D2: the tile supply counts the request's copies ------------------------------------


def test_the_supply_message_says_the_request_holds_the_copies() -> None:
    body = {
        "before": [["R3", "R4", "R5"], ["R3", "B3", "K3"]],
        "after": [["R3", "R4", "R5"], ["R3", "B3", "K3"]],
        "rack": ["R3", "K1"],
        "opened": True,
    }
    assert _violations("turns/verify", body, "en") == [
        (
            "TILE_SUPPLY_EXCEEDED",
            "/rack",
            "There are only 2 copies of R3 in the classic tile set; the request holds 3.",
        )
    ]
    assert _violations("turns/verify", body, "es") == [
        ("TILE_SUPPLY_EXCEEDED", "/rack", "El juego de fichas clásico solo tiene 2 fichas R3; la petición tiene 3.")
    ]


def test_the_xp_tile_set_is_named_xp_and_jokers_as_jokers() -> None:
    params = {"tile": "J", "limit": 4, "count": 5, "tiles": "xp", "case": "jokers"}
    assert render("TILE_SUPPLY_EXCEEDED", params) == "There are only 4 jokers in the XP tile set; the request holds 5."
    assert render("TILE_SUPPLY_EXCEEDED", params, "es") == (
        "El juego de fichas XP solo tiene 4 comodines; la petición tiene 5."
    )
    tile = {"tile": "R1", "limit": 3, "count": 4, "tiles": "xp"}
    assert (
        render("TILE_SUPPLY_EXCEEDED", tile) == "There are only 3 copies of R1 in the XP tile set; the request holds 4."
    )


# --- A2: a group joker needing both colours, one of them placed ------------------------------


def test_a_joker_needing_both_colours_names_both_and_the_missing_one() -> None:
    body = {
        "before": [["R3", "B3", "J"]],
        "after": [["R3", "B3", "K3"], ["J", "K10", "K11"]],
        "rack": ["K3", "K10", "K11"],
        "opened": True,
        "rules": {"preset": "sabra", "group_joker_needs_both_colours": True},
    }
    assert _violations("turns/verify", body, "en") == [
        (
            "JOKER_NOT_REPLACED",
            "/after/0",
            "A joker freed from a group of three needs both missing tiles (K3 and O3) in its place; O3 did not take it.",
        )
    ]
    assert _violations("turns/verify", body, "es") == [
        (
            "JOKER_NOT_REPLACED",
            "/after/0",
            "Para liberar un comodín de un grupo de tres hacen falta las dos fichas que faltan (K3 y O3);"
            " O3 no ocupó su lugar.",
        )
    ]


# --- A3 / C1 / D4: the Spanish problem detail keeps the English one's facts -------------------


def test_the_spanish_422_names_the_first_pointer_and_the_count() -> None:
    one = _problem("sets/validate", {"sets": "x"}, "es")
    assert one["detail"] == "No se puede leer la petición: hay un error en /sets; consulta 'errors' (en inglés)."
    assert one["errors"] == [{"pointer": "/sets", "detail": "must be an array of sets"}]  # (English, as documented)
    three = _problem("sets/validate", {"sets": ["x", 3, "y"]}, "es")["detail"]
    assert three == (
        "No se puede leer la petición: el primer error está en /sets/0 (3 errores en total); consulta 'errors' (en inglés)."
    )
    many = _problem("sets/validate", {"sets": [["X1"]] * 60}, "es")["detail"]
    assert "en /sets/0/0 (al menos 50 errores; se listan 50)" in many
    assert _problem("sets/validate", [], "es")["detail"].startswith(
        "No se puede leer la petición: hay un error en el cuerpo;"
    )


def test_the_spanish_413_keeps_the_numbers_and_the_setting() -> None:
    body = {"sets": [["R1", "R2", "R3"]] * 2000}
    en, es = _problem("sets/validate", body, "en"), _problem("sets/validate", body, "es")
    assert en["detail"].endswith(": this table has 2000 sets; the limit is 100 (RUMMIKUB_MAX_SETS_PER_TABLE).")
    assert es["detail"] == (
        "La petición supera los límites del servicio (RUMMIKUB_MAX_SETS_PER_TABLE): esta mesa tiene 2000 combinaciones;"
        " el límite es 100 (RUMMIKUB_MAX_SETS_PER_TABLE)."
    )
    assert es["errors"] == en["errors"]  # (English in both)
    long_set = _problem("sets/validate", {"sets": [["R1"] * 41]}, "es")["detail"]
    assert long_set.endswith(": esta combinación tiene 41 fichas; el límite es 40 (RUMMIKUB_MAX_TILES_PER_SET).")
    small = dataclasses.replace(DEFAULT_LIMITS, max_tiles=5, max_players=2)
    with pytest.raises(RequestError) as caught:
        run_operation("sets/validate", {"sets": [["R1", "R2", "R3"]] * 2}, "es", small)
    assert caught.value.to_problem("es")["detail"].endswith(
        ": la petición tiene más de 5 fichas; el límite es 5 (RUMMIKUB_MAX_TILES)."
    )
    players = {"players": [{"name": n, "rack": []} for n in "ABC"]}
    with pytest.raises(RequestError) as caught:
        run_operation("rounds/score", players, "es", small)
    assert caught.value.to_problem("es")["detail"].endswith(
        ": esta lista tiene 3 elementos; el límite es 2 (RUMMIKUB_MAX_PLAYERS)."
    )


def test_the_spanish_400_keeps_the_line_and_column() -> None:
    from service.app import create_app

    client = create_app({"TESTING": True}).test_client()
    headers = {"Accept-Language": "es", "Content-Type": "application/json"}
    problem = client.post("/v1/sets/validate", data=b'{"sets": [1,]}', headers=headers).get_json()
    assert problem["detail"] == "El cuerpo de la petición no es JSON válido (línea 1, columna 13)."
    english = client.post("/v1/sets/validate", data=b'{"sets": [1,]}', headers={**headers, "Accept-Language": "en"})
    assert "line 1 column 13" in english.get_json()["detail"]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_503_counts_in_words_and_in_spanish(lang: str) -> None:
    from service.server import BudgetGate, RSGIAdapter
    from tests.test_fair_share import THREADS, Proto, Scope

    gate = BudgetGate(slots=2, queue=2, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running, gate.running_cost = 1, 1.0
    gate.waiters.update(dict.fromkeys([asyncio.Future(loop=asyncio.new_event_loop())], 1.0))
    adapter = RSGIAdapter(lambda e, s: [], 1000, 1.0, gate=gate)
    proto = Proto(b"")
    environ = {"PATH_INFO": "/v1/moves/suggest", "HTTP_ACCEPT_LANGUAGE": lang}
    adapter._busy(Scope("/v1/moves/suggest", b""), proto, environ, "/v1/moves/suggest", 0.0)
    problem = json.loads(proto.sent[0][2])
    english = (
        "1 budgeted request running and 1 waiting in this worker (RUMMIKUB_BUDGET_SLOTS 2, RUMMIKUB_BUDGET_QUEUE 2)"
    )
    assert problem["errors"][0]["detail"] == english
    if lang == "en":
        assert english in problem["detail"] and "(s)" not in problem["detail"]
    else:
        assert (
            "1 en curso y 1 en espera en este proceso (RUMMIKUB_BUDGET_SLOTS 2, RUMMIKUB_BUDGET_QUEUE 2)"
            in (problem["detail"])
        )


def test_the_adapters_spanish_points_at_errors_with_an_imperative() -> None:
    from service.server import _BODY_ERRORS_ES, _BodyError

    assert _BODY_ERRORS_ES[400] == "el cuerpo está mal formado o incompleto (consulta 'errors')"
    assert _BodyError(499, "x").detail_es == "consulta 'errors'"


# --- A4 / D5 / B3: the 404s -------------------------------------------------------------------


def test_an_unknown_operation_is_told_in_spanish_too() -> None:
    en, es = _problem("nope/nope", {}, "en"), _problem("nope/nope", {}, "es")
    assert en["detail"].startswith("Unknown operation 'nope/nope'; operations: sets/validate,")
    assert es["detail"].startswith("Operación desconocida 'nope/nope'; operaciones: sets/validate,")
    assert en["detail"].endswith("moves/suggest.") and es["detail"].endswith("moves/suggest.")


def test_an_unknown_preset_is_a_sentence() -> None:
    with pytest.raises(RequestError) as caught:
        get_rules("nope")
    en, es = caught.value.to_problem("en")["detail"], caught.value.to_problem("es")["detail"]
    assert en.startswith("Unknown rules preset 'nope'; presets: sabra, ") and en.endswith("online-sabra.")
    assert es.startswith("Conjunto de reglas 'nope' desconocido; disponibles: sabra, ") and es.endswith("online-sabra.")


# --- A5 / D6: the initial meld's threshold of 1 and of 0 --------------------------------------


def test_a_threshold_of_one_point_agrees() -> None:
    nothing = {"sets": [], "rules": {"preset": "sabra", "initial_meld_min": 1}}
    assert _violations("melds/check", nothing, "en")[0][2].endswith("at least one set, worth 1 point or more.")
    assert _violations("melds/check", nothing, "es")[0][2].endswith("al menos una combinación y sumar 1 punto o más.")
    invalid = {"sets": [["R3", "R4", "R9"]], "rules": {"preset": "sabra", "initial_meld_min": 1}}
    assert (
        _violations("melds/check", invalid, "en")[-1][2] == "The initial meld is worth 0 points; at least 1 is needed."
    )
    assert (
        _violations("melds/check", invalid, "es")[-1][2] == "La primera jugada suma 0 puntos; se necesita al menos 1."
    )
    assert render("INITIAL_MELD_TOO_LOW", {"value": 1, "threshold": 30}, "es") == (
        "La primera jugada suma 1 punto; se necesitan al menos 30."
    )


def test_a_threshold_of_zero_asks_for_a_valid_set_not_zero_points() -> None:
    nothing = {"sets": [], "rules": {"preset": "sabra", "initial_meld_min": 0}}
    assert _violations("melds/check", nothing, "en") == [
        (
            "INITIAL_MELD_TOO_LOW",
            "/sets",
            "Nothing is laid, so nothing opens: the initial meld needs at least one valid set.",
        )
    ]
    assert _violations("melds/check", nothing, "es")[0][2] == (
        "No se coloca nada, así que no se abre: la primera jugada necesita al menos una combinación válida."
    )
    invalid = {"sets": [["R3", "R4", "R9"]], "rules": {"preset": "sabra", "initial_meld_min": 0}}
    assert _violations("melds/check", invalid, "en")[-1][2] == (
        "No valid set is laid from the rack, so nothing opens: the initial meld needs at least one valid set."
    )
    assert "0 puntos" not in _violations("melds/check", invalid, "es")[-1][2]


# --- B1 / C5, B2, B3, B5, C8, C10: the CLI's and pictures' Spanish terms ------------------------


def test_one_spanish_term_for_the_initial_meld() -> None:
    from cli.render import WORDS
    from engine.rules import PRESET_DESCRIPTIONS_ES

    analysis = WORDS["es"]["analysis"].format(draws=_count(2), missed=_count(1), late=_count(2))
    assert analysis == "Análisis: 2 robos revisados, 1 jugada desaprovechada, 2 primeras jugadas tardías"
    spanish = " ".join([*WORDS["es"].values(), *PRESET_DESCRIPTIONS_ES.values()])
    assert "apertura" not in spanish.lower()
    assert PRESET_DESCRIPTIONS_ES["opening-50"].lower().count("primera jugada") == 1


def test_partida_is_the_match_and_records_are_rounds() -> None:
    from cli import batch, pictures
    from cli.render import WORDS

    assert WORDS["es"]["wins_match"] == "{who} gana la partida"
    assert WORDS["es"]["not_legal_game"] == "el registro no es una ronda legal ({codes})"
    words = batch._WORDS["es"]
    assert (words["games"], words["valid"], words["invalid_game"]) == ("registros", "  válidos", "  no válidos")
    page = pictures._WORDS["es"]
    assert (page["title"], page["problems"], page["none"]) == (
        "Informe de rondas jugadas",
        "Rondas con problemas",
        "Todas las rondas son legales.",
    )
    assert page["missed"] == "Jugadas desaprovechadas"
    assert "partida" not in " ".join([*page.values(), *words.values()])
    assert render("UNKNOWN_PLAYER", {"turn": 3, "player": "Z"}, "es") == (
        "El turno 3 nombra a un jugador que no está en la ronda: Z."
    )


def test_the_preset_hint_the_svg_mark_and_the_ok_status() -> None:
    from cli import batch
    from cli.render import WORDS
    from engine import svg

    assert WORDS["es"]["show_preset"] == "Para ver todos los ajustes de un conjunto de reglas: rummikub rules NOMBRE"
    assert svg._WORDS["es"]["played"] == "ficha jugada en este turno"
    assert svg._WORDS["es"]["legend"].startswith("borde verde: ficha jugada en este turno ·")
    assert batch._WORDS["es"]["status_ok"] == "✓ correcto"
    assert batch._WORDS["en"]["status_ok"] == "✓ ok"


# --- C2, C3, C11: Spanish joker and end messages ----------------------------------------------


def test_spanish_joker_messages() -> None:
    assert render("JOKER_REPLACED_FROM_TABLE", {}, "es") == (
        "La ficha que sustituyó a un comodín vino de la mesa; con estas reglas debe venir del atril."
    )
    assert render("JOKER_NOT_REPLACED", {"tile": "R5"}, "es") == (
        "Un comodín no se quedó en una combinación válida representando la misma ficha (R5), y esa ficha no ocupó su lugar."
    )
    assert render("JOKER_NOT_REPLACED", {"tile": "K3 and O3", "case": "both"}, "es").startswith(
        "Un comodín no se quedó en un grupo válido, y las dos fichas que faltaban (K3 y O3)"
    )


def test_every_player_still_having_a_last_turn_says_so() -> None:
    tiles = [f"{c}{n}" for c in "KBOR" for n in range(1, 14)] * 2 + ["J", "J"]
    pool = tiles[28:]
    record = {
        "rules": "online-sabra",  # (one_more_turn)
        "players": [{"name": "A", "rack": tiles[:14]}, {"name": "B", "rack": tiles[14:28]}],
        "pool": pool,
        "turns": [{"player": "AB"[i % 2], "draw": t} for i, t in enumerate(pool)],
        "end": "pool_exhausted",
    }
    everyone = {"case": "every_turn", "count": 2, "players": 2}
    assert render("END_MISMATCH", everyone, "en").endswith("but every player still has their last turn to play.")
    assert render("END_MISMATCH", everyone, "es").endswith("pero a todos los jugadores aún les queda su último turno.")
    found = [v for v in run_operation("games/replay", record, "en")["violations"] if v["code"] == "END_MISMATCH"]
    assert found and found[0]["message"].endswith("every player still has their last turn to play."), found
    one = {"case": "one_more_turn", "count": 1, "players": 2}
    assert "1 of the 2 players still has their last turn" in render("END_MISMATCH", one, "en")


# --- D1, D3: English capitals after a colon; the replay table's actions ------------------------


def test_english_continues_lower_case_after_a_colon() -> None:
    v = Violation("INVALID_SET", "/after/0", {"count": 2, "set_id": "g1"}, set_code="SET_TOO_SHORT")
    assert v.message("en") == 'Set "g1": this set is not valid: a set needs at least 3 tiles; this one has 2.'
    before = Violation("BEFORE_TABLE_INVALID", "/before/0", {}, set_code="NOT_A_SET")
    assert before.message().startswith("The table before the turn holds an invalid set: these tiles are neither")
    kind = Violation("KIND_MISMATCH", "/sets/0", {"kind": "run", "other": "group", "set_id": "g1"})
    assert kind.message() == 'Set "g1": this set was declared a run, but it is only valid as a group.'


def test_the_readable_replay_table_spells_its_actions() -> None:
    from cli.render import WORDS

    assert WORDS["en"]["action_penalty_draw"] == "penalty draw"
    assert WORDS["en"]["action_round_over"] == "round over"


# --- docs gaps 1 and 2 ------------------------------------------------------------------------


def test_the_docs_say_what_follows_accept_language() -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    said = " ".join(spec["components"]["parameters"]["AcceptLanguage"]["description"].split())
    assert "problem `detail`s" in said and "`GET /v1/rules`" in said
    assert "description" in spec["components"]["schemas"]["Problem"]["properties"]["detail"]
    service = " ".join((ROOT / "docs/service.md").read_text(encoding="utf-8").split())
    assert "`GET /v1/rules` and `/v1/rules/{preset}` answer in English whatever the header says" in service
    assert "a 422's Spanish `detail` is a summary" in service


def _count(n: int) -> Any:
    from engine.violations import Count

    return Count(n)


def test_a_locked_sets_broken_lock_names_the_tile_it_waited_for() -> None:
    """Two jokers of one locked set freed without their exact tiles were two JOKER_SET_BROKEN
    alike (same pointer, same words); each now names its tile (an independent referee, session
    60), and under both colours the two tiles and the one missing. Codes and pointers unchanged."""
    body = {
        "before": [["J", "K6", "K7", "J"]],
        "after": [["K6", "O6", "B6"], ["K7", "O7", "B7"], ["J", "J", "O5"]],
        "rack": ["O6", "B6", "O7", "B7", "O5"],
        "opened": True,
        "rules": "strict-joker",
    }
    broken = [(at, m) for code, at, m in _violations("turns/verify", body, "en") if code == "JOKER_SET_BROKEN"]
    assert broken == [
        (
            "/after/0",
            "Under locked-joker rules a joker leaves its set only for its exact tile (K5), which did not take its place.",
        ),
        (
            "/after/0",
            "Under locked-joker rules a joker leaves its set only for its exact tile (K8), which did not take its place.",
        ),
    ]
    es = [m for code, _, m in _violations("turns/verify", body, "es") if code == "JOKER_SET_BROKEN"]
    assert (
        es[0]
        == "Con comodines bloqueados un comodín solo sale de su combinación por su ficha exacta (K5), que no ocupó su lugar."
    )
    # (the joker freed into a run: in ``J R7 B7`` it may stay as O7 beside the set's R7, the
    # set split, which reads better since session 61, referee6-F2, with the plain lock's words)
    both = {
        "before": [["K7", "J", "R7"]],
        "after": [["K7", "B7", "R7"], ["J", "K1", "K2"]],
        "rack": ["B7", "K1", "K2"],
        "opened": True,
        "rules": {"preset": "strict-joker", "group_joker_needs_both_colours": True},
    }
    assert [m for code, _, m in _violations("turns/verify", both, "es") if code == "JOKER_SET_BROKEN"] == [
        "Con comodines bloqueados un comodín solo sale de un grupo de tres por las dos fichas que faltan (B7 y O7); "
        "O7 no ocupó su lugar."
    ]
