"""A suggested move as steps a person can follow (issue #18), in English or Spanish, from the
table before the move and the answer's change list (``changes`` of moves/suggest).

The steps, after-set by after-set (rearrangements first, then extensions, then new sets):

* a set built with tiles of other table sets: "take K9 from K9 B9 O9 R9 and make K9 K10 K11";
  when it continues a table set that took tiles from others: "take R8 from R8 B8 O8 and
  change R5 R6 R7 into R5 R6 R7 R8"; one that only gained rack tiles once others took theirs:
  "add R8 to R7 R9 R10"; one whose tiles still go elsewhere: "change R3 R4 R5 R6 into R2 R3 R4
  R5, setting R6 aside" (a later step takes "R6 set aside in step 1"); one that only lost tiles
  needs no step (other steps took them);
* a table set plus rack tiles: "add R8 to R5 R6 R7" ("add R6 to R5 J R7, making J=R4 R5 R6
  R7" when the set holds a joker, which may move);
* rack tiles only: "new set O1 O2 J=O3";
* a table set keeping its tiles, or only giving some away, needs no step of its own, unless
  a joker of it now stands for another tile: "change J K10 K11 into K10 K11 J=K12".

Every step names a table set by the tiles it holds when the step is carried out, the steps
before it done: a set others take tiles from is changed after they have (where sets take from
each other in a cycle, a set on the cycle is changed first and sets aside the tiles the others
still take), so no step names a set by tiles it has lost, and of two sets holding the same
tiles either may be taken from (the table comes out the same). Following the steps in order
lays exactly the answer's ``after`` (the steps audits of session 38, and
tests/test_least_change.py, follow them literally).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

_WORDS = {
    "en": {
        "take": "take {tiles} from {source}",
        "aside": "take {tiles} set aside in step {step}",
        "and": ", ",
        "make": "{takes} and make {after}",
        "change": "change {before} into {after}",
        "take_change": "{takes} and change {before} into {after}",
        "setting_aside": "{step}, setting {tiles} aside",
        "add": "add {tiles} to {before}",
        "add_making": "add {tiles} to {before}, making {after}",
        "new": "new set {after}",
    },
    "es": {
        "take": "toma {tiles} de {source}",
        "aside": "toma {tiles} que apartaste en el paso {step}",
        "and": ", ",
        "make": "{takes} y forma {after}",
        "change": "convierte {before} en {after}",
        "take_change": "{takes} y convierte {before} en {after}",
        "setting_aside": "{step}, apartando {tiles}",
        "add": "añade {tiles} a {before}",
        "add_making": "añade {tiles} a {before}, formando {after}",
        "new": "nueva combinación {after}",
    },
}


def _words(tiles: Sequence[Any]) -> str:
    return " ".join(str(t) for t in tiles)


def _same_tile(a: str, b: str) -> bool:
    """Two notations of one physical tile (a joker is a joker, whatever it is declared as)."""
    return a == b or (a.startswith("J") and b.startswith("J"))


def _take(held: list[str], tile: str) -> str | None:
    """Take ``tile`` out of ``held`` (as it is written there), or None when it is not there."""
    for i, t in enumerate(held):
        if _same_tile(t, tile):
            return held.pop(i)
    return None


def _index(value: Any) -> int:
    """A change list's before index (-1: none)."""
    return value if isinstance(value, int) else -1


def _order(entries: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rearranged sets in an order where a set others take tiles from comes after them
    (the order given among the free ones; where sets take from each other, the first one
    left goes first)."""
    takers: dict[int, set[int]] = {}  # before index -> the entries taking tiles from it
    for i, entry in enumerate(entries):
        own = entry.get("before")
        for t in entry.get("tiles") or []:
            origin = t.get("from")
            if isinstance(origin, int) and origin != own:
                takers.setdefault(origin, set()).add(i)
    left = list(range(len(entries)))
    ordered: list[Mapping[str, Any]] = []

    def waited_for(i: int) -> list[int]:
        return sorted((takers.get(_index(entries[i].get("before")), set()) & set(left)) - {i})

    while left:
        ready = [i for i in left if not waited_for(i)]
        pick = ready[0] if ready else _on_a_cycle(left[0], waited_for)
        ordered.append(entries[pick])
        left.remove(pick)
    return ordered


def _on_a_cycle(start: int, waited_for: Callable[[int], list[int]]) -> int:
    """A set on a cycle of sets waiting for each other, reached from ``start`` (every set left
    waits for one): changed first, it sets aside what the others still take (a set only waiting
    for a cycle, changed first, would set its tiles aside for nothing)."""
    seen: list[int] = []
    node = start
    while node not in seen:
        seen.append(node)
        node = waited_for(node)[0]
    return node


def move_steps(before: Sequence[Sequence[str]], changes: Mapping[str, Any], lang: str = "en") -> list[str]:
    """The steps of a move: ``before`` is the table before it (each set its tiles in canonical
    notation), ``changes`` the change list of the API's answer."""
    words = _WORDS.get(lang, _WORDS["en"])
    table = [list(s) for s in before]  # what each before-set holds as the steps go
    done: set[int] = set()  # before-sets now laid as their after-set: nothing more is taken there
    aside: dict[int, list[str]] = {}  # the tiles each change set aside, by its step's number
    steps: list[str] = []
    entries = [e for e in changes.get("sets") or [] if isinstance(e, Mapping)]
    rearranged = _order([e for e in entries if e.get("kind") == "rearranged"])
    extended = [e for e in entries if e.get("kind") in ("extended", "unchanged")]
    new = [e for e in entries if e.get("kind") == "new"]
    for entry in rearranged + extended + new:
        kind = entry.get("kind")
        own = entry.get("before")
        own = own if isinstance(own, int) and 0 <= own < len(table) else None
        tiles = entry.get("tiles") or []
        after = _words([t.get("tile") for t in tiles])
        rack = [t.get("tile") for t in tiles if t.get("from") == "rack"]
        if kind == "unchanged":
            # its tiles, but a joker may stand for another tile now (J K10 K11 laid as
            # K10 K11 J=K12: the joker moved to the other end; an audit, session 51)
            if own is not None and _moved_joker(table[own], tiles):
                steps.append(words["change"].format(before=_words(table[own]), after=after))
                table[own] = [t.get("tile") for t in tiles]
            continue
        if kind == "new":
            steps.append(words["new"].format(after=after))
            continue
        if kind == "extended" and own is not None:
            steps.append(_add(words, rack, table[own], after))
            table[own] = [t.get("tile") for t in tiles]
            done.add(own)
            continue
        takes = _takes(entry, own, table, done, aside, words)
        if own is None:
            steps.append(words["make"].format(takes=words["and"].join(takes), after=after))
            continue
        current = table[own]
        kept = list(current)
        for t in tiles:
            if t.get("from") == own:
                _take(kept, t.get("tile"))
        left_over = kept  # its tiles this set does not keep: a later step takes them
        if takes:
            step = words["take_change"].format(takes=words["and"].join(takes), before=_words(current), after=after)
        elif left_over:
            step = words["change"].format(before=_words(current), after=after)
        elif rack:
            step = _add(words, rack, current, after)
        elif _moved_joker(current, tiles):  # (K10 K11 J, its K13 taken, laid as J=K9 K10 K11)
            step = words["change"].format(before=_words(current), after=after)
        else:
            step = None  # it only gave tiles away, and they are taken
        if step is not None:
            if left_over:
                step = words["setting_aside"].format(step=step, tiles=_words(left_over))
                aside[len(steps) + 1] = left_over
            steps.append(step)
        table[own] = [t.get("tile") for t in tiles]
        done.add(own)
    return steps


def _moved_joker(current: Sequence[str], tiles: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a set holding ``current`` is laid otherwise as the after-set of ``tiles``, the
    same tiles (a set that kept its tiles or only gave some away): a joker of it now stands
    for another tile, which the steps say (``engine.changes.laid_alike``)."""
    from engine.changes import laid_alike
    from engine.tiles import parse_tiles

    after = [str(t.get("tile")) for t in tiles]
    try:
        return not laid_alike(parse_tiles(list(current)), parse_tiles(after))
    except (ValueError, TypeError):  # (words that are no tiles: a change list from elsewhere)
        return sorted(str(t) for t in current) != sorted(after)


def _add(words: Mapping[str, str], rack: Sequence[str], current: Sequence[str], after: str) -> str:
    """An "add" step; with a joker in the set it says the set made (the joker may move:
    "add R6 to R5 J R7, making J=R4 R5 R6 R7")."""
    if any(t.startswith("J") for t in current) or "J" in rack:
        # (a joker added undeclared may go to either end: "add R4 J to R5 R6 R7" did not say
        # R8; the set made does)
        return words["add_making"].format(tiles=_words(rack), before=_words(current), after=after)
    return words["add"].format(tiles=_words(rack), before=_words(current))


def _takes(
    entry: Mapping[str, Any],
    own: int | None,
    table: list[list[str]],
    done: set[int],
    aside: dict[int, list[str]],
    words: Mapping[str, str],
) -> list[str]:
    """The takes an after-set needs from other sets (from what they hold now, or, for a set
    already laid as its after-set, from the tiles its change set aside), taken out of ``table``
    and ``aside``."""
    foreign: dict[int, list[str]] = {}
    for t in entry.get("tiles") or []:
        origin = t.get("from")
        if isinstance(origin, int) and origin != own and 0 <= origin < len(table):
            foreign.setdefault(origin, []).append(t.get("tile"))
    takes: list[str] = []
    for source, wanted in sorted(foreign.items()):
        shown = _words(table[source])
        taken: list[str] = []
        from_aside: dict[int, list[str]] = {}
        for tile in wanted:
            held = None if source in done else _take(table[source], tile)
            if held is not None:
                taken.append(held)
                continue
            for step, pile in aside.items():
                found = _take(pile, tile)
                if found is not None:
                    from_aside.setdefault(step, []).append(found)
                    break
        if taken:
            takes.append(words["take"].format(tiles=_words(taken), source=shown))
        takes.extend(words["aside"].format(tiles=_words(ts), step=step) for step, ts in sorted(from_aside.items()))
    return takes
