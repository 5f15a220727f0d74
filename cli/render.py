"""Readable reports with rich: tiles in their colours, invalid sets highlighted with the reason.

Every function takes the request body and the operation's JSON response (the same JSON the
HTTP API returns), so a report looks the same whichever back end answered. A report's words
(headings, verdicts, columns) are in the language of ``--lang`` (``lang``: ``WORDS``, English
or Spanish); the codes, tiles, settings and the answer's own messages are shown as answered.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from cli.steps import move_steps
from engine.rules import PRESET_DESCRIPTIONS, PRESET_DESCRIPTIONS_ES, RulesError, resolve_rules
from engine.violations import Count

TILE_STYLES: dict[str, str] = {
    "K": "bold bright_black",
    "B": "bold dodger_blue2",
    "O": "bold dark_orange",
    "R": "bold red",
    "J": "bold magenta",
}
OK = Text("✓", style="bold green")
BAD = Text("✗", style="bold red")


_STYLE = re.compile(r"\x1b\[[0-9;]*m")


def _without_end_space(line: str) -> str:
    """``line`` without the spaces at its end; style codes among them stay, in their order."""
    codes: list[str] = []
    while True:
        line = line.rstrip(" \t")
        start = line.rfind("\x1b[")
        if start < 0 or not _STYLE.fullmatch(line, start):
            return line + "".join(reversed(codes))
        codes.append(line[start:])
        line = line[:start]


MIN_WIDTH = 20
"""The narrowest report: ``COLUMNS`` below it is taken as this (rich prints nothing at 0
columns, and drops table cells below about 10; a CLI audit, session 55)."""


class ReportConsole(Console):
    """The console text reports go to: as rich renders them, but no line ends with a space.

    Tables pad every cell to its column's width and wrapped text to the width of its block,
    so a report's lines would end in runs of spaces (noise in a diff, a pasted transcript or a
    test). Only the spaces at the end of a line go; a style code among them (colour on) stays.
    What is printed is captured (rich's ``capture``), trimmed, then written. ``COLUMNS`` under
    ``MIN_WIDTH`` counts as ``MIN_WIDTH``.
    """

    def __init__(self, **kwargs: Any) -> None:
        columns = os.environ.get("COLUMNS", "").strip()
        if "width" not in kwargs and columns.isdigit() and int(columns) < MIN_WIDTH:
            kwargs["width"] = MIN_WIDTH
        super().__init__(**kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        with self.capture() as captured:
            super().print(*objects, **kwargs)
        text = captured.get()
        lines = text.split("\n")
        # (the last piece is not a whole line when the print ends without one: kept as it is)
        self.file.write("\n".join([*map(_without_end_space, lines[:-1]), lines[-1]]))
        self.file.flush()


# --- words ---------------------------------------------------------------------------------------

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "at": " at {at}",
        "hint_one_set": 'hint: each argument is one set; to check one set of these tiles, quote it: rummikub validate "{tiles}"',
        "violations": "Violations",
        "run": "run",
        "group": "group",
        "also": "  (also {others})",
        "col_tiles": "tiles",
        "col_verdict": "verdict",
        "empty": "(empty)",
        "empty_m": "(empty)",
        "no_sets": "(no sets)",
        "empty_table": "(empty table)",
        "all_valid": "all {n} sets valid",
        "one_valid": "1 set valid",
        "n_valid": "{n} sets valid",
        "n_invalid": "{bad} of {n} sets invalid",
        "one_invalid": "{bad} of 1 set invalid",
        "rack": "Rack",
        "meld_value": "Meld value {value} (needs {threshold})",
        "opens": "opens",
        "not_opens": "does not open",
        "before": "Before",
        "after": "After",
        "played": "Played",
        "rack_after": "Rack after",
        "went_out_empty": "(empty: went out)",
        "opened": "Opened",
        "yes": "yes",
        "no": "no",
        "initial_meld": "Initial meld",
        "jokers_freed": "Jokers freed",
        "jokers_lenient": "Jokers",
        "jokers_lenient_text": "judged set by set (the joint checks ran past their work limit): the verdict may be lenient",
        "legal_play": "legal play",
        "legal_draw": "legal draw (nothing played)",
        "player_went_out": " — the player went out",
        "illegal_turn": "illegal turn: {penalty}",
        "kept_on_table": "Kept on the table",
        "returned_to_rack": "Returned to the rack",
        "restored": "table restored, penalty draw {draw}",
        "penalty_tiles": "{n}",
        "kept": "{sets}, {tiles} back to the rack, penalty draw {draw}",
        "kept_sets_one": "1 valid set kept",
        "kept_sets": "{n} valid sets kept",
        "back_tiles_one": "1 tile",
        "back_tiles": "{n} tiles",
        "at_least": "at least {value}",
        "col_player": "player",
        "col_rack": "rack",
        "col_rack_value": "rack value",
        "col_score": "score",
        "ended_out": "a player went out",
        "ended_pool": "the pool ran out",
        "wins": "{who} wins",
        "share_win": "{who} share the win",
        "and_last": " and ",
        "no_winner": "no winner",
        "caption": "{who} ({ended})",
        "round": "Round {n}",
        "col_place": "place",
        "col_total": "total",
        "totals": "Totals",
        "wins_match": "{who} wins the match",
        "share_match": "{who} share the match win",
        "action_play": "play",
        "action_draw": "draw",
        "action_pass": "pass",
        "action_penalty_draw": "penalty draw",
        "action_round_over": "round over",
        "turn_went_out": "  went out",
        "opens_with": "  opens with {value}",
        "returned": " (returned: ",
        "opening_possible": "an opening was possible: ",
        "play_possible": "a play was possible: ",
        "analysis": "Analysis: {draws:draw/draws} checked, {missed:missed play/missed plays}, "
        "{late:late opening/late openings}",
        "analysis_undecided": "; {n} undecided (no play found, none proven impossible)",
        "analysis_not_searched": "; {n} not searched (the analysis budget ran out)",
        "the_record": "The record",
        "unnamed": "Scores count only the tiles the record names; unnamed tiles (drawn without a pool): {held}",
        "all_legal": "every turn is legal",
        "turn_illegal": "turn {n} is illegal",
        "not_legal_game": "the game record is not a legal game ({codes})",
        "table": "Table",
        "col_opened": "opened",
        "players": "Players",
        "pool_tiles": "Pool  {n:tile/tiles}",
        "table_valid": "the table is valid",
        "table_invalid": "the table has {n:invalid set/invalid sets}",
        "col_preset": "preset",
        "col_description": "description",
        "show_preset": "Show one preset's settings with: rummikub rules PRESET",
        "col_setting": "setting",
        "col_value": "value",
        "tiles": "Tiles",
        "arrangement": "Arrangement",
        "arrangeable": "every tile fits in a valid set",
        "arrange_unknown": "? the time budget ran out before the answer was known",
        "not_arrangeable": "these tiles cannot all be laid out in valid sets",
        "rack_8": "Rack    ",
        "play_8": "Play    ",
        "worth": "  (worth {value})",
        "table_after": "Table after the move",
        "steps": "Steps",
        "not_optimal": "(not proven optimal: the search budget ran out)",
        "not_proven": "(not proven optimal: the search does not try every move)",
        "no_play": "No legal play: draw a tile.",
        "no_play_found": "No play found within the time budget (one may exist): draw a tile.",
        "no_play_unproven": "No play found, but one may exist (the search does not try every move): draw a tile.",
        "no_opening": "No legal play: draw a tile (no opening reaches the {minimum} points it needs).",
        "busy_retrying": "the rules service is busy ({what} answered {status}): retrying in {wait} s{asked} "
        "(try {next} of at most {most})",
        "busy_as_asked": " as it asks",
    },
    "es": {
        "at": " en {at}",
        "hint_one_set": (
            "consejo: cada argumento es una combinación; para comprobar una sola combinación con estas fichas, "
            'escríbelas entre comillas: rummikub validate "{tiles}"'
        ),
        "violations": "Infracciones",
        "run": "escalera",
        "group": "grupo",
        "also": "  (también {others})",
        "col_tiles": "fichas",
        "col_verdict": "veredicto",
        "empty": "(vacía)",
        "empty_m": "(vacío)",
        "no_sets": "(sin combinaciones)",
        "empty_table": "(mesa vacía)",
        "all_valid": "las {n} combinaciones son válidas",
        "one_valid": "1 combinación válida",
        "n_valid": "{n} combinaciones válidas",
        "n_invalid": "{bad} de {n} combinaciones no válidas",
        "one_invalid": "{bad} de 1 combinación no válida",
        "rack": "Atril",
        "meld_value": "Valor de la primera jugada {value} (se necesitan {threshold})",
        "opens": "abre",
        "not_opens": "no abre",
        "before": "Antes",
        "after": "Después",
        "played": "Fichas jugadas",
        "rack_after": "Atril después",
        "went_out_empty": "(vacío: se quedó sin fichas)",
        "opened": "Ha abierto",
        "yes": "sí",
        "no": "no",
        "initial_meld": "Primera jugada",
        "jokers_freed": "Comodines liberados",
        "jokers_lenient": "Comodines",
        "jokers_lenient_text": "juzgados combinación a combinación (los controles conjuntos superaron su límite de trabajo): el veredicto puede ser indulgente",
        "legal_play": "jugada legal",
        "legal_draw": "robo legal (no se jugó nada)",
        "player_went_out": " — el jugador se quedó sin fichas",
        "illegal_turn": "turno ilegal: {penalty}",
        "kept_on_table": "Se quedan en la mesa",
        "returned_to_rack": "Vuelven al atril",
        "restored": "mesa restaurada, roba {draw} de penalización",
        "penalty_tiles": "{n:ficha/fichas}",
        "kept": "{sets}, {tiles} al atril, roba {draw} de penalización",
        "kept_sets_one": "se queda 1 combinación válida",
        "kept_sets": "se quedan {n} combinaciones válidas",
        "back_tiles_one": "vuelve 1 ficha",
        "back_tiles": "vuelven {n} fichas",
        "at_least": "al menos {value}",
        "col_player": "jugador",
        "col_rack": "atril",
        "col_rack_value": "valor del atril",
        "col_score": "puntos",
        "ended_out": "un jugador se quedó sin fichas",
        "ended_pool": "se agotó el pozo",
        "wins": "gana {who}",
        "share_win": "{who} comparten la victoria",
        "and_last": " y ",
        "no_winner": "sin ganador",
        "caption": "{who} ({ended})",
        "round": "Ronda {n}",
        "col_place": "puesto",
        "col_total": "total",
        "totals": "Totales",
        "wins_match": "{who} gana la partida",
        "share_match": "{who} comparten la victoria de la partida",
        "action_play": "juega",
        "action_draw": "roba",
        "action_pass": "pasa",
        "action_penalty_draw": "penalización",
        "action_round_over": "ronda acabada",
        "turn_went_out": "  se quedó sin fichas",
        "opens_with": "  abre con {value}",
        "returned": " (devueltas: ",
        "opening_possible": "podía abrir: ",
        "play_possible": "podía jugar: ",
        "analysis": "Análisis: {draws:robo revisado/robos revisados}, "
        "{missed:jugada desaprovechada/jugadas desaprovechadas}, {late:primera jugada tardía/primeras jugadas tardías}",
        "analysis_undecided": "; {n} sin decidir (no se halló jugada ni se probó que no la hubiera)",
        "analysis_not_searched": "; {n} sin revisar (se agotó el tiempo del análisis)",
        "the_record": "El registro",
        "unnamed": "Los puntos cuentan solo las fichas que nombra el registro; fichas sin nombre "
        "(robadas sin pozo): {held}",
        "all_legal": "todos los turnos son legales",
        "turn_illegal": "el turno {n} es ilegal",
        "not_legal_game": "el registro no es una ronda legal ({codes})",
        "table": "Mesa",
        "col_opened": "ha abierto",
        "players": "Jugadores",
        "pool_tiles": "Pozo  {n:ficha/fichas}",
        "table_valid": "la mesa es válida",
        "table_invalid": "la mesa tiene {n:combinación no válida/combinaciones no válidas}",
        "col_preset": "reglas",
        "col_description": "descripción",
        "show_preset": "Para ver todos los ajustes de un conjunto de reglas: rummikub rules NOMBRE",
        "col_setting": "ajuste",
        "col_value": "valor",
        "tiles": "Fichas",
        "arrangement": "Colocación",
        "arrangeable": "todas las fichas caben en combinaciones válidas",
        "arrange_unknown": "? se agotó el tiempo disponible antes de saber la respuesta",
        "not_arrangeable": "estas fichas no se pueden colocar todas en combinaciones válidas",
        "rack_8": "Atril   ",
        "play_8": "Jugada  ",
        "worth": "  (vale {value})",
        "table_after": "Mesa después de la jugada",
        "steps": "Pasos",
        "not_optimal": "(no está demostrado que sea la mejor: se agotó el tiempo de búsqueda)",
        "not_proven": "(no está demostrado que sea la mejor: la búsqueda no prueba todas las jugadas)",
        "no_play": "Ninguna jugada legal: roba una ficha.",
        "no_play_found": "No se encontró jugada en el tiempo disponible (puede haberla): roba una ficha.",
        "no_play_unproven": "No se encontró jugada, pero puede haberla (la búsqueda no prueba todas las jugadas): roba una ficha.",
        "no_opening": "Ninguna jugada legal: roba una ficha (ninguna primera jugada llega a los {minimum} puntos).",
        "busy_retrying": "el servicio de reglas está ocupado ({what} respondió {status}): se reintenta dentro de "
        "{wait} s{asked} (intento {next} de {most} como máximo)",
        "busy_as_asked": ", como pide el servicio",
    },
}


def words(lang: str, table: Mapping[str, dict[str, str]] = WORDS) -> dict[str, str]:
    """The words of ``table`` (the report's, unless another is given) in ``lang`` (English for
    any other language)."""
    return table.get(lang, table["en"])


# --- tiles -------------------------------------------------------------------------------------


def canonical(tile: Any) -> str:
    """A request tile in canonical notation (``o7`` → ``O7``, object forms → strings); the
    raw text when it does not read as a tile."""
    from engine.tiles import parse_tile

    try:
        return str(parse_tile(tile))
    except Exception:
        return tile if isinstance(tile, str) else json.dumps(tile)


def tile_text(tile: str) -> Text:
    style = TILE_STYLES.get(tile[:1].upper(), "")
    return Text(tile, style=style)


def tiles_text(tiles: Iterable[Any], empty: str = "—") -> Text:
    """Tiles in their colours, separated by spaces."""
    texts = [tile_text(canonical(t)) for t in tiles]
    if not texts:
        return Text(empty, style="dim")
    return Text(" ").join(texts)


def set_tiles(raw: Any) -> list[Any]:
    """The tiles of a request set (an array, or an object with ``tiles``)."""
    if isinstance(raw, Mapping):
        tiles = raw.get("tiles")
        return list(tiles) if isinstance(tiles, list) else []
    return list(raw) if isinstance(raw, list) else []


def _set_label(raw: Any, index: int) -> Text:
    label = str(index + 1)
    if isinstance(raw, Mapping) and isinstance(raw.get("id"), str):
        label += f" ({raw['id']})"
    return Text(label, style="dim")


# --- verdict pieces ------------------------------------------------------------------------------


def violation_text(v: Mapping[str, Any], show_at: bool = True, lang: str = "en") -> Text:
    text = Text()
    text.append(str(v.get("code", "")), style="bold red")
    at = v.get("at")
    if show_at and at:
        text.append(words(lang)["at"].format(at=at), style="dim")
    text.append(f": {v.get('message', '')}")
    return text


def violations_block(
    violations: Sequence[Mapping[str, Any]], title: str | None = None, lang: str = "en"
) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=2, justify="right")
    grid.add_column()
    for v in violations:
        grid.add_row(BAD, violation_text(v, lang=lang))
    return Group(Text(words(lang)["violations"] if title is None else title, style="bold"), grid)


def _best_reading(result: Mapping[str, Any]) -> Mapping[str, Any] | None:
    readings = result.get("readings") or []
    for r in readings:
        if r.get("kind") == result.get("kind") and r.get("value") == result.get("value"):
            return dict(r)
    return dict(readings[0]) if readings else None


def _kind(kind: Any, lang: str) -> str:
    """``run``/``group`` in the report's language (any other value as it is)."""
    return words(lang).get(kind, str(kind)) if kind in ("run", "group") else str(kind)


def set_verdict(result: Mapping[str, Any], lang: str = "en") -> Text:
    """``✓ run 12`` (and the other readings), or ``✗`` with the reasons."""
    if result.get("valid"):
        text = OK + Text(f" {_kind(result.get('kind'), lang)} {result.get('value')}", style="green")
        others = [
            f"{_kind(r.get('kind'), lang)} {r.get('value')}"
            for r in (result.get("readings") or [])
            if (r.get("kind"), r.get("value")) != (result.get("kind"), result.get("value"))
        ]
        if others:
            text.append(words(lang)["also"].format(others=", ".join(others)), style="dim")
        return text
    text = BAD.copy()
    for v in result.get("violations") or []:
        text.append(" ")
        text.append_text(violation_text(v, show_at=False, lang=lang))
    return text


def sets_table(
    raw_sets: Sequence[Any],
    results: Sequence[Mapping[str, Any]] | None,
    title: str | None = None,
    lang: str = "en",
) -> RenderableType:
    """One row per set: its tiles (a valid set's best reading, jokers declared) and its
    verdict; invalid rows are highlighted."""
    w = words(lang)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    # a code or a set's id longer than its column is folded, not cut: "JOKER_DECLARATIO…" could
    # not be looked up at 40 columns (an audit, session 52)
    table.add_column("#", justify="right", style="dim", overflow="fold")
    table.add_column(w["col_tiles"], no_wrap=False)
    if results is not None:
        table.add_column(w["col_verdict"], overflow="fold")
    for i, raw in enumerate(raw_sets):
        result = results[i] if results is not None and i < len(results) else None
        tiles = set_tiles(raw)
        if result is not None and result.get("valid"):
            best = _best_reading(result)
            if best and any(str(t).startswith("J") for t in best.get("tiles") or []):
                tiles = list(best["tiles"])
        row: list[RenderableType] = [_set_label(raw, i), tiles_text(tiles, empty=w["empty"])]
        if result is not None:
            row.append(set_verdict(result, lang))
        table.add_row(*row, style=None if result is None or result.get("valid") else "on grey15")
    if not raw_sets:
        table.add_row("", Text(w["no_sets"], style="dim"), *([""] if results is not None else []))
    return titled(title, table)


def titled(title: str | None, table: Table) -> RenderableType:
    """A table under a bold heading (a rich table title would wrap at the table's width)."""
    return table if title is None else Group(Text(title, style="bold"), table)


def verdict_line(valid: bool, good: str, bad: str) -> Text:
    return (OK + Text(f" {good}", style="bold green")) if valid else (BAD + Text(f" {bad}", style="bold red"))


# --- text from documents ---------------------------------------------------------------------------

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Characters a report never writes as they are: control characters (an escape sequence in a
player's name would drive the terminal), the line and paragraph separators (a terminal breaks
the line there: a table's cell split in two, the CLI audit of session 47), bidirectional
overrides and lone surrogates."""


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: Any) -> Any:
    """A JSON value with every string's unprintable characters written as escapes (``\\x1b``,
    ``\\u202e``): what a readable report shows of names, ids and messages from a document."""
    if isinstance(value, str):
        return _UNPRINTABLE.sub(_escaped, value)
    if isinstance(value, list | tuple):
        return [printable(item) for item in value]
    if isinstance(value, Mapping):
        return {printable(key): printable(item) for key, item in value.items()}
    return value


def analysis_left_open(summary: Mapping[str, Any]) -> tuple[int, int]:
    """Of a replay analysis' draws, how many it left undecided (no play found, none proven
    impossible) though searched, and how many it did not search (its budget ran out): what
    the text report and the ``--html`` page say besides the missed plays."""
    not_searched = summary.get("draws_not_searched")
    not_searched = not_searched if isinstance(not_searched, int) and not isinstance(not_searched, bool) else 0
    undecided = summary.get("undecided")
    return (len(undecided) if isinstance(undecided, list) else 0) - not_searched, not_searched


_Render = TypeVar("_Render", bound=Callable[..., None])


def printable_args(render: _Render) -> _Render:
    """A report drawn from printable copies of its body and answer (``printable``)."""

    @functools.wraps(render)
    def drawn(console: Console, *args: Any, **kwargs: Any) -> None:
        render(console, *(printable(arg) for arg in args), **kwargs)

    return drawn  # type: ignore[return-value]


# --- commands ------------------------------------------------------------------------------------


@printable_args
def render_validate(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    raw_sets = body.get("sets") or []
    results = result.get("sets") or []
    console.print(sets_table(raw_sets, results, lang=lang))
    invalid = sum(1 for r in results if not r.get("valid"))
    total = len(results)
    if result.get("valid"):
        good = w["all_valid"] if total > 1 else w["one_valid"] if total == 1 else w["n_valid"]
        console.print(verdict_line(True, good.format(n=total), ""))
    else:
        bad = w["one_invalid"] if total == 1 else w["n_invalid"]
        console.print(verdict_line(False, "", bad.format(bad=invalid, n=total)))


def _set_pointers(results: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    return {(str(v.get("code")), str(v.get("at"))) for r in results for v in (r.get("violations") or [])}


@printable_args
def render_meld(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    raw_sets = body.get("sets") or []
    results = result.get("sets") or []
    console.print(sets_table(raw_sets, results, lang=lang))
    if "rack" in body:
        console.print(Text(f"{w['rack']}  ", style="bold") + tiles_text(body.get("rack") or []))
    value, threshold = result.get("value"), result.get("threshold")
    line = Text(w["meld_value"].format(value=value, threshold=threshold) + "  ", style="bold")
    line.append_text(verdict_line(bool(result.get("valid")), w["opens"], w["not_opens"]))
    console.print(line)
    shown = _set_pointers(results)
    rest = [v for v in result.get("violations") or [] if (str(v.get("code")), str(v.get("at"))) not in shown]
    if rest:
        console.print(violations_block(rest, lang=lang))


def _after_results(after: Sequence[Any], violations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per after-set verdicts from a turn's violations (those pointing at ``/after/i``)."""
    out: list[dict[str, Any]] = [{"valid": True, "violations": []} for _ in after]
    for v in violations:
        at = str(v.get("at") or "")
        if at.startswith("/after/"):
            head = at[len("/after/") :].split("/", 1)[0]
            if head.isdigit() and int(head) < len(out):
                out[int(head)]["valid"] = False
                out[int(head)]["violations"].append(v)
    return out


def _turn_sets_table(
    raw_sets: Sequence[Any], per_set: Sequence[Mapping[str, Any]] | None, title: str, lang: str = "en"
) -> RenderableType:
    w = words(lang)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", style="dim", overflow="fold")
    table.add_column(w["col_tiles"])
    table.add_column("", overflow="fold")
    for i, raw in enumerate(raw_sets):
        verdict = per_set[i] if per_set is not None and i < len(per_set) else None
        mark: RenderableType = ""
        if verdict is not None and not verdict["valid"]:
            mark = set_verdict(verdict, lang)
        table.add_row(
            _set_label(raw, i),
            tiles_text(set_tiles(raw), empty=w["empty"]),
            mark,
            style=None if verdict is None or verdict["valid"] else "on grey15",
        )
    if not raw_sets:
        table.add_row("", Text(w["empty_table"], style="dim"), "")
    return titled(title, table)


def _after_shown(
    body: Mapping[str, Any], result: Mapping[str, Any]
) -> tuple[Sequence[Any], Sequence[Mapping[str, Any]] | None]:
    """The after-sets a turn's report shows, with their verdicts: the arrangement judged when
    ``after`` was a loose table (its violations point into it), else the sets as sent; loose
    tiles that no arrangement was found for, as one row of tiles without a verdict."""
    violations = result.get("violations") or []
    if isinstance(result.get("after"), list):
        return result["after"], _after_results(result["after"], violations)
    after = body.get("after") or []
    if isinstance(after, Mapping) and isinstance(after.get("loose"), list):
        return [after["loose"]], None
    if isinstance(after, list) and after:
        from service.schemas import is_loose  # (the service's reading of a flat list; loaded only here)

        if is_loose(after):
            return [after], None
    return after, _after_results(after, violations)


@printable_args
def render_verify(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    before = body.get("before") or []
    violations = result.get("violations") or []
    console.print(_turn_sets_table(before, None, w["before"], lang))
    console.print(_turn_sets_table(*_after_shown(body, result), w["after"], lang))
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    facts.add_row(w["rack"], tiles_text(body.get("rack") or []))
    facts.add_row(w["played"], tiles_text(result.get("played") or []))
    facts.add_row(w["rack_after"], tiles_text(result.get("rack_after") or [], empty=w["went_out_empty"]))
    yes_no = {True: w["yes"], False: w["no"]}
    facts.add_row(w["opened"], f"{yes_no[bool(body.get('opened'))]} → {yes_no[bool(result.get('opened_after'))]}")
    if result.get("initial_meld"):
        facts.add_row(w["initial_meld"], _meld_value_text(result["initial_meld"], lang))
    if result.get("jokers_freed"):
        facts.add_row(w["jokers_freed"], str(result["jokers_freed"]))
    if result.get("jokers_exact") is False:
        facts.add_row(w["jokers_lenient"], w["jokers_lenient_text"])
    console.print(facts)
    console.print()
    if result.get("valid"):
        good = w["legal_draw"] if result.get("action") == "draw" else w["legal_play"]
        if result.get("rack_empty"):
            good += w["player_went_out"]
        console.print(verdict_line(True, good, ""))
    else:
        penalty = result.get("penalty") or {}
        console.print(verdict_line(False, "", w["illegal_turn"].format(penalty=penalty_text(penalty, lang))))
        if kept_position(penalty):
            console.print(sets_table(penalty.get("kept") or [], None, title=w["kept_on_table"], lang=lang))
            console.print(Text(f"{w['returned_to_rack']}  ", style="bold") + tiles_text(penalty.get("returned") or []))
        console.print(violations_block(violations, lang=lang))


def kept_position(penalty: Mapping[str, Any]) -> bool:
    """The penalty keeps the valid sets (``timeout_keeps_valid_sets``) instead of restoring."""
    return penalty.get("restore_table") is False


def penalty_text(penalty: Mapping[str, Any], lang: str = "en") -> str:
    """``table restored, penalty draw 3`` or, when sets are kept, what stays and goes back."""
    w = words(lang)
    draw = penalty.get("draw", 0)
    if type(draw) is int:  # ("roba 3 fichas de penalización"; a server's odd value as it is)
        draw = w["penalty_tiles"].format(n=Count(draw))
    if not kept_position(penalty):
        return w["restored"].format(draw=draw)
    kept = len(penalty.get("kept") or [])
    returned = len(penalty.get("returned") or [])
    sets = w["kept_sets_one"] if kept == 1 else w["kept_sets"].format(n=kept)
    tiles = w["back_tiles_one"] if returned == 1 else w["back_tiles"].format(n=returned)
    return w["kept"].format(sets=sets, tiles=tiles, draw=draw)


def signed_score(value: Any, lang: str = "en") -> str:
    """A score as every readable report writes it: its sign, and a share of a tied win to 10
    significant digits, as the batch table and CSV write it (``+2.333333333``; the round
    report wrote ``+2.33333``, the --html page ``2.33333``: the language audit, session 53);
    with a decimal comma in Spanish (``+2,333333333``), as seconds are written. Tables of many
    documents (the batch table, CSV and the --html summary) keep the point: a CSV cell is data,
    and their rows list scores with commas."""
    text = f"{value:.10g}" if isinstance(value, float) else str(value)
    if lang == "es" and isinstance(value, float):
        text = text.replace(".", ",")
    return f"+{text}" if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else text


def _score_style(value: Any) -> str:
    if isinstance(value, int | float):
        return "green" if value > 0 else "red" if value < 0 else ""
    return ""


def _meld_value_text(meld: Mapping[str, Any], lang: str = "en") -> str:
    """An opening's value; "at least" when the engine reports a lower bound (``exact`` false)."""
    value = str(meld.get("value"))
    return value if meld.get("exact", True) else words(lang)["at_least"].format(value=value)


def round_table(
    body: Mapping[str, Any] | None, result: Mapping[str, Any], title: str | None = None, lang: str = "en"
) -> RenderableType:
    w = words(lang)
    players = {}
    if isinstance(body, Mapping):
        for p in body.get("players") or []:
            if isinstance(p, Mapping):
                players[p.get("name")] = p
    winners = set(result.get("winners") or [])
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    racks = isinstance(body, Mapping)  # (a replay's result has the scores, not the racks)
    table.add_column(w["col_player"], overflow="fold")  # (a long name whole, not cut)
    if racks:
        table.add_column(w["col_rack"])
    table.add_column(w["col_rack_value"], justify="right")
    table.add_column(w["col_score"], justify="right")
    for s in result.get("scores") or []:
        name = str(s.get("name"))
        rack = players.get(s.get("name"), {}).get("rack")
        cells: list[RenderableType] = [
            Text(name + (" ★" if name in winners else ""), style="bold" if name in winners else "")
        ]
        if racks:
            cells.append(tiles_text(rack or [], empty=w["empty_m"]) if rack is not None else Text(""))
        cells += [
            str(s.get("rack_value")),
            Text(signed_score(s.get("score"), lang), style=_score_style(s.get("score"))),
        ]
        table.add_row(*cells)
    return titled(title, table)


def _names(names: Sequence[Any], lang: str = "en") -> str:
    """Names as a list in words: "A, B and C" ("A, B y C")."""
    shown = [str(n) for n in names]
    if len(shown) < 2:
        return "".join(shown)
    joint = words(lang)["and_last"]
    last = shown[-1].lower()
    if lang == "es" and last.startswith(("i", "hi", "í", "hí")) and not last.startswith(("hia", "hie", "hio", "hiu")):
        joint = " e "  # ("Ana e Inés": "y" becomes "e" before an i sound)
    return ", ".join(shown[:-1]) + joint + shown[-1]


def _round_caption(result: Mapping[str, Any], lang: str = "en") -> Text:
    w = words(lang)
    winners = result.get("winners") or []
    ended = w["ended_out"] if result.get("ended_by") == "rack_empty" else w["ended_pool"]
    if result.get("winner") is not None:
        who = w["wins"].format(who=result["winner"])
    elif winners:
        who = w["share_win"].format(who=_names(winners, lang))
    else:
        who = w["no_winner"]
    return Text(w["caption"].format(who=who, ended=ended), style="bold")


@printable_args
def render_round(console: Console, body: Mapping[str, Any] | None, result: Mapping[str, Any], lang: str = "en") -> None:
    console.print(round_table(body, result, lang=lang))
    console.print(_round_caption(result, lang))


@printable_args
def render_match(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    rounds = body.get("rounds") or []
    for i, r in enumerate(result.get("rounds") or []):
        round_body = rounds[i] if i < len(rounds) and isinstance(rounds[i], Mapping) else None
        console.print(round_table(round_body, r, title=w["round"].format(n=i + 1), lang=lang))
        console.print(Text("  ") + _round_caption(r, lang))
    totals = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    totals.add_column(w["col_place"], justify="right", style="dim")
    totals.add_column(w["col_player"], overflow="fold")
    totals.add_column(w["col_total"], justify="right")
    by_name = {t.get("name"): t.get("total") for t in result.get("totals") or []}
    place, last = 0, None
    for i, name in enumerate(result.get("standings") or [], start=1):
        total = by_name.get(name)
        if i == 1 or total != last:  # (equal totals share the place: 1, 1, 3)
            place, last = i, total
        totals.add_row(str(place), str(name), Text(signed_score(total, lang), style=_score_style(total)))
    console.print(titled(w["totals"], totals))
    winners = result.get("winners") or ([result["winner"]] if result.get("winner") else [])
    if result.get("winner") is not None:
        console.print(Text(w["wins_match"].format(who=result["winner"]), style="bold"))
    elif winners:
        console.print(Text(w["share_match"].format(who=_names(winners, lang)), style="bold"))


def _turn_line(turn: Mapping[str, Any], lang: str = "en") -> Text:
    w = words(lang)
    text = Text()
    mark = OK if turn.get("valid") else BAD
    text.append_text(mark)
    text.append(f" {turn.get('index'):>3} ", style="dim")
    text.append(f"{turn.get('player')!s:<10} ")
    action = str(turn.get("action"))
    action = w.get(f"action_{action}", action)
    text.append(f"{action:<12} ", style="cyan")
    if turn.get("tile") is not None:
        text.append_text(tile_text(str(turn["tile"])))
    elif turn.get("played"):
        text.append_text(tiles_text(turn["played"]))
    if turn.get("rack_empty"):
        text.append(w["turn_went_out"], style="bold green")
    if turn.get("initial_meld"):
        text.append(w["opens_with"].format(value=_meld_value_text(turn["initial_meld"], lang)), style="green")
    penalty = turn.get("penalty")
    if isinstance(penalty, Mapping) and kept_position(penalty):
        text.append(f"  {penalty_text(penalty, lang)}", style="yellow")
        if penalty.get("returned"):
            text.append_text(Text(w["returned"], style="yellow") + tiles_text(penalty["returned"]) + Text(")"))
    return text


@printable_args
def render_replay(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    for turn in result.get("turns") or []:
        console.print(_turn_line(turn, lang))
        violations = turn.get("violations") or []
        if violations:
            # a grid, so a long message wraps under its text (column 10), not at column 0
            grid = Table.grid(padding=(0, 1))
            grid.add_column(width=9, justify="right", no_wrap=True)
            grid.add_column()
            for v in violations:
                grid.add_row(BAD, violation_text(v, lang=lang))
            console.print(grid)
        analysis = turn.get("analysis")
        if isinstance(analysis, Mapping) and analysis.get("play_existed"):
            best = analysis.get("best") or {}
            what = w["opening_possible"] if analysis.get("opening") else w["play_possible"]
            console.print(Text(f"        ! {what}", style="yellow") + tiles_text(best.get("played") or []))
    summary = result.get("analysis")
    if isinstance(summary, Mapping):
        line = w["analysis"].format(
            draws=Count(summary.get("draws_analyzed") or 0),
            missed=Count(len(summary.get("missed_plays") or [])),
            late=Count(len(summary.get("late_openings") or [])),
        )
        undecided, not_searched = analysis_left_open(summary)
        if undecided > 0:
            line += w["analysis_undecided"].format(n=undecided)
        if not_searched:
            line += w["analysis_not_searched"].format(n=not_searched)
        console.print(Text(line, style="yellow"))
    game_violations = result.get("violations") or []
    if game_violations:
        console.print(violations_block(game_violations, w["the_record"], lang))
    console.print()
    if result.get("result"):
        render_round(console, None, result["result"], lang)
        unnamed = [s for s in result["result"].get("scores") or [] if s.get("unnamed_tiles")]
        if unnamed:
            held = ", ".join(f"{s.get('name')} {s['unnamed_tiles']}" for s in unnamed)
            console.print(Text(w["unnamed"].format(held=held), style="yellow"))
    first = result.get("first_invalid_turn")
    if result.get("valid"):
        console.print(verdict_line(True, w["all_legal"], ""))
    elif first is not None:
        console.print(verdict_line(False, "", w["turn_illegal"].format(n=first)))
    else:
        found = ", ".join(dict.fromkeys(str(v.get("code")) for v in game_violations))
        console.print(verdict_line(False, "", w["not_legal_game"].format(codes=found)))


@printable_args
def render_position(console: Console, doc: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    console.print(sets_table(doc.get("table") or [], result.get("sets") or [], title=w["table"], lang=lang))
    players = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    players.add_column(w["col_player"], overflow="fold")
    players.add_column(w["col_opened"])
    players.add_column(w["col_tiles"], justify="right")
    players.add_column(w["col_rack"])
    for p in doc.get("players") or []:
        if not isinstance(p, Mapping):
            continue
        rack = p.get("rack") or []
        players.add_row(
            str(p.get("name", "?")),
            w["yes"] if p.get("opened") else w["no"],
            str(len(rack)),
            tiles_text(rack, empty=w["empty_m"]),
        )
    console.print(titled(w["players"], players))
    pool = doc.get("pool")
    if isinstance(pool, list):
        console.print(Text(w["pool_tiles"].format(n=Count(len(pool))) + "  ", style="bold") + tiles_text(pool))
    elif isinstance(pool, int):
        console.print(Text(w["pool_tiles"].format(n=Count(pool)), style="bold"))
    bad = sum(1 for r in result.get("sets") or [] if isinstance(r, Mapping) and not r.get("valid"))
    console.print(verdict_line(bool(result.get("valid")), w["table_valid"], w["table_invalid"].format(n=Count(bad))))


def _description(name: str, info: Any, lang: str) -> str:
    """A preset's description as the answer gives it (English), or in Spanish with ``es`` when
    the answer's description is the one engine.rules knows for that preset."""
    description = str(info.get("description", "")) if isinstance(info, Mapping) else ""
    if lang == "es" and description and description == PRESET_DESCRIPTIONS.get(name):
        return PRESET_DESCRIPTIONS_ES.get(name, description)
    return description


@printable_args
def render_rules_list(console: Console, listing: Any, lang: str = "en") -> None:
    w = words(lang)
    presets = listing.get("presets") if isinstance(listing, Mapping) else listing
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column(w["col_preset"], style="bold")
    table.add_column(w["col_description"])
    if isinstance(presets, Mapping):
        items: list[tuple[str, Any]] = list(presets.items())
    elif isinstance(presets, list):
        items = [
            (str(p.get("name") or p.get("preset")), p) if isinstance(p, Mapping) else (str(p), {}) for p in presets
        ]
    else:
        items = []
    for name, info in items:
        table.add_row(name, _description(name, info, lang))
    console.print(table)
    console.print(Text(w["show_preset"], style="dim"))


@printable_args
def render_rules_one(console: Console, preset: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    settings = preset.get("settings") if isinstance(preset.get("settings"), Mapping) else preset
    name = preset.get("name") or preset.get("preset") or (settings or {}).get("preset")
    console.print(Text(str(name), style="bold"))
    description = _description(str(name), preset, lang)
    if description:
        console.print(description)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column(w["col_setting"], overflow="fold")
    table.add_column(w["col_value"])
    for key, value in (settings or {}).items():
        if key in ("preset", "name", "description"):
            continue
        table.add_row(str(key), json.dumps(value))
    console.print(table)


@printable_args
def render_arrange(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    console.print(Text(f"{w['tiles']}  ", style="bold") + tiles_text(body.get("tiles") or []))
    arrangeable = result.get("arrangeable")
    if arrangeable:
        console.print(sets_table(result.get("sets") or [], None, title=w["arrangement"], lang=lang))
        console.print(verdict_line(True, w["arrangeable"], ""))
    elif arrangeable is None:
        console.print(Text(w["arrange_unknown"], style="bold yellow"))
    else:
        console.print(verdict_line(False, "", w["not_arrangeable"]))


def _no_play(body: Mapping[str, Any], result: Mapping[str, Any], lang: str) -> str:
    """Why a suggestion plays nothing: none found in time, no opening worth the minimum, or none."""
    w = words(lang)
    if not result.get("optimal_proven", True):
        return w["no_play_found" if result.get("budget_exhausted", True) else "no_play_unproven"]
    if body.get("opened") is False:
        try:
            minimum = resolve_rules(body.get("rules")).initial_meld_min
        except RulesError:  # (the request was answered: its rules are readable)
            minimum = 0
        if minimum:
            return w["no_opening"].format(minimum=minimum)
    return w["no_play"]


@printable_args
def render_suggest(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    w = words(lang)
    console.print(sets_table(body.get("table") or [], None, title=w["table"], lang=lang))
    console.print(Text(w["rack_8"], style="bold") + tiles_text(body.get("rack") or []))
    played = result.get("played") or []
    if not played:
        console.print(Text(_no_play(body, result, lang), style="bold yellow"))
        return
    console.print(
        Text(w["play_8"], style="bold") + tiles_text(played) + Text(w["worth"].format(value=result.get("value")))
    )
    console.print(sets_table(result.get("after") or [], None, title=w["table_after"], lang=lang))
    changes = result.get("changes")
    if isinstance(changes, Mapping):
        before = [[canonical(t) for t in set_tiles(s)] for s in body.get("table") or []]
        console.print(Text(w["steps"], style="bold"))
        # a long step wraps under its own text, not at the margin where it read as a line of
        # its own (a solver audit, session 44)
        steps = Table.grid(padding=(0, 1))
        steps.add_column(justify="right")
        steps.add_column()
        for n, step in enumerate(move_steps(before, changes, lang), 1):
            steps.add_row(f"  {n}.", Text(step))
        console.print(steps)
    if not result.get("optimal_proven"):
        console.print(Text(w["not_optimal" if result.get("budget_exhausted", True) else "not_proven"], style="dim"))
