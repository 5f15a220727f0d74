"""A suggested move as steps a person can follow (issue #18), in English or Spanish, from the
table before the move and the answer's change list (``changes`` of moves/suggest).

The steps, after-set by after-set (rearrangements first, then extensions, then new sets):

* a set built with tiles of other table sets: "take K9 from K9 B9 O9 R9 and make K9 K10 K11";
  when it continues a table set that took tiles from others: "take R8 from R8 B8 O8 and
  change R5 R6 R7 into R5 R6 R7 R8"; one that only lost tiles and gained rack tiles: "change
  R3 R4 R5 R6 into R2 R3 R4 R5"; one that only lost tiles needs no step (another step took
  them);
* a table set plus rack tiles: "add R8 to R5 R6 R7";
* rack tiles only: "new set O1 O2 J=O3".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_WORDS = {
    "en": {
        "take": "take {tiles} from {source}",
        "and": ", ",
        "make": "{takes} and make {after}",
        "change": "change {before} into {after}",
        "take_change": "{takes} and change {before} into {after}",
        "add": "add {tiles} to {before}",
        "new": "new set {after}",
    },
    "es": {
        "take": "toma {tiles} de {source}",
        "and": ", ",
        "make": "{takes} y forma {after}",
        "change": "convierte {before} en {after}",
        "take_change": "{takes} y convierte {before} en {after}",
        "add": "añade {tiles} a {before}",
        "new": "nueva combinación {after}",
    },
}


def _words(tiles: Sequence[Any]) -> str:
    return " ".join(str(t) for t in tiles)


def move_steps(before: Sequence[Sequence[str]], changes: Mapping[str, Any], lang: str = "en") -> list[str]:
    """The steps of a move: ``before`` is the table before it (each set its tiles in canonical
    notation), ``changes`` the change list of the API's answer."""
    words = _WORDS.get(lang, _WORDS["en"])
    rearranged: list[str] = []
    extended: list[str] = []
    new: list[str] = []
    for entry in changes.get("sets") or []:
        kind = entry.get("kind")
        own = entry.get("before")
        tiles = entry.get("tiles") or []
        after = _words([t.get("tile") for t in tiles])
        rack = [t.get("tile") for t in tiles if t.get("from") == "rack"]
        foreign: dict[int, list[str]] = {}
        for t in tiles:
            origin = t.get("from")
            if isinstance(origin, int) and origin != own:
                foreign.setdefault(origin, []).append(t.get("tile"))
        own_tiles = _words(before[own]) if isinstance(own, int) and own < len(before) else ""
        if kind == "new":
            new.append(words["new"].format(after=after))
        elif kind == "extended":
            extended.append(words["add"].format(tiles=_words(rack), before=own_tiles))
        elif kind == "rearranged":
            takes = words["and"].join(
                words["take"].format(tiles=_words(ts), source=_words(before[b]) if b < len(before) else "?")
                for b, ts in sorted(foreign.items())
            )
            if own is None:
                rearranged.append(words["make"].format(takes=takes, after=after))
            elif foreign:
                rearranged.append(words["take_change"].format(takes=takes, before=own_tiles, after=after))
            elif rack:
                rearranged.append(words["change"].format(before=own_tiles, after=after))
    return rearranged + extended + new
