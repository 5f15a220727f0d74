"""Tiles: parsing, canonical notation and the tile supplies (SPEC §1, RULES §1).

A numbered tile is a colour and a number 1–13 (``R5``); a joker is ``J`` and may carry a
declaration of the tile it stands for (``J=R5``). Parsing accepts any case, the ``Y`` alias
for orange, and the JSON object forms; formatting is always canonical upper-case.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.errors import InputError, pointer_token

COLORS: tuple[str, ...] = ("K", "B", "O", "R")
"""Canonical colour letters, in display order: black, blue, orange, red."""

COLOR_NAMES: dict[str, str] = {"K": "black", "B": "blue", "O": "orange", "R": "red"}

_COLOR_ALIASES: dict[str, str] = {
    "K": "K",
    "B": "B",
    "O": "O",
    "Y": "O",
    "R": "R",
    "BLACK": "K",
    "BLUE": "B",
    "ORANGE": "O",
    "YELLOW": "O",
    "RED": "R",
}

MIN_NUMBER = 1
MAX_NUMBER = 13
JOKER_KEY = "J"
TILE_FIELDS = frozenset(("color", "number"))
"""The fields of a numbered tile's object form (``{"color": "red", "number": 5}``)."""
JOKER_FIELDS = frozenset(("joker", "as"))
"""The fields of a joker's object form (``{"joker": true, "as": "R5"}``)."""
"""Multiset key shared by every joker: jokers are interchangeable for supply and accounting."""


class TileError(InputError):
    """A tile that cannot be read. ``pointer`` is a JSON Pointer relative to the tile ("" or
    "/color"...), so callers can prefix it with the tile's place in the request."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile. Numbered: ``color`` in COLORS and ``number`` 1–13. Joker: ``color`` is None,
    ``number`` is 0 and ``declared`` optionally holds the numbered tile it stands for.

    ``key`` is the multiset identity (``R5``; ``J`` for every joker) and ``code`` the canonical
    notation (``R5``, ``J``, ``J=R5``). Both are computed once, since tiles are compared and
    counted far more often than made.
    """

    color: str | None
    number: int
    declared: Tile | None = None
    key: str = field(init=False, repr=False, compare=False)
    code: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        color, number, declared = self.color, self.number, self.declared
        if color is None:
            if (
                type(number) is not int
                or number != 0
                or not (declared is None or (type(declared) is Tile and declared.color is not None))
            ):
                raise ValueError(
                    f"a joker is Tile(None, 0), or Tile(None, 0, declared) with a numbered tile declared, "
                    f"not Tile(None, {number!r}, {declared!r})"
                )
        elif color not in COLORS or type(number) is not int or not MIN_NUMBER <= number <= MAX_NUMBER:
            raise ValueError(
                f"a numbered tile has a colour of {', '.join(COLORS)} and a number {MIN_NUMBER}-{MAX_NUMBER}, "
                f"not Tile({color!r}, {number!r}) (parse_tile reads 'R5')"
            )
        elif declared is not None:
            raise ValueError(f"only a joker is declared as a tile, not Tile({color!r}, {number!r})")
        key = JOKER_KEY if color is None else f"{color}{number}"
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "code", key if self.declared is None else f"J={self.declared}")

    def __hash__(self) -> int:
        return hash(self.code)

    @property
    def is_joker(self) -> bool:
        """Whether the tile is a joker (it has no colour)."""
        return self.color is None

    @property
    def value(self) -> int:
        """Face value of a numbered tile (0 for a joker: its value depends on its set)."""
        return self.number

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"parse_tile({str(self)!r})"  # (eval-able with engine.parse_tile, as repr should be)

    def undeclared(self) -> Tile:
        """The same tile without a joker declaration (numbered tiles are returned as is)."""
        return JOKER if self.color is None else self


def whole_number(value: Any) -> int | None:
    """A JSON integer as an int: an int, or a float with no fractional part (JSON Schema counts
    ``5.0`` as the integer 5). None for anything else (booleans, ``5.5``, strings...)."""
    if value.__class__ is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def tile_for_key(key: str) -> Tile:
    """The undeclared tile with multiset key ``key`` (``R5``, ``J``)."""
    return _BY_KEY[key]


def numbered(color: str, number: int) -> Tile:
    """The numbered tile ``color``+``number`` (both already canonical)."""
    return _NUMBERED[color][number]


JOKER = Tile(None, 0)
_NUMBERED: dict[str, list[Tile]] = {
    c: [JOKER] + [Tile(c, n) for n in range(MIN_NUMBER, MAX_NUMBER + 1)]
    for c in COLORS  # (index = number)
}
_BY_KEY: dict[str, Tile] = {t.key: t for row in _NUMBERED.values() for t in row[1:]}
_BY_KEY[JOKER_KEY] = JOKER
_DECLARED: dict[Tile, Tile] = {t: Tile(None, 0, t) for row in _NUMBERED.values() for t in row[1:]}


def joker_as(tile: Tile) -> Tile:
    """The joker declared as the numbered ``tile`` (``J=R5``); one shared instance per tile."""
    return _DECLARED[tile]


SPACE = " \t\n\r"
"""The whitespace a tile string or colour name may carry around it: JSON's own (space, tab,
newline, carriage return), which every regular expression flavour reads alike; openapi.yaml's
patterns allow the same."""

_PARSE_CACHE: dict[str, Tile] = {}


def _parse_numbered_text(text: str, pointer: str, written: str | None = None) -> Tile:
    """The numbered tile ``text`` names; errors quote ``written`` (the whole tile as the
    request wrote it, ``j=r0`` for the declaration ``R0``), else ``text``."""
    upper = text.strip(SPACE).upper()
    text = text if written is None else written
    if len(upper) < 2:
        raise TileError(f"{text!r} is not a tile: expected a colour letter and a number, like R5", pointer)
    letter, digits = upper[0], upper[1:]
    color = _COLOR_ALIASES.get(letter) if letter in "KBOYR" else None
    if color is None:
        raise TileError(f"{text!r} has an unknown colour {letter!r}: use K, B, O (or Y) or R", pointer)
    if not digits.isdigit() or not digits.isascii():
        raise TileError(f"{text!r} is not a tile: expected a number 1-13 after the colour", pointer)
    number = int(digits)
    if not MIN_NUMBER <= number <= MAX_NUMBER:
        raise TileError(f"{text!r} has number {number}: tile numbers run from 1 to 13", pointer)
    return _NUMBERED[color][number]


def parse_tile_text(text: str) -> Tile:
    """Parse the string notation: ``R5``, ``y7``, ``J``, ``j=r5``. Raises TileError."""
    cached = _PARSE_CACHE.get(text)
    if cached is not None:
        return cached
    if len(text) > 16:
        raise TileError(f"{text[:16]!r}... is not a tile: a tile is at most 16 characters, spaces included", "")
    body = text.strip(SPACE).upper()
    if body == JOKER_KEY:
        tile = JOKER
    elif body.startswith("J="):
        if body[2:].strip(SPACE).startswith(JOKER_KEY):  # "J=J": as the object form words it
            raise TileError(f"{text!r} is not a tile: a joker must stand for a numbered tile, like J=R5", "")
        tile = joker_as(_parse_numbered_text(body[2:], "", text))
    elif body.startswith(JOKER_KEY):  # ("J" is no colour: "JR5", "J =R5" meant a joker)
        raise TileError(f"{text!r} is not a tile: a joker is J, or J=R5 for the tile it stands for", "")
    else:
        tile = _parse_numbered_text(text, "")
    if len(_PARSE_CACHE) < 4096:
        _PARSE_CACHE[text] = tile
    return tile


def parse_tile(value: Any) -> Tile:
    """Parse a tile in any accepted form: a string or one of the JSON object forms
    ``{"color": "red", "number": 5}``, ``{"joker": true}``, ``{"joker": true, "as": "R5"}``.
    Raises TileError with a pointer relative to the tile."""
    if isinstance(value, Tile):
        return value
    if isinstance(value, str):
        return parse_tile_text(value)
    if isinstance(value, Mapping):
        return _parse_tile_object(value)
    raise TileError(f"a tile must be a string like 'R5' or an object, not {_json_type(value)}")


def _parse_tile_object(obj: Mapping[str, Any]) -> Tile:
    keys = set(obj)
    if "joker" in obj:
        unknown = keys - JOKER_FIELDS
        if unknown:
            key = sorted(unknown)[0]
            raise TileError(f"unknown field {key!r} in a joker object", f"/{pointer_token(key)}")
        if obj["joker"] is not True:
            raise TileError("'joker' must be true", "/joker")
        if "as" not in obj or obj["as"] is None:
            return JOKER
        declared = obj["as"]
        if isinstance(declared, Mapping) and "joker" in declared:  # (read, it recursed per level)
            raise TileError("a joker must stand for a numbered tile", "/as")
        try:
            tile = parse_tile(declared)
        except TileError as exc:
            raise TileError(exc.message, "/as" + exc.pointer) from None
        if tile.is_joker:
            raise TileError("a joker must stand for a numbered tile", "/as")
        return joker_as(tile)
    if "as" in obj:  # ("unknown field 'as'" said nothing of the joker meant)
        raise TileError("a joker object needs 'joker': true beside 'as'", "/joker")
    unknown = keys - TILE_FIELDS
    if unknown:
        key = sorted(unknown)[0]
        raise TileError(f"unknown field {key!r} in a tile object", f"/{pointer_token(key)}")
    if "color" not in obj:
        raise TileError("a tile object needs 'color' and 'number' (or 'joker': true)", "/color")
    if "number" not in obj:
        raise TileError("a tile object needs 'color' and 'number' (or 'joker': true)", "/number")
    color_name, number = obj["color"], obj["number"]
    if not isinstance(color_name, str):
        raise TileError(f"'color' must be a string, not {_json_type(color_name)}", "/color")
    color = _COLOR_ALIASES.get(color_name.strip(SPACE).upper())
    if color is None:
        raise TileError(f"unknown colour {color_name!r}: use black, blue, orange (yellow) or red", "/color")
    whole = whole_number(number)
    if whole is None:
        if isinstance(number, float):
            shown = (
                "a number with a fraction"
                if math.isfinite(number)
                else "NaN"
                if math.isnan(number)
                else "a number too large"
            )
        else:
            shown = _json_type(number)
        raise TileError(f"'number' must be a whole number, not {shown}", "/number")
    number = whole
    if not MIN_NUMBER <= number <= MAX_NUMBER:
        told = str(number) if abs(number) < 10**9 else "1000000000 or more" if number > 0 else "-1000000000 or less"
        raise TileError(f"number {told} is out of range: tile numbers run from 1 to 13", "/number")
    return _NUMBERED[color][number]


def parse_tiles(values: Any) -> tuple[Tile, ...]:
    """Parse a JSON array of tiles (a rack or a set's tiles). Pointers are prefixed with the
    tile's index."""
    if isinstance(values, str):
        values = values.split()
    if not isinstance(values, list | tuple):
        raise TileError(f"expected an array of tiles, not {_json_type(values)}")
    out = []
    for i, value in enumerate(values):
        try:
            out.append(parse_tile(value))
        except TileError as exc:
            raise TileError(exc.message, f"/{i}{exc.pointer}") from None
    return tuple(out)


def as_tiles(values: Iterable[Tile], what: str = "tiles") -> tuple[Tile, ...]:
    """``values`` as a tuple of tiles (an iterator is read once); TypeError naming ``what``
    when one of them is no ``Tile`` (a string: ``parse_tiles`` reads those), or when ``values``
    is one string (named whole, not by its first letter)."""
    if isinstance(values, str):  # type: ignore[unreachable]  # (a str is no Iterable[Tile], but is often meant)
        raise TypeError(f"{what} are Tile objects (parse_tiles reads 'R5'), not the str {values!r}")
    tiles = tuple(values)
    for t in tiles:
        if type(t) is not Tile:
            raise TypeError(f"{what} are Tile objects (parse_tiles reads 'R5'), not {type(t).__name__} {t!r}")
    return tiles


def format_tiles(tiles: Iterable[Tile]) -> list[str]:
    """Canonical string notation of each tile; TypeError naming the first item that is no
    ``Tile`` (a string: ``parse_tiles`` reads those)."""
    tiles = as_tiles(tiles) if isinstance(tiles, str) else tuple(tiles)  # type: ignore[unreachable]
    try:
        return [t.code for t in tiles]
    except AttributeError:
        as_tiles(tiles)  # (raises the TypeError naming the one that is no Tile)
        raise


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


@dataclass(frozen=True, slots=True)
class TileSupply:
    """A physical tile set: ``copies`` of each numbered tile and ``jokers`` jokers."""

    name: str
    copies: int
    jokers: int

    @property
    def total(self) -> int:
        return len(COLORS) * MAX_NUMBER * self.copies + self.jokers

    def limit(self, key: str) -> int:
        """How many tiles with this multiset key exist."""
        return self.jokers if key == JOKER_KEY else self.copies

    def all_tiles(self) -> list[Tile]:
        """Every tile of the supply, numbered tiles in colour-then-number order, then jokers."""
        tiles = [_NUMBERED[c][n] for c in COLORS for n in range(MIN_NUMBER, MAX_NUMBER + 1) for _ in range(self.copies)]
        return tiles + [JOKER] * self.jokers

    def holds(self, counts: Mapping[str, int]) -> bool:
        """Whether the supply has at least ``counts`` of every tile key."""
        if counts.get(JOKER_KEY, 0) > self.jokers:
            return False
        if self.jokers <= self.copies:  # then the largest count, jokers included, decides
            return max(counts.values(), default=0) <= self.copies
        return max((n for key, n in counts.items() if key != JOKER_KEY), default=0) <= self.copies


SUPPLIES: Mapping[str, TileSupply] = MappingProxyType(
    {
        "classic": TileSupply("classic", copies=2, jokers=2),
        "xp": TileSupply("xp", copies=3, jokers=4),
    }
)
"""Every tile set by name (read-only, as ``engine.rules.PRESETS``)."""


def tile_counts(tiles: Iterable[Tile]) -> Counter[str]:
    """Multiset of tile keys (all jokers count as ``J``)."""
    return Counter(t.key for t in tiles)


def tiles_without(tiles: Iterable[Tile], gone: Iterable[Tile]) -> list[Tile]:
    """``tiles`` minus the multiset ``gone``, in the original order (jokers interchangeable)."""
    counts: dict[str, int] = {}
    for t in gone:
        counts[t.key] = counts.get(t.key, 0) + 1
    return tiles_without_keys(tiles, counts)


def tiles_without_keys(tiles: Iterable[Tile], gone: Mapping[str, int]) -> list[Tile]:
    """``tiles`` minus ``gone`` (a multiset of tile keys), in the original order."""
    left = dict(gone)
    out = []
    for t in tiles:
        if left.get(t.key, 0) > 0:
            left[t.key] -= 1
        else:
            out.append(t)
    return out


def sort_key(tile: Tile) -> tuple[int, int]:
    """Display order: by colour (K, B, O, R), then number; jokers last."""
    if tile.color is None:
        return (len(COLORS), 0)
    return (COLORS.index(tile.color), tile.number)


_DISPLAY_RANK: dict[str, int] = {t.key: n for n, t in enumerate(sorted(_BY_KEY.values(), key=sort_key))}


def tiles_of_keys(counts: Mapping[str, int]) -> tuple[Tile, ...]:
    """The undeclared tiles of a multiset of tile keys, in display order (``sort_key``)."""
    tiles: list[Tile] = []
    for key in sorted(counts, key=_DISPLAY_RANK.__getitem__):
        tiles += [_BY_KEY[key]] * counts[key]
    return tuple(tiles)
