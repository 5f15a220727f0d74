"""Pictures for the command line: ``show --format svg`` and ``replay --html`` (issue #17).

The drawing is :mod:`engine.svg`, always in this process (with ``--server`` the batch's
verdicts come from the service; the pictures are drawn here from the same documents). The
HTML report is one self-contained page: inline CSS and inline SVG, no scripts, no links out.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from cli.batch import first_violation
from cli.errors import CliError, problem_line
from cli.inputs import DocumentError, Source, load_source
from cli.render import analysis_left_open, printable, signed_score
from cli.render import words as report_words
from engine import svg
from engine.errors import InputError
from engine.replay import Moment, parse_game_record, replay_moments
from engine.rules import Rules, resolve_rules
from engine.sets import TableSet, parse_table
from engine.tiles import parse_tiles
from engine.violations import Count

MAX_MISSED_PICTURES = 10
"""Missed plays drawn per game with ``--analyze`` (the rest are listed by turn)."""


def _input_error(source: str, exc: InputError, prefix: str = "") -> CliError:
    return CliError(f"{source}: {prefix}{exc.pointer}: {exc.message}")


def _rules(value: Any, source: str) -> Rules:
    try:
        return resolve_rules(value)
    except InputError as exc:
        raise _input_error(source, exc, "/rules") from None


def position_svg(doc: Mapping[str, Any], rules: Any, lang: str, source: str) -> str:
    """A position file (table, players' racks, pool) as SVG. ``rules`` overrides the file's.
    Raises CliError for a position over the limits of a request (``check_position_limits``)."""
    effective = rules if rules is not None else doc.get("rules")
    table = _table(doc, source)
    check_position_limits(doc, source, table)
    racks = []
    for i, p in enumerate(doc.get("players") or []):
        try:
            tiles = parse_tiles(p.get("rack") or [])
        except InputError as exc:
            raise _input_error(source, exc, f"/players/{i}/rack") from None
        opened = p.get("opened", False)  # (false when left out: docs/cli.md, as the text report says)
        racks.append(svg.RackView(tiles, str(p.get("name")), opened if isinstance(opened, bool) else None))
    pool = doc.get("pool")
    pool_count = len(pool) if isinstance(pool, list) else pool if isinstance(pool, int) else None
    return svg.table_svg(table, _rules(effective, source), racks=racks, pool=pool_count, lang=lang)


def _table(doc: Mapping[str, Any], source: str) -> Sequence[TableSet]:
    try:
        return parse_table(doc.get("table"), "/table")
    except InputError as exc:
        raise _input_error(source, exc) from None


def check_position_limits(doc: Mapping[str, Any], source: str, table: Sequence[TableSet] | None = None) -> None:
    """A position's players and tiles (the table's, every rack's and a listed pool's) within
    the limits the service puts on a request (``RUMMIKUB_MAX_PLAYERS``, ``RUMMIKUB_MAX_TILES``),
    for the picture and the text report alike: both hold every rack, and were made whatever the
    size (a 600 KB file gave 36.6 MB of SVG, session 52; a 12.6 MB file a 59 s, 1.1 GB text
    report, session 53). The service draws one rack, within the same limits."""
    from service.limits import Limits

    if table is None:
        table = _table(doc, source)

    try:
        limits = Limits.from_settings()  # (as the in-process back end reads them)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    players = doc.get("players") or []
    if len(players) > limits.max_players:
        raise CliError(
            f"{source}: /players: this array has {len(players)} items; the limit is {limits.max_players} "
            f"({Limits.env_name('max_players')})"
        )
    total = sum(len(s.tiles) for s in table)
    places = [(f"/players/{i}/rack", p.get("rack") if isinstance(p, Mapping) else None) for i, p in enumerate(players)]
    for pointer, tiles in [*places, ("/pool", doc.get("pool"))]:
        total += len(tiles) if isinstance(tiles, list) else 0
        if total > limits.max_tiles:
            raise CliError(
                f"{source}: {pointer}: the position holds more than {limits.max_tiles} tiles; the limit is "
                f"{limits.max_tiles} ({Limits.env_name('max_tiles')})"
            )


def turn_svg(body: Mapping[str, Any], lang: str, source: str) -> str:
    """A turn file (its rules already merged) as SVG, read as ``POST /v1/render`` reads it."""
    from service.operations import RequestError, render_svg

    try:
        return render_svg(body, lang)
    except RequestError as exc:
        raise CliError(f"{source}: {problem_line(exc.to_problem(lang))}") from None


# --- the HTML report -----------------------------------------------------------------------

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Replay report",
        "games": "{n:game/games}: {ok} legal, {bad} with an illegal turn or record, {err} unreadable",
        "game": "game",
        "valid": "valid",
        "first": "first invalid turn",
        "winner": "winner",
        "scores": "scores",
        "note": "first problem",
        "yes": "yes",
        "no": "no",
        "error": "unreadable",
        "problems": "Games with a problem",
        "none": "Every game is legal.",
        "turn": "Turn {i} ({player}): {action}",
        "record": "The record",
        "missed": "Missed plays",
        "missed_turn": "Turn {i} ({player}) drew, but could have played {tiles}",
        "more_missed": "…and {n} more {n:#missed play/missed plays}: {n:#turn/turns} {turns}",
        "undecided": "{n:draw/draws} undecided (no play found, none proven impossible)",
        "not_searched": "{n:draw/draws} not searched: the analysis budget ran out",
        "position": "The table when the turn was played",
        "back": "back to the summary",
    },
    "es": {
        "title": "Informe de rondas jugadas",
        "games": "{n:ronda/rondas}: {ok} {ok:#legal/legales}, {bad} con un turno o registro ilegal, {err} {err:#ilegible/ilegibles}",
        "game": "ronda",
        "valid": "válida",
        "first": "primer turno ilegal",
        "winner": "ganador",
        "scores": "puntos",
        "note": "primer problema",
        "yes": "sí",
        "no": "no",
        "error": "ilegible",
        "problems": "Rondas con problemas",
        "none": "Todas las rondas son legales.",
        "turn": "Turno {i} ({player}): {action}",
        "record": "El registro",
        "missed": "Jugadas desaprovechadas",
        "missed_turn": "Turno {i} ({player}): robó, pero podía jugar {tiles}",
        "more_missed": "…y {n} {n:#jugada desaprovechada/jugadas desaprovechadas} más: {n:#turno/turnos} {turns}",
        "undecided": "{n:robo/robos} sin decidir (no se halló jugada ni se probó que no la hubiera)",
        "not_searched": "{n:robo/robos} sin revisar: se agotó el tiempo del análisis",
        "position": "La mesa cuando se jugó el turno",
        "back": "volver al resumen",
    },
}

_CSS = """
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 24px; color: #212121; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } h3 { font-size: 15px; }
table.summary { border-collapse: collapse; font-size: 13px; }
table.summary th, table.summary td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
table.summary th { background: #eeeeee; }
tr.invalid td { background: #ffebee; } tr.error td { background: #fff8e1; }
.ok { color: #2e7d32; font-weight: bold; } .bad { color: #c62828; font-weight: bold; }
ul.violations { color: #c62828; } figure { margin: 8px 0 16px; } figure svg { max-width: 100%; height: auto; }
code { background: #f5f5f5; padding: 0 3px; }
"""


def _e(value: Any) -> str:
    """Text for the page: HTML-escaped, and control characters, line separators, bidirectional
    overrides and isolates and lone surrogates written as escapes (``\\x1b``, ``\\u202e``), as
    the readable reports write them (a name's U+202E reversed the rest of its scores cell: an
    audit, session 52)."""
    return html.escape(printable(str(value)), quote=True)


def _name(value: Any) -> str:
    """A player's name for the page, isolated (``<bdi>``): a right-to-left name does not
    reorder the scores or the words around it."""
    return f"<bdi>{_e(value)}</bdi>"


def _with_name(template: str, player: Any, **values: Any) -> str:
    """``template`` (one ``{player}``) filled in for the page, the player's name isolated."""
    head, _, tail = template.partition("{player}")
    return _e(head.format(**values)) + _name(player) + _e(tail.format(**values))


def _violation_items(violations: Sequence[Mapping[str, Any]]) -> str:
    items = "".join(
        f"<li><code>{_e(v.get('code'))}</code> {_e(v.get('at') or '')}: {_e(v.get('message'))}</li>" for v in violations
    )
    return f'<ul class="violations">{items}</ul>' if items else ""


def _record(doc: Any) -> Any:
    body = {k: v for k, v in doc.items() if k not in ("continue_on_error", "analyze")}
    return parse_game_record(body)


def _turn_figure(moment: Moment, index: int, record: Any, rules: Rules, lang: str) -> str:
    turn = record.turns[index]
    if turn.table is not None and moment.turn.verdict is not None:
        # the pointers into the record, as the page's summary shows them (not ``/after/2``)
        pointers = [v.at for v in moment.turn.violations]
        shown = pointers if len(pointers) == len(moment.turn.verdict.violations) else None
        picture = svg.turn_svg(
            moment.table,
            turn.table,
            moment.rack,
            moment.opened,
            rules,
            turn.elapsed_seconds,
            verdict=moment.turn.verdict,
            lang=lang,
            pointers=shown,  # (a judged turn's violations are its verdict's, relocated one by one)
        )
    else:
        picture = svg.table_svg(
            moment.table,
            rules,
            racks=[svg.RackView(moment.rack, moment.player or turn.player, moment.opened)],
            lang=lang,
            title=_WORDS[lang]["position"],
        )
    return f"<figure>{picture}</figure>"


def _action(turn: Mapping[str, Any], lang: str) -> str:
    """A replayed turn's action in ``lang``, as the readable reports word it."""
    action = str(turn.get("action"))
    return report_words(lang).get(f"action_{action}", action)


def _game_section(number: int, source: Source, row: Any, job: Any, lang: str) -> str:
    words = _WORDS[lang]
    out = [f'<section id="game-{number}"><h2>{number}. {_e(row.where)}</h2>']
    result = row.result if isinstance(row.result, Mapping) else None
    if result is None:
        out.append(f'<p class="bad">{_e(row.error or words["error"])}</p></section>')
        return "".join(out)
    record = rules = moments = None
    try:
        from cli.batch import request_body

        doc = request_body(job, load_source(source))
        record = _record(doc)
        rules = record.rules
        moments = replay_moments(record, continue_on_error=job.continue_on_error)
    except (DocumentError, InputError):
        pass
    if result.get("violations"):
        out.append(f"<h3>{_e(words['record'])}</h3>{_violation_items(result['violations'])}")
    turns = result.get("turns") or []
    for turn in turns:
        if turn.get("valid", True):
            continue
        i = turn.get("index")
        out.append(
            f"<h3>{_with_name(words['turn'], turn.get('player'), i=i, action=_action(turn, lang))}</h3>"
            + _violation_items(turn.get("violations") or [])
        )
        if moments is not None and rules is not None and isinstance(i, int) and i < len(moments):
            out.append(_turn_figure(moments[i], i, record, rules, lang))
        if not job.continue_on_error:
            break
    missed = [t for t in turns if isinstance(t.get("analysis"), Mapping) and t["analysis"].get("play_existed")]
    if missed:
        out.append(f"<h3>{_e(words['missed'])}</h3>")
        for turn in missed[:MAX_MISSED_PICTURES]:
            best = turn["analysis"].get("best") or {}
            i = turn.get("index")
            tiles = " ".join(best.get("played") or [])
            out.append(f"<p>{_with_name(words['missed_turn'], turn.get('player'), i=i, tiles=tiles)}</p>")
            if moments is not None and rules is not None and isinstance(i, int) and i < len(moments):
                m = moments[i]
                try:
                    after = parse_table(best.get("after") or [], "/after")
                except InputError:
                    continue
                out.append(f"<figure>{svg.turn_svg(m.table, after, m.rack, m.opened, rules, lang=lang)}</figure>")
        if len(missed) > MAX_MISSED_PICTURES:
            rest = missed[MAX_MISSED_PICTURES:]
            more = words["more_missed"].format(n=Count(len(rest)), turns=", ".join(str(t.get("index")) for t in rest))
            out.append(f"<p>{_e(more)}</p>")
    cut = _analysis_cut(result)
    if cut:
        if not missed:
            out.append(f"<h3>{_e(words['missed'])}</h3>")
        out.extend(f"<p>{_e(words[key].format(n=Count(n)))}</p>" for key, n in cut)
    out.append(f'<p><a href="#summary">{_e(words["back"])}</a></p></section>')
    return "".join(out)


def _analysis_cut(result: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The draws an ``analyze`` left undecided or did not search (its budget ran out), as the
    text report counts them: what the page says besides the missed plays (an audit, session 52:
    the page listed the missed plays found as if they were all)."""
    analysis = result.get("analysis")
    if not isinstance(analysis, Mapping):
        return []
    undecided, not_searched = analysis_left_open(analysis)
    return [(key, n) for key, n in (("undecided", undecided), ("not_searched", not_searched)) if n > 0]


def _has_problem(row: Any) -> bool:
    if row.status != "ok":
        return True
    result = row.result if isinstance(row.result, Mapping) else {}
    analysis = result.get("analysis")
    return (isinstance(analysis, Mapping) and bool(analysis.get("missed_plays"))) or bool(_analysis_cut(result))


def html_report(pairs: Sequence[tuple[Source, Any]], job: Any, lang: str) -> str:
    """The replay report: a summary table of the batch and, for each game with a problem (an
    illegal turn, an illegal record, an unreadable document; with ``--analyze`` also missed
    plays), the picture of the offending turn with its violations in words."""
    lang = lang if lang in _WORDS else "en"
    words = _WORDS[lang]
    ok = sum(1 for _, r in pairs if r.status == "ok")
    bad = sum(1 for _, r in pairs if r.status == "invalid")
    rows = []
    sections = []
    for number, (source, row) in enumerate(pairs, start=1):
        problem = _has_problem(row)
        name = _e(row.where)
        link = f'<a href="#game-{number}">{name}</a>' if problem else name
        if row.status in ("error", "failed"):
            valid = f'<span class="bad">{_e(words["error"])}</span>'
        elif row.status == "ok":
            valid = f'<span class="ok">✓ {_e(words["yes"])}</span>'
        else:
            valid = f'<span class="bad">✗ {_e(words["no"])}</span>'
        first = "" if row.first_invalid_turn is None else _e(row.first_invalid_turn)
        scores = ", ".join(f"{_name(n)} {_e(signed_score(s))}" for n, s in row.scores)
        if row.error is None and row.result is not None:
            note = _e(first_violation(row.result, report_words(lang)["at"])[0] or "")
        else:
            note = _e(row.error or row.note or "")
        rows.append(
            f'<tr class="{_e(row.status)}"><td>{number}</td><td>{link}</td><td>{valid}</td><td>{first}</td>'
            f"<td>{_name(row.winner) if row.winner else ''}</td><td>{scores}</td><td>{note}</td></tr>"
        )
        if problem:
            sections.append(_game_section(number, source, row, job, lang))
    head = (
        f"<tr><th>#</th><th>{_e(words['game'])}</th><th>{_e(words['valid'])}</th><th>{_e(words['first'])}</th>"
        f"<th>{_e(words['winner'])}</th><th>{_e(words['scores'])}</th><th>{_e(words['note'])}</th></tr>"
    )
    counts = words["games"].format(n=Count(len(pairs)), ok=Count(ok), bad=Count(bad), err=Count(len(pairs) - ok - bad))
    body = "".join(sections) if sections else f'<p class="ok">{_e(words["none"])}</p>'
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(words['title'])}</title><style>{_CSS}</style></head><body>"
        f'<h1 id="summary">{_e(words["title"])}</h1><p>{_e(counts)}</p>'
        f'<table class="summary"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
        f"<h2>{_e(words['problems'])}</h2>{body}</body></html>\n"
    )
