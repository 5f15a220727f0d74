"""Pictures of positions and turns as self-contained SVG (issue #17).

Pure functions from engine values to an SVG string, in the manner of python-chess's
``chess.svg``: the CLI (``rummikub show --format svg``, ``replay --html``), the service
(``POST /v1/render``) and notebooks all draw with them.

- :func:`rack_svg` – a row of tiles;
- :func:`table_svg` – a table (every set read, invalid sets outlined in red with their code),
  optionally with racks and the pool's size;
- :func:`turn_svg` – a turn, before → after, judged by :func:`engine.turns.verify_turn`: tiles
  played this turn are outlined in green (on ``after`` and on the rack), jokers freed from the
  ``before`` table in dashed purple, each invalid after-set outlined with its code, and the
  violations written out in words (English or Spanish).

Tiles are rounded rectangles with the number in the tile's colour (K black, B blue, O orange,
R red) and the colour letter beneath it; a joker shows a face and the tile it stands for. Every
tile and every set is a ``<g>`` carrying a ``<title>`` (read by screen readers, shown as a
tooltip) and ``data-*`` attributes (``data-tile``, ``data-color``, ``data-code``) for scripts
and tests. The drawing has a ``viewBox``, so it scales; at 100 % a tile is 36 × 50 px. The same
input always gives byte-identical output.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.rules import SABRA, Rules
from engine.sets import RUN, SetReading, TableSet, as_table
from engine.tiles import COLOR_NAMES, JOKER_KEY, Tile
from engine.turns import TurnVerdict, verify_turn
from engine.validate import validate_sets
from engine.violations import SET_CODES, Count, Violation

__all__ = ["COLORS_HEX", "RackView", "rack_svg", "table_svg", "turn_svg"]

COLORS_HEX: dict[str, str] = {"K": "#1a1a1a", "B": "#1565c0", "O": "#e65100", "R": "#c62828"}
"""Ink of each tile colour (black, blue, orange, red)."""
JOKER_HEX = "#6a1b9a"
PLAYED_HEX = "#2e7d32"
FREED_HEX = "#8e24aa"
INVALID_HEX = "#d32f2f"
TILE_FACE = "#fffdf4"
TILE_EDGE = "#9e9e9e"

TILE_W, TILE_H, TILE_GAP = 36, 50, 3
SET_GAP, ROW_GAP, PAD = 22, 26, 16
HEADING_H, HEADING_LINE_H, LINE_H = 26, 21, 18
MIN_WIDTH = 600
TILES_PER_ROW = 24
"""A table row holds about this many tiles before the next set starts a new row."""
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "table": "Table",
        "before": "Before",
        "after": "After",
        "rack": "Rack",
        "pool": "Pool: {n:tile/tiles}",
        "empty_table": "(empty table)",
        "empty_rack": "(empty rack)",
        "set": "Set {n}",
        "loose": "Tiles laid, not arranged",
        "worth": "{kind}, worth {value}",
        "run": "run",
        "group": "group",
        "invalid": "invalid",
        "joker": "joker",
        "joker_as": "joker as {tile}",
        "played": "played this turn",
        "freed": "freed joker",
        "played_list": "Played: {tiles}",
        "legal_play": "Legal play",
        "legal_draw": "Legal draw (nothing played)",
        "went_out": " — the player went out",
        "illegal": "Illegal turn: {n:violation/violations}",
        "opened": "opened",
        "not_opened": "not opened",
        "table_valid": "every set is valid",
        "table_invalid": "{n:invalid set/invalid sets}",
        "sets": "{n:set/sets}",
        "legend": "green outline: played this turn · dashed purple: freed joker · red outline: invalid set or violation",
    },
    "es": {
        "table": "Mesa",
        "before": "Antes",
        "after": "Después",
        "rack": "Atril",
        "pool": "Pozo: {n:ficha/fichas}",
        "empty_table": "(mesa vacía)",
        "empty_rack": "(atril vacío)",
        "set": "Combinación {n}",
        "loose": "Fichas puestas, sin ordenar",
        "worth": "{kind}, vale {value}",
        "run": "escalera",
        "group": "grupo",
        "invalid": "no válida",
        "joker": "comodín",
        "joker_as": "comodín como {tile}",
        "played": "ficha jugada en este turno",
        "freed": "comodín liberado",
        "played_list": "Fichas jugadas: {tiles}",
        "legal_play": "Jugada legal",
        "legal_draw": "Robo legal (no se jugó nada)",
        "went_out": " — el jugador se quedó sin fichas",
        "illegal": "Turno ilegal: {n:infracción/infracciones}",
        "opened": "ha abierto",
        "not_opened": "no ha abierto",
        "table_valid": "todas las combinaciones son válidas",
        "table_invalid": "{n:combinación no válida/combinaciones no válidas}",
        "sets": "{n:combinación/combinaciones}",
        "legend": "borde verde: ficha jugada en este turno · morado discontinuo: comodín liberado · borde rojo: combinación no válida o infracción",
    },
}
_COLOR_NAMES_ES = {"K": "negro", "B": "azul", "O": "naranja", "R": "rojo"}


def _w(lang: str) -> dict[str, str]:
    return _WORDS.get(lang, _WORDS["en"])


# --- text --------------------------------------------------------------------------------------

_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
"""Characters a picture never writes as they are (those ``cli.render.printable`` escapes for
the terminal, and U+FFFE, U+FFFF): control characters and lone surrogates (XML 1.0 cannot
hold most of them), the line and paragraph separators, and the bidirectional overrides and
isolates, which reorder the text after them (a name ``B\\u202e`` turned "B -12, C -11" into
"B11- C ,21-": an audit, session 52)."""


def _visible(text: str) -> str:
    """``text`` with the characters of ``_UNSHOWN`` written as escapes (``\\x1b``, ``\\u202e``)."""
    return _UNSHOWN.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _esc(text: str) -> str:
    """XML-escaped text (attribute-safe), the characters of ``_UNSHOWN`` written as escapes."""
    text = _visible(text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


_WIDEST = frozenset("MWmwŒÆœæЖШЩЮжшщю%@…—")


def _bold_em(ch: str) -> float:
    """A character's estimated width in bold, in ems, at least its width in DejaVu Sans Bold
    (W 1.11, m 1.04, N 0.84, n 0.71, space 0.35, measured in Chromium)."""
    if unicodedata.combining(ch):
        return 0.0
    if ch in _WIDEST or unicodedata.east_asian_width(ch) in "WF":
        return 1.25
    if ch == " ":
        return 0.35
    return 0.9 if ch.isupper() else 0.72


def _wrap_bold(text: str, room: float) -> list[str]:
    """``text`` in lines of bold characters at most ``room`` ems wide (estimated), broken at
    spaces, and a word wider than a line broken where it reaches the edge."""
    lines: list[str] = []
    line, used = "", 0.0
    for word in text.split(" "):
        width = sum(_bold_em(ch) for ch in word)
        if line and used + _bold_em(" ") + width <= room:
            line, used = f"{line} {word}", used + _bold_em(" ") + width
            continue
        if line:
            lines.append(line)
            line, used = "", 0.0
        for ch in word:
            em = _bold_em(ch)
            if line and used + em > room:
                lines.append(line)
                line, used = "", 0.0
            line, used = line + ch, used + em
    lines.append(line)
    return lines


def _tile_words(tile: Tile, lang: str, shown_as: Tile | None = None) -> str:
    """``R5 (red 5)``; ``J=R6 (joker as red 6)``."""
    if tile.color is None:
        stands = tile.declared or shown_as
        what = _w(lang)["joker"] if stands is None else _w(lang)["joker_as"].format(tile=_tile_words(stands, lang))
        return f"{tile.code} ({what})"
    names = _COLOR_NAMES_ES if lang == "es" else COLOR_NAMES
    return f"{tile.code} ({names[tile.color]} {tile.number})"


# --- drawing ---------------------------------------------------------------------------------


class RackView(NamedTuple):
    """A rack to draw under a table: its tiles, with an optional player name and opened flag."""

    tiles: Sequence[Tile]
    name: str | None = None
    opened: bool | None = None


@dataclass(slots=True)
class _Canvas:
    """Drawing parts and the height used so far (y grows downwards)."""

    width: int
    lang: str
    title: str
    parts: list[str] = field(default_factory=list)
    y: int = PAD

    def text(self, x: float, y: float, text: str, size: int = 13, fill: str = "#212121", weight: str = "") -> None:
        bold = f' font-weight="{weight}"' if weight else ""
        self.parts.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}"{bold}>{_esc(text)}</text>')

    def heading(self, text: str) -> None:
        """A bold line, wrapped to the picture's width as ``lines`` wraps, by the characters'
        estimated widths (a long player name pushed "(opened)" off the picture: an audit,
        session 52)."""
        self.y += 4
        for i, piece in enumerate(_wrap_bold(_visible(text), (self.width - 2 * PAD) / 16)):
            if i:
                self.y += HEADING_LINE_H
            self.text(PAD, self.y + 16, piece, 16, weight="bold")
        self.y += HEADING_H

    def lines(self, lines: Iterable[str], fill: str = "#212121", size: int = 13) -> None:
        chars = max(30, int((self.width - 2 * PAD) / (size * 0.6)))
        for line in lines:
            for piece in textwrap.wrap(_visible(line), chars) or [""]:
                self.text(PAD, self.y + size, piece, size, fill)
                self.y += LINE_H

    def finish(self) -> str:
        height = self.y + PAD
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height}" '
            f'viewBox="0 0 {self.width} {height}" font-family="{FONT}" role="img" lang="{self.lang}">'
        )
        return "".join(
            [
                head,
                f"<title>{_esc(self.title)}</title>",
                f'<rect class="background" x="0" y="0" width="{self.width}" height="{height}" fill="#ffffff"/>',
                *self.parts,
                "</svg>\n",
            ]
        )


def _tile(parts: list[str], x: int, y: int, tile: Tile, lang: str, shown_as: Tile | None, marks: str) -> None:
    """One tile at (x, y). ``marks``: "" or "played" or "freed"."""
    cx = x + TILE_W / 2
    color = "joker" if tile.color is None else COLOR_NAMES[tile.color]
    words = _tile_words(tile, lang, shown_as)
    if marks:
        words += f" — {_w(lang)[marks]}"
    cls = f"tile {marks}" if marks else "tile"
    edge, stroke, dash = TILE_EDGE, 1, ""
    if marks == "played":
        edge, stroke = PLAYED_HEX, 3
    elif marks == "freed":
        edge, stroke, dash = FREED_HEX, 3, ' stroke-dasharray="5 3"'
    parts.append(
        f'<g class="{cls}" data-tile="{_esc(tile.code)}" data-color="{color}"><title>{_esc(words)}</title>'
        f'<rect x="{x}" y="{y}" width="{TILE_W}" height="{TILE_H}" rx="6" fill="{TILE_FACE}" '
        f'stroke="{edge}" stroke-width="{stroke}"{dash}/>'
    )
    if tile.color is not None:
        ink = COLORS_HEX[tile.color]
        parts.append(
            f'<text x="{cx:g}" y="{y + 29}" font-size="21" font-weight="bold" fill="{ink}" '
            f'text-anchor="middle">{tile.number}</text>'
            f'<text x="{cx:g}" y="{y + 44}" font-size="9" fill="{ink}" text-anchor="middle">{tile.color}</text></g>'
        )
        return
    stands = tile.declared or shown_as
    fy = y + 18
    parts.append(
        f'<circle cx="{cx:g}" cy="{fy}" r="11" fill="#fff3e0" stroke="{JOKER_HEX}" stroke-width="1.6"/>'
        f'<circle cx="{cx - 4:g}" cy="{fy - 3}" r="1.6" fill="{JOKER_HEX}"/>'
        f'<circle cx="{cx + 4:g}" cy="{fy - 3}" r="1.6" fill="{JOKER_HEX}"/>'
        f'<path d="M{cx - 6:g} {fy + 3} Q{cx:g} {fy + 10} {cx + 6:g} {fy + 3}" fill="none" '
        f'stroke="{JOKER_HEX}" stroke-width="1.6"/>'
    )
    label, ink = ("J", JOKER_HEX) if stands is None or stands.color is None else (stands.code, COLORS_HEX[stands.color])
    parts.append(
        f'<text x="{cx:g}" y="{y + 44}" font-size="11" font-weight="bold" fill="{ink}" '
        f'text-anchor="middle">{_esc(label)}</text></g>'
    )


def _tiles_width(count: int) -> int:
    return count * TILE_W + max(0, count - 1) * TILE_GAP


def _shown_jokers(reading: SetReading, tiles: Sequence[Tile]) -> list[Tile | None]:
    """For each tile, the tile an undeclared joker stands for in the set's best reading when
    that reading fixes it (a run; a group with one colour left), else None. A run laid in
    sequence gives each joker its place; otherwise the (interchangeable) jokers take the
    reading's tiles in turn."""
    best = reading.best
    out: list[Tile | None] = [None] * len(tiles)
    if best is None:
        return out
    declared = [t.declared.key for t in tiles if t.declared is not None]
    free: list[Tile] = []
    for tile, options in zip((t for t in best.tiles if t.color is None), best.joker_options, strict=False):
        if len(options) != 1:
            continue
        if tile.declared is not None and tile.declared.key in declared and tiles != best.tiles:
            declared.remove(tile.declared.key)
            continue
        free.append(options[0])
    undeclared = [i for i, t in enumerate(tiles) if t.color is None and t.declared is None]
    if best.kind == RUN and free:
        by_number = {t.number: t for t in free}
        for step in (1, -1):
            starts = {t.number - step * i for i, t in enumerate(tiles) if t.color is not None}
            if len(starts) == 1:
                start = starts.pop()
                placed = [by_number.get(start + step * i) for i in undeclared]
                if all(p is not None for p in placed):
                    for i, p in zip(undeclared, placed, strict=True):
                        out[i] = p
                    return out
        free.sort(key=lambda t: t.number)
    for i, p in zip(undeclared, free, strict=False):
        out[i] = p
    return out


@dataclass(frozen=True, slots=True)
class _SetView:
    table_set: TableSet
    reading: SetReading
    violations: tuple[Violation, ...]
    marks: tuple[str, ...]  # per tile: "" | "played" | "freed"


def _set_title(index: int, view: _SetView, lang: str) -> str:
    words = _w(lang)
    name = words["set"].format(n=index + 1)
    if view.table_set.id is not None:
        name += f" ({view.table_set.id})"
    tiles = " ".join(t.code for t in view.table_set.tiles) or "—"
    kind = words.get(view.reading.kind or "", view.reading.kind or "")
    worth = words["worth"].format(kind=kind, value=view.reading.value)
    if not view.violations:
        return f"{name}: {tiles} — {worth}"
    reasons = "; ".join(f"{v.set_code or v.code}: {v.message(lang)}" for v in view.violations)
    if view.reading.valid and not any((v.set_code or v.code) in SET_CODES for v in view.violations):
        # a valid set outlined for a turn's violation (a tile not on the rack, a joker not
        # replaced): it is not "invalid" (the language audit, session 53)
        return f"{name}: {tiles} — {worth}; {reasons}"
    return f"{name}: {tiles} — {words['invalid']}: {reasons}"


def _per_row(canvas: _Canvas) -> int:
    """How many tiles one row of the canvas holds."""
    return max(1, (canvas.width - 2 * PAD + TILE_GAP) // (TILE_W + TILE_GAP))


def _block(count: int, per_row: int) -> tuple[int, int]:
    """Width and height of ``count`` tiles in rows of ``per_row``."""
    rows = max(1, (count + per_row - 1) // per_row)
    return max(_tiles_width(min(count, per_row)), TILE_W), rows * TILE_H + (rows - 1) * 8


def _outline(canvas: _Canvas, x: int, y: int, width: int, height: int, code: str) -> None:
    """An invalid set's red outline, its code written above it."""
    canvas.parts.append(
        f'<rect class="outline" x="{x - 5}" y="{y - 5}" width="{width + 10}" height="{height + 10}" rx="9" '
        f'fill="#ffebee" stroke="{INVALID_HEX}" stroke-width="2.5"/>'
    )
    canvas.text(x - 4, y - 8, code, 11, INVALID_HEX, "bold")


def _place(
    canvas: _Canvas,
    x: int,
    y: int,
    tiles: Sequence[Tile],
    shown: Sequence[Tile | None],
    marks: Sequence[str],
    per_row: int,
) -> None:
    """``tiles`` in rows of ``per_row`` from (x, y)."""
    for i, tile in enumerate(tiles):
        row, col = divmod(i, per_row)
        left, top = x + col * (TILE_W + TILE_GAP), y + row * (TILE_H + 8)
        _tile(canvas.parts, left, top, tile, canvas.lang, shown[i], marks[i])


def _draw_sets(canvas: _Canvas, views: Sequence[_SetView], empty: str) -> None:
    """Sets left to right, a new row when the next set would pass the canvas's width. A set of
    more tiles than a row holds (an invalid one: a loose ``after``'s tiles nobody laid out, up
    to thousands) is wrapped onto rows of its own: the picture does not widen with it."""
    if not views:
        canvas.text(PAD, canvas.y + 14, empty, 13, "#757575")
        canvas.y += LINE_H + 4
        return
    x, y = PAD, canvas.y + 16  # room above each row for an invalid set's code
    right = canvas.width - PAD
    per_row, tallest = _per_row(canvas), TILE_H
    for index, view in enumerate(views):
        tiles = view.table_set.tiles
        invalid = bool(view.violations)
        code = ""
        if invalid:
            v = view.violations[0]
            code = v.set_code or v.code
        width, height = _block(len(tiles), per_row)
        room = max(width, len(code) * 7)  # an invalid set's code is written above it
        if x > PAD and x + room > right:
            x, y, tallest = PAD, y + tallest + ROW_GAP, TILE_H
        tallest = max(tallest, height)
        state = "invalid" if invalid else "valid"
        code_attr = f' data-code="{_esc(code)}"' if invalid else ""
        canvas.parts.append(
            f'<g class="set {state}" data-index="{index}"{code_attr}><title>{_esc(_set_title(index, view, canvas.lang))}</title>'
        )
        if invalid:
            _outline(canvas, x, y, width, height, code)
        _place(canvas, x, y, tiles, _shown_jokers(view.reading, tiles), view.marks, per_row)
        canvas.parts.append("</g>")
        x += room + SET_GAP
    canvas.y = y + tallest + 12


def _draw_loose(canvas: _Canvas, tiles: Sequence[Tile], violations: Sequence[Violation], marks: Sequence[str]) -> None:
    """A loose ``after`` that no arrangement was found for: its tiles as laid, in rows wrapped to
    the picture's width (it may hold a hundred tiles and more), outlined with the violation
    (NO_ARRANGEMENT, ARRANGEMENT_NOT_FOUND) as an invalid set is. Before, the picture said
    "(empty table)" there (an audit, session 52)."""
    words = _w(canvas.lang)
    if not tiles:
        _draw_sets(canvas, (), words["empty_table"])
        return
    per_row = _per_row(canvas)
    width, height = _block(len(tiles), per_row)
    x, y = PAD, canvas.y + 16  # room above for the code, as above an invalid set
    title = f"{words['loose']}: {' '.join(t.code for t in tiles)}"
    if violations:
        reasons = "; ".join(f"{v.code}: {v.message(canvas.lang)}" for v in violations)
        title += f" — {words['invalid']}: {reasons}"
        canvas.parts.append(
            f'<g class="set invalid loose" data-code="{_esc(violations[0].code)}"><title>{_esc(title)}</title>'
        )
        _outline(canvas, x, y, width, height, violations[0].code)
    else:
        canvas.parts.append(f'<g class="set loose"><title>{_esc(title)}</title>')
    _place(canvas, x, y, tiles, [None] * len(tiles), marks, per_row)
    canvas.parts.append("</g>")
    canvas.y = y + height + 12


def _draw_rack(canvas: _Canvas, tiles: Sequence[Tile], marks: Sequence[str] | None = None) -> None:
    if not tiles:
        canvas.text(PAD, canvas.y + 14, _w(canvas.lang)["empty_rack"], 13, "#757575")
        canvas.y += LINE_H + 4
        return
    per_row = max(1, (canvas.width - 2 * PAD + TILE_GAP) // (TILE_W + TILE_GAP))
    canvas.parts.append('<g class="rack">')
    for i, tile in enumerate(tiles):
        row, col = divmod(i, per_row)
        x = PAD + col * (TILE_W + TILE_GAP)
        y = canvas.y + 4 + row * (TILE_H + 8)
        _tile(canvas.parts, x, y, tile, canvas.lang, None, marks[i] if marks else "")
    canvas.parts.append("</g>")
    rows = (len(tiles) + per_row - 1) // per_row
    canvas.y += 4 + rows * (TILE_H + 8) + 6


def _width(tables: Iterable[Sequence[TableSet]], racks: Iterable[Sequence[Tile]] = ()) -> int:
    """Wide enough for the widest set (up to a row of ``TILES_PER_ROW`` tiles: a longer one is
    wrapped), and for such a row when the content needs that much."""
    row = _tiles_width(TILES_PER_ROW)
    wanted = 0
    for table in tables:
        widths = [min(row, _tiles_width(len(s.tiles))) for s in table]  # a longer set is wrapped
        natural = sum(widths) + SET_GAP * max(0, len(widths) - 1)
        wanted = max(wanted, max(widths, default=0), min(natural, row))
    for rack in racks:
        wanted = max(wanted, min(row, _tiles_width(len(rack))))
    return max(MIN_WIDTH, wanted + 2 * PAD + 10)


# --- public ------------------------------------------------------------------------------------


def rack_svg(rack: Sequence[Tile], *, title: str | None = None, lang: str = "en") -> str:
    """A rack (any row of tiles) as SVG."""
    tiles = tuple(rack)
    heading = title if title is not None else _w(lang)["rack"]
    canvas = _Canvas(
        max(MIN_WIDTH, min(_tiles_width(len(tiles)), _tiles_width(TILES_PER_ROW)) + 2 * PAD), lang, heading
    )
    canvas.heading(heading)
    _draw_rack(canvas, tiles)
    return canvas.finish()


def table_svg(
    table: Sequence[TableSet | Sequence[Tile]],
    rules: Rules = SABRA,
    *,
    racks: Sequence[RackView] = (),
    pool: int | None = None,
    lang: str = "en",
    title: str | None = None,
) -> str:
    """A table as SVG: every set read under ``rules`` (invalid sets, and sets breaking the tile
    supply, outlined with their code), then each rack of ``racks`` and the pool's size."""
    words = _w(lang)
    sets = as_table(table)
    verdict = validate_sets(sets, rules)
    views = [
        _SetView(s, v.reading, v.violations, ("",) * len(s.tiles)) for s, v in zip(sets, verdict.sets, strict=True)
    ]
    invalid = sum(1 for v in views if v.violations)
    state = words["table_invalid"].format(n=Count(invalid)) if invalid else words["table_valid"]
    heading = f"{words['table']} — {words['sets'].format(n=Count(len(sets)))}, {state}"
    canvas = _Canvas(_width([sets], [r.tiles for r in racks]), lang, title or heading)
    canvas.heading(heading)
    _draw_sets(canvas, views, words["empty_table"])
    for rack in racks:
        label = words["rack"] if rack.name is None else f"{words['rack']} — {rack.name}"
        if rack.opened is not None:
            label += f" ({words['opened'] if rack.opened else words['not_opened']})"
        canvas.heading(label)
        _draw_rack(canvas, tuple(rack.tiles))
    if pool is not None:
        canvas.lines([words["pool"].format(n=Count(pool))])
    return canvas.finish()


def _after_violations(count: int, violations: Sequence[Violation]) -> list[list[Violation]]:
    per_set: list[list[Violation]] = [[] for _ in range(count)]
    for v in violations:
        if v.at.startswith("/after/"):
            head = v.at[len("/after/") :].split("/", 1)[0]
            if head.isdigit() and int(head) < count:
                per_set[int(head)].append(v)
    return per_set


def _mark_played(after: Sequence[TableSet], before: Sequence[TableSet], played: Sequence[Tile]) -> list[list[str]]:
    """Which tiles of ``after`` to mark as played: ``played`` as a multiset of keys, taken
    first from after-sets that are not a before-set unchanged, in listing order."""
    left: dict[str, int] = {}
    for t in played:
        left[t.key] = left.get(t.key, 0) + 1
    unchanged = {tuple(sorted(s.codes)) for s in before}
    marks = [[""] * len(s.tiles) for s in after]
    order = [i for i, s in enumerate(after) if tuple(sorted(s.codes)) not in unchanged]
    order += [i for i, s in enumerate(after) if tuple(sorted(s.codes)) in unchanged]
    for i in order:
        for j, t in enumerate(after[i].tiles):
            if left.get(t.key, 0) > 0:
                left[t.key] -= 1
                marks[i][j] = "played"
    return marks


def _mark_freed(before: Sequence[TableSet], after: Sequence[TableSet], rules: Rules, count: int) -> list[list[str]]:
    """Which jokers of ``before`` to mark as freed (``count`` of them, from the verdict): jokers
    of before-sets that did not stay whole on ``after``, those whose tile now lies in an
    after-set taking the set's tiles first."""
    marks = [[""] * len(s.tiles) for s in before]
    if count <= 0:
        return marks
    after_keys = [set(s.keys) for s in after]
    # a multiset: of two identical before-sets only as many stayed whole as there are such
    # after-sets (two O8 J O10, one freed: one of them stays a candidate; an audit, session 52)
    unchanged = Counter(tuple(sorted(s.codes)) for s in after)
    likely: list[tuple[int, int]] = []
    others: list[tuple[int, int]] = []
    for i, s in enumerate(before):
        codes = tuple(sorted(s.codes))
        if unchanged[codes] > 0:
            unchanged[codes] -= 1
            continue
        if s.jokers == 0:
            continue
        mine = set(s.numbered_counts)
        successors = [keys for keys in after_keys if keys & mine]
        shown = _shown_jokers(s.read(rules), s.tiles)
        for j, t in enumerate(s.tiles):
            if t.color is None:
                stood = t.declared or shown[j]
                replaced = stood is not None and any(stood.key in keys for keys in successors)
                (likely if replaced else others).append((i, j))
    for i, j in (likely + others)[:count]:
        marks[i][j] = "freed"
    return marks


def _marks_in_order(tiles: Sequence[Tile], played: Sequence[Tile]) -> list[str]:
    """``played`` (a multiset of keys) marked on ``tiles``, first copies first."""
    left: dict[str, int] = {}
    for t in played:
        left[t.key] = left.get(t.key, 0) + 1
    marks = []
    for t in tiles:
        key = JOKER_KEY if t.color is None else t.key
        if left.get(key, 0) > 0:
            left[key] -= 1
            marks.append("played")
        else:
            marks.append("")
    return marks


def turn_svg(
    before: Sequence[TableSet | Sequence[Tile]],
    after: Sequence[TableSet | Sequence[Tile]],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules = SABRA,
    elapsed_seconds: float | None = None,
    *,
    verdict: TurnVerdict | None = None,
    lang: str = "en",
    title: str | None = None,
    loose: Sequence[Tile] | None = None,
    pointers: Sequence[str] | None = None,
) -> str:
    """A turn as SVG: before, after (played tiles outlined in green, invalid sets in red with
    their code), the rack (played tiles marked), freed jokers dashed on ``before``, and the
    verdict with every violation in words. ``verdict`` defaults to :func:`verify_turn`'s; give
    the one a replay found to draw that one (a loose ``after`` is drawn as ``verdict.after``),
    and ``pointers``, one per violation in its order, to show the replay's pointers into the
    record (``/turns/6/table/2``) instead of the verdict's (``/after/2``).

    ``loose``: a loose ``after`` (the tiles laid, not arranged; ``after`` is then not read),
    judged by :func:`engine.loose.verify_loose_turn` unless ``verdict`` is given. It is drawn
    as the arrangement judged, or, when none was found (NO_ARRANGEMENT, ARRANGEMENT_NOT_FOUND),
    as the tiles laid in wrapped rows, outlined with that violation."""
    words = _w(lang)
    before_sets, rack_tiles = as_table(before), tuple(rack)
    loose_tiles = None if loose is None else tuple(loose)
    after_sets = as_table(after) if loose_tiles is None else ()
    if verdict is None:
        if loose_tiles is None:
            verdict = verify_turn(before_sets, after_sets, rack_tiles, opened, rules, elapsed_seconds)
        else:
            from engine.loose import verify_loose_turn  # (the solver: only for a loose after)

            verdict = verify_loose_turn(before_sets, loose_tiles, rack_tiles, opened, rules, elapsed_seconds)
    if verdict.after is not None:
        after_sets, loose_tiles = verdict.after, None
    per_set = _after_violations(len(after_sets), verdict.violations)
    played_marks = _mark_played(after_sets, before_sets, verdict.played)
    freed_marks = _mark_freed(before_sets, after_sets, rules, verdict.jokers_freed)
    before_views = [_SetView(s, s.read(rules), (), tuple(freed_marks[i])) for i, s in enumerate(before_sets)]
    after_views = [
        _SetView(s, s.read(rules), tuple(per_set[i]), tuple(played_marks[i])) for i, s in enumerate(after_sets)
    ]
    if verdict.valid:
        outcome = words["legal_draw"] if verdict.action == "draw" else words["legal_play"]
        if verdict.rack_empty:
            outcome += words["went_out"]
    else:
        outcome = words["illegal"].format(n=Count(len(verdict.violations)))
    heading = title or f"{words['before']} → {words['after']}: {outcome}"
    canvas = _Canvas(_width([before_sets, after_sets], [rack_tiles, loose_tiles or ()]), lang, heading)
    canvas.heading(f"{words['before']} ({words['opened'] if opened else words['not_opened']})")
    _draw_sets(canvas, before_views, words["empty_table"])
    canvas.heading(words["after"])
    if loose_tiles is None:
        _draw_sets(canvas, after_views, words["empty_table"])
    else:
        at_after = [v for v in verdict.violations if v.at == "/after"]
        _draw_loose(canvas, loose_tiles, at_after, _marks_in_order(loose_tiles, verdict.played))
    canvas.heading(words["rack"])
    _draw_rack(canvas, rack_tiles, _marks_in_order(rack_tiles, verdict.played))
    summary = [words["played_list"].format(tiles=" ".join(t.code for t in verdict.played) or "—")]
    canvas.lines(summary)
    canvas.y += 4
    color = PLAYED_HEX if verdict.valid else INVALID_HEX
    canvas.parts.append('<g class="verdict">')
    canvas.text(PAD, canvas.y + 15, ("✓ " if verdict.valid else "✗ ") + outcome, 15, color, "bold")
    canvas.y += LINE_H + 6
    shown = [v.at for v in verdict.violations] if pointers is None else list(pointers)
    if len(shown) != len(verdict.violations):
        raise ValueError(f"pointers: one per violation ({len(verdict.violations)}), not {len(shown)}")
    canvas.lines(
        [
            f"✗ {v.set_code or v.code} ({v.code}) {at}: {v.message(lang)}"
            if v.set_code
            else f"✗ {v.code} {at}: {v.message(lang)}"
            for v, at in zip(verdict.violations, shown, strict=True)
        ],
        INVALID_HEX,
    )
    canvas.parts.append("</g>")
    canvas.lines([words["legend"]], "#757575", 11)
    return canvas.finish()
