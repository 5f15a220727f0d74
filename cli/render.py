"""Readable reports with rich: tiles in their colours, invalid sets highlighted with the reason.

Every function takes the request body and the operation's JSON response (the same JSON the
HTTP API returns), so a report looks the same whichever back end answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from cli.steps import move_steps
from engine.rules import RulesError, resolve_rules

TILE_STYLES: dict[str, str] = {
    "K": "bold bright_black",
    "B": "bold dodger_blue2",
    "O": "bold dark_orange",
    "R": "bold red",
    "J": "bold magenta",
}
OK = Text("✓", style="bold green")
BAD = Text("✗", style="bold red")


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


def violation_text(v: Mapping[str, Any], show_at: bool = True) -> Text:
    text = Text()
    text.append(str(v.get("code", "")), style="bold red")
    at = v.get("at")
    if show_at and at:
        text.append(f" at {at}", style="dim")
    text.append(f": {v.get('message', '')}")
    return text


def violations_block(violations: Sequence[Mapping[str, Any]], title: str = "Violations") -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=2, justify="right")
    grid.add_column()
    for v in violations:
        grid.add_row(BAD, violation_text(v))
    return Group(Text(title, style="bold"), grid)


def _best_reading(result: Mapping[str, Any]) -> Mapping[str, Any] | None:
    readings = result.get("readings") or []
    for r in readings:
        if r.get("kind") == result.get("kind") and r.get("value") == result.get("value"):
            return dict(r)
    return dict(readings[0]) if readings else None


def set_verdict(result: Mapping[str, Any]) -> Text:
    """``✓ run 12`` (and the other readings), or ``✗`` with the reasons."""
    if result.get("valid"):
        text = OK + Text(f" {result.get('kind')} {result.get('value')}", style="green")
        others = [
            f"{r.get('kind')} {r.get('value')}"
            for r in (result.get("readings") or [])
            if (r.get("kind"), r.get("value")) != (result.get("kind"), result.get("value"))
        ]
        if others:
            text.append(f"  (also {', '.join(others)})", style="dim")
        return text
    text = BAD.copy()
    for v in result.get("violations") or []:
        text.append(" ")
        text.append_text(violation_text(v, show_at=False))
    return text


def sets_table(
    raw_sets: Sequence[Any], results: Sequence[Mapping[str, Any]] | None, title: str | None = None
) -> RenderableType:
    """One row per set: its tiles (a valid set's best reading, jokers declared) and its
    verdict; invalid rows are highlighted."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("tiles", no_wrap=False)
    if results is not None:
        table.add_column("verdict")
    for i, raw in enumerate(raw_sets):
        result = results[i] if results is not None and i < len(results) else None
        tiles = set_tiles(raw)
        if result is not None and result.get("valid"):
            best = _best_reading(result)
            if best and any(str(t).startswith("J") for t in best.get("tiles") or []):
                tiles = list(best["tiles"])
        row: list[RenderableType] = [_set_label(raw, i), tiles_text(tiles, empty="(empty)")]
        if result is not None:
            row.append(set_verdict(result))
        table.add_row(*row, style=None if result is None or result.get("valid") else "on grey15")
    if not raw_sets:
        table.add_row("", Text("(no sets)", style="dim"), *([""] if results is not None else []))
    return titled(title, table)


def titled(title: str | None, table: Table) -> RenderableType:
    """A table under a bold heading (a rich table title would wrap at the table's width)."""
    return table if title is None else Group(Text(title, style="bold"), table)


def verdict_line(valid: bool, good: str, bad: str) -> Text:
    return (OK + Text(f" {good}", style="bold green")) if valid else (BAD + Text(f" {bad}", style="bold red"))


# --- commands ------------------------------------------------------------------------------------


def render_validate(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    raw_sets = body.get("sets") or []
    results = result.get("sets") or []
    console.print(sets_table(raw_sets, results))
    invalid = sum(1 for r in results if not r.get("valid"))
    total = len(results)
    if result.get("valid"):
        console.print(
            verdict_line(True, f"{'all ' if total > 1 else ''}{total} set{'s' if total != 1 else ''} valid", "")
        )
    else:
        console.print(verdict_line(False, "", f"{invalid} of {total} set{'s' if total != 1 else ''} invalid"))


def _set_pointers(results: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    return {(str(v.get("code")), str(v.get("at"))) for r in results for v in (r.get("violations") or [])}


def render_meld(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    raw_sets = body.get("sets") or []
    results = result.get("sets") or []
    console.print(sets_table(raw_sets, results))
    if "rack" in body:
        console.print(Text("Rack  ", style="bold") + tiles_text(body.get("rack") or []))
    value, threshold = result.get("value"), result.get("threshold")
    line = Text(f"Meld value {value} (needs {threshold})  ", style="bold")
    line.append_text(verdict_line(bool(result.get("valid")), "opens", "does not open"))
    console.print(line)
    shown = _set_pointers(results)
    rest = [v for v in result.get("violations") or [] if (str(v.get("code")), str(v.get("at"))) not in shown]
    if rest:
        console.print(violations_block(rest))


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
    raw_sets: Sequence[Any], per_set: Sequence[Mapping[str, Any]] | None, title: str
) -> RenderableType:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("tiles")
    table.add_column("")
    for i, raw in enumerate(raw_sets):
        verdict = per_set[i] if per_set is not None and i < len(per_set) else None
        mark: RenderableType = ""
        if verdict is not None and not verdict["valid"]:
            mark = set_verdict(verdict)
        table.add_row(
            _set_label(raw, i),
            tiles_text(set_tiles(raw), empty="(empty)"),
            mark,
            style=None if verdict is None or verdict["valid"] else "on grey15",
        )
    if not raw_sets:
        table.add_row("", Text("(empty table)", style="dim"), "")
    return titled(title, table)


def render_verify(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    before = body.get("before") or []
    after = body.get("after") or []
    violations = result.get("violations") or []
    console.print(_turn_sets_table(before, None, "Before"))
    console.print(_turn_sets_table(after, _after_results(after, violations), "After"))
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    facts.add_row("Rack", tiles_text(body.get("rack") or []))
    facts.add_row("Played", tiles_text(result.get("played") or []))
    facts.add_row("Rack after", tiles_text(result.get("rack_after") or [], empty="(empty: went out)"))
    facts.add_row(
        "Opened", f"{'yes' if body.get('opened') else 'no'} → {'yes' if result.get('opened_after') else 'no'}"
    )
    if result.get("initial_meld"):
        facts.add_row("Initial meld", _meld_value_text(result["initial_meld"]))
    if result.get("jokers_freed"):
        facts.add_row("Jokers freed", str(result["jokers_freed"]))
    console.print(facts)
    console.print()
    if result.get("valid"):
        action = "draw (nothing played)" if result.get("action") == "draw" else "play"
        good = f"legal {action}" + (" — the player went out" if result.get("rack_empty") else "")
        console.print(verdict_line(True, good, ""))
    else:
        penalty = result.get("penalty") or {}
        console.print(verdict_line(False, "", f"illegal turn: {penalty_text(penalty)}"))
        if kept_position(penalty):
            console.print(sets_table(penalty.get("kept") or [], None, title="Kept on the table"))
            console.print(Text("Returned to the rack  ", style="bold") + tiles_text(penalty.get("returned") or []))
        console.print(violations_block(violations))


def kept_position(penalty: Mapping[str, Any]) -> bool:
    """The penalty keeps the valid sets (``timeout_keeps_valid_sets``) instead of restoring."""
    return penalty.get("restore_table") is False


def penalty_text(penalty: Mapping[str, Any]) -> str:
    """``table restored, penalty draw 3`` or, when sets are kept, what stays and goes back."""
    draw = penalty.get("draw", 0)
    if not kept_position(penalty):
        return f"table restored, penalty draw {draw}"
    kept = len(penalty.get("kept") or [])
    returned = len(penalty.get("returned") or [])
    return (
        f"{kept} valid set{'s' if kept != 1 else ''} kept, {returned} tile{'s' if returned != 1 else ''} "
        f"back to the rack, penalty draw {draw}"
    )


def _signed(value: Any) -> str:
    if isinstance(value, int | float) and value > 0:
        return f"+{value:g}" if isinstance(value, float) else f"+{value}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _score_style(value: Any) -> str:
    if isinstance(value, int | float):
        return "green" if value > 0 else "red" if value < 0 else ""
    return ""


def _meld_value_text(meld: Mapping[str, Any]) -> str:
    """An opening's value; "at least" when the engine reports a lower bound (``exact`` false)."""
    value = str(meld.get("value"))
    return value if meld.get("exact", True) else f"at least {value}"


def round_table(body: Mapping[str, Any] | None, result: Mapping[str, Any], title: str | None = None) -> RenderableType:
    players = {}
    if isinstance(body, Mapping):
        for p in body.get("players") or []:
            if isinstance(p, Mapping):
                players[p.get("name")] = p
    winners = set(result.get("winners") or [])
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("player")
    table.add_column("rack")
    table.add_column("rack value", justify="right")
    table.add_column("score", justify="right")
    for s in result.get("scores") or []:
        name = str(s.get("name"))
        rack = players.get(s.get("name"), {}).get("rack")
        table.add_row(
            Text(name + (" ★" if name in winners else ""), style="bold" if name in winners else ""),
            tiles_text(rack or [], empty="(empty)") if rack is not None else Text(""),
            str(s.get("rack_value")),
            Text(_signed(s.get("score")), style=_score_style(s.get("score"))),
        )
    return titled(title, table)


def _round_caption(result: Mapping[str, Any]) -> Text:
    winners = result.get("winners") or []
    ended = "a player went out" if result.get("ended_by") == "rack_empty" else "the pool ran out"
    if result.get("winner") is not None:
        who = f"{result['winner']} wins"
    elif winners:
        who = f"{', '.join(map(str, winners))} share the win"
    else:
        who = "no winner"
    return Text(f"{who} ({ended})", style="bold")


def render_round(console: Console, body: Mapping[str, Any] | None, result: Mapping[str, Any]) -> None:
    console.print(round_table(body, result))
    console.print(_round_caption(result))


def render_match(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    rounds = body.get("rounds") or []
    for i, r in enumerate(result.get("rounds") or []):
        round_body = rounds[i] if i < len(rounds) and isinstance(rounds[i], Mapping) else None
        console.print(round_table(round_body, r, title=f"Round {i + 1}"))
        console.print(Text("  ") + _round_caption(r))
    totals = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    totals.add_column("place", justify="right", style="dim")
    totals.add_column("player")
    totals.add_column("total", justify="right")
    by_name = {t.get("name"): t.get("total") for t in result.get("totals") or []}
    for place, name in enumerate(result.get("standings") or [], start=1):
        total = by_name.get(name)
        totals.add_row(str(place), str(name), Text(_signed(total), style=_score_style(total)))
    console.print(titled("Totals", totals))
    winners = result.get("winners") or ([result["winner"]] if result.get("winner") else [])
    if result.get("winner") is not None:
        console.print(Text(f"{result['winner']} wins the match", style="bold"))
    elif winners:
        console.print(Text(f"{', '.join(map(str, winners))} share the match", style="bold"))


def _turn_line(turn: Mapping[str, Any]) -> Text:
    text = Text()
    mark = OK if turn.get("valid") else BAD
    text.append_text(mark)
    text.append(f" {turn.get('index'):>3} ", style="dim")
    text.append(f"{turn.get('player')!s:<10} ")
    action = str(turn.get("action"))
    text.append(f"{action:<12} ", style="cyan")
    if turn.get("tile") is not None:
        text.append_text(tile_text(str(turn["tile"])))
    elif turn.get("played"):
        text.append_text(tiles_text(turn["played"]))
    if turn.get("rack_empty"):
        text.append("  went out", style="bold green")
    if turn.get("initial_meld"):
        text.append(f"  opens with {_meld_value_text(turn['initial_meld'])}", style="green")
    penalty = turn.get("penalty")
    if isinstance(penalty, Mapping) and kept_position(penalty):
        text.append(f"  {penalty_text(penalty)}", style="yellow")
        if penalty.get("returned"):
            text.append_text(Text(" (returned: ", style="yellow") + tiles_text(penalty["returned"]) + Text(")"))
    return text


def render_replay(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    for turn in result.get("turns") or []:
        console.print(_turn_line(turn))
        for v in turn.get("violations") or []:
            console.print(Text("        ✗ ", style="bold red") + violation_text(v))
        analysis = turn.get("analysis")
        if isinstance(analysis, Mapping) and analysis.get("play_existed"):
            best = analysis.get("best") or {}
            what = "an opening was possible: " if analysis.get("opening") else "a play was possible: "
            console.print(Text(f"        ! {what}", style="yellow") + tiles_text(best.get("played") or []))
    summary = result.get("analysis")
    if isinstance(summary, Mapping):
        console.print(
            Text(
                f"Analysis: {summary.get('draws_analyzed', 0)} draws checked, "
                f"{len(summary.get('missed_plays') or [])} missed plays, "
                f"{len(summary.get('late_openings') or [])} late openings",
                style="yellow",
            )
        )
    game_violations = result.get("violations") or []
    if game_violations:
        console.print(violations_block(game_violations, "The record"))
    console.print()
    if result.get("result"):
        render_round(console, None, result["result"])
        unnamed = [s for s in result["result"].get("scores") or [] if s.get("unnamed_tiles")]
        if unnamed:
            held = ", ".join(f"{s.get('name')} {s['unnamed_tiles']}" for s in unnamed)
            console.print(
                Text(
                    f"Scores count only the tiles the record names; unnamed tiles (drawn without a pool): {held}",
                    style="yellow",
                )
            )
    first = result.get("first_invalid_turn")
    if result.get("valid"):
        console.print(verdict_line(True, "every turn is legal", ""))
    elif first is not None:
        console.print(verdict_line(False, "", f"turn {first} is illegal"))
    else:
        found = ", ".join(dict.fromkeys(str(v.get("code")) for v in game_violations))
        console.print(verdict_line(False, "", f"the game record is not a legal game ({found})"))


def render_position(console: Console, doc: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    console.print(sets_table(doc.get("table") or [], result.get("sets") or [], title="Table"))
    players = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    players.add_column("player")
    players.add_column("opened")
    players.add_column("tiles", justify="right")
    players.add_column("rack")
    for p in doc.get("players") or []:
        if not isinstance(p, Mapping):
            continue
        rack = p.get("rack") or []
        players.add_row(
            str(p.get("name", "?")),
            "yes" if p.get("opened") else "no",
            str(len(rack)),
            tiles_text(rack, empty="(empty)"),
        )
    console.print(titled("Players", players))
    pool = doc.get("pool")
    if isinstance(pool, list):
        console.print(Text(f"Pool  {len(pool)} tiles  ", style="bold") + tiles_text(pool))
    elif isinstance(pool, int):
        console.print(Text(f"Pool  {pool} tiles", style="bold"))
    console.print(verdict_line(bool(result.get("valid")), "the table is valid", "the table has invalid sets"))


def render_rules_list(console: Console, listing: Any) -> None:
    presets = listing.get("presets") if isinstance(listing, Mapping) else listing
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("preset", style="bold")
    table.add_column("description")
    if isinstance(presets, Mapping):
        items: list[tuple[str, Any]] = list(presets.items())
    elif isinstance(presets, list):
        items = [
            (str(p.get("name") or p.get("preset")), p) if isinstance(p, Mapping) else (str(p), {}) for p in presets
        ]
    else:
        items = []
    for name, info in items:
        description = info.get("description", "") if isinstance(info, Mapping) else ""
        table.add_row(name, str(description))
    console.print(table)
    console.print(Text("Show one preset's settings with: rummikub rules PRESET", style="dim"))


def render_rules_one(console: Console, preset: Mapping[str, Any]) -> None:
    settings = preset.get("settings") if isinstance(preset.get("settings"), Mapping) else preset
    name = preset.get("name") or preset.get("preset") or (settings or {}).get("preset")
    console.print(Text(str(name), style="bold"))
    if preset.get("description"):
        console.print(str(preset["description"]))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("setting")
    table.add_column("value")
    for key, value in (settings or {}).items():
        if key in ("preset", "name", "description"):
            continue
        table.add_row(str(key), json.dumps(value))
    console.print(table)


def render_arrange(console: Console, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    console.print(Text("Tiles  ", style="bold") + tiles_text(body.get("tiles") or []))
    arrangeable = result.get("arrangeable")
    if arrangeable:
        console.print(sets_table(result.get("sets") or [], None, title="Arrangement"))
        console.print(verdict_line(True, "every tile fits in a valid set", ""))
    elif arrangeable is None:
        console.print(Text("? the time budget ran out before the answer was known", style="bold yellow"))
    else:
        console.print(verdict_line(False, "", "these tiles cannot all be laid out in valid sets"))


def _no_play(body: Mapping[str, Any], result: Mapping[str, Any], lang: str) -> str:
    """Why a suggestion plays nothing: none found in time, no opening worth the minimum, or none."""
    es = lang == "es"
    if not result.get("optimal_proven", True):
        if es:
            return "No se encontró jugada en el tiempo disponible (puede haberla): roba una ficha."
        return "No play found within the time budget (one may exist): draw a tile."
    if body.get("opened") is False:
        try:
            minimum = resolve_rules(body.get("rules")).initial_meld_min
        except RulesError:  # (the request was answered: its rules are readable)
            minimum = None
        if minimum:
            if es:
                return f"Ninguna jugada legal: roba una ficha (ninguna primera jugada llega a los {minimum} puntos)."
            return f"No legal play: draw a tile (no opening reaches the {minimum} points it needs)."
    return "Ninguna jugada legal: roba una ficha." if es else "No legal play: draw a tile."


def render_suggest(console: Console, body: Mapping[str, Any], result: Mapping[str, Any], lang: str = "en") -> None:
    console.print(sets_table(body.get("table") or [], None, title="Table"))
    console.print(Text("Rack    ", style="bold") + tiles_text(body.get("rack") or []))
    played = result.get("played") or []
    if not played:
        console.print(Text(_no_play(body, result, lang), style="bold yellow"))
        return
    console.print(Text("Play    ", style="bold") + tiles_text(played) + Text(f"  (worth {result.get('value')})"))
    console.print(sets_table(result.get("after") or [], None, title="Table after the move"))
    changes = result.get("changes")
    if isinstance(changes, Mapping):
        before = [[canonical(t) for t in set_tiles(s)] for s in body.get("table") or []]
        console.print(Text("Pasos" if lang == "es" else "Steps", style="bold"))
        for n, step in enumerate(move_steps(before, changes, lang), 1):
            console.print(f"  {n}. {step}")
    if not result.get("optimal_proven"):
        console.print(Text("(not proven optimal: the search budget ran out)", style="dim"))
