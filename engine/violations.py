"""Violation codes as data, with their English and Spanish messages.

A ``Violation`` names a stable ``code``, where it applies (``at``, a JSON Pointer into the
request) and the facts its message needs (``params``). Messages are rendered only when a
verdict is serialised, in the language asked for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "es")

SET_CODES = (
    "SET_TOO_SHORT",
    "SET_ALL_JOKERS",
    "GROUP_DUPLICATE_COLOUR",
    "GROUP_TOO_LARGE",
    "RUN_DUPLICATE_NUMBER",
    "RUN_TOO_LONG",
    "RUN_WRAPAROUND",
    "RUN_GAP",
    "RUN_OUT_OF_BOUNDS",
    "RUN_ORDER",
    "JOKER_DECLARATION_MISMATCH",
    "NOT_A_SET",
    "KIND_MISMATCH",
    "TILE_SUPPLY_EXCEEDED",
)

MESSAGES: dict[str, dict[str, str]] = {
    # --- sets ---
    "SET_TOO_SHORT": {
        "en": "A set needs at least 3 tiles; this one has {count}.",
        "es": "Una combinación necesita al menos 3 fichas; esta tiene {count}.",
    },
    "SET_ALL_JOKERS": {
        "en": "A set needs at least one numbered tile; this one holds only jokers.",
        "es": "Una combinación necesita al menos una ficha con número; esta solo tiene comodines.",
    },
    "GROUP_DUPLICATE_COLOUR": {
        "en": "A group may not hold the same colour twice.",
        "es": "Un grupo no puede tener dos fichas del mismo color.",
    },
    "GROUP_TOO_LARGE": {
        "en": "A group has at most 4 tiles, one of each colour; this one has {count}.",
        "es": "Un grupo tiene como máximo 4 fichas, una de cada color; este tiene {count}.",
    },
    "RUN_DUPLICATE_NUMBER": {
        "en": "A run may not hold the same number twice.",
        "es": "Una escalera no puede tener el mismo número dos veces.",
    },
    "RUN_TOO_LONG": {
        "en": "A run has at most 13 tiles (1 to 13); this one has {count}.",
        "es": "Una escalera tiene como máximo 13 fichas (del 1 al 13); esta tiene {count}.",
    },
    "RUN_WRAPAROUND": {
        "en": "A run cannot continue from 13 to 1: 1 is always the lowest number.",
        "es": "Una escalera no puede seguir del 13 al 1: el 1 es siempre el número más bajo.",
    },
    "RUN_GAP": {
        "en": "The numbers of this run are not consecutive and there are not enough jokers to fill the gaps.",
        "es": "Los números de esta escalera no son consecutivos y no hay comodines suficientes para llenar los huecos.",
    },
    "RUN_OUT_OF_BOUNDS": {
        "en": "Read in the order laid, a joker in this run would have to be 0 or 14.",
        "es": "Leída en el orden en que está, un comodín de esta escalera tendría que ser 0 o 14.",
    },
    "RUN_ORDER": {
        "en": "Under strict order a run must be laid in sequence, ascending or descending.",
        "es": "Con orden estricto, una escalera debe colocarse en secuencia, ascendente o descendente.",
    },
    "JOKER_DECLARATION_MISMATCH": {
        "en": "A joker is declared as a tile that does not fit this set.",
        "es": "Un comodín está declarado como una ficha que no encaja en esta combinación.",
    },
    "NOT_A_SET": {
        "en": "These tiles are neither a run (one colour, consecutive numbers) nor a group (one number, different colours).",
        "es": "Estas fichas no forman ni una escalera (un color, números consecutivos) ni un grupo (un número, colores distintos).",
    },
    "KIND_MISMATCH": {
        "en": "This set was declared a {kind}, but it is only valid as a {other}.",
        "es": "Esta combinación se declaró como {kind_es}, pero solo es válida como {other_es}.",
    },
    "TILE_SUPPLY_EXCEEDED": {
        "en": "There are only {limit:copy/copies} of {tile} in the {tiles_en} tile set; the request holds {count}.",
        "es": "El juego de fichas {tiles_es} solo tiene {limit:ficha/fichas} {tile}; la petición tiene {count}.",
    },
    "TILE_SUPPLY_EXCEEDED/jokers": {
        "en": "There are only {limit:joker/jokers} in the {tiles_en} tile set; the request holds {count}.",
        "es": "El juego de fichas {tiles_es} solo tiene {limit:comodín/comodines}; la petición tiene {count}.",
    },
    # --- melds and turns ---
    "INVALID_SET": {
        "en": "This set is not valid: {set_message}",
        "es": "Esta combinación no es válida: {set_message}",
    },
    "TILE_NOT_IN_RACK": {
        "en": "Tile {tile} is played but not on the player's rack.",
        "es": "La ficha {tile} se ha jugado, pero no está en el atril del jugador.",
    },
    "TILE_NOT_IN_RACK/copies": {
        "en": "{count:copy/copies} of tile {tile} {count:#is/are} played beyond those on the player's rack.",
        "es": "Se {count:#ha/han} jugado {count:copia/copias} de la ficha {tile} más de las que hay en el atril del jugador.",
    },
    "TILE_NOT_IN_RACK/jokers": {
        "en": "{count:joker/jokers} {count:#is/are} played beyond those on the player's rack.",
        "es": "Se {count:#ha/han} jugado {count:comodín/comodines} más de los que hay en el atril del jugador.",
    },
    "INITIAL_MELD_TOO_LOW": {
        "en": "The initial meld is worth {value:point/points}; at least {threshold} {threshold:#is/are} needed.",
        "es": "La primera jugada suma {value:punto/puntos}; se {threshold:#necesita/necesitan} al menos {threshold}.",
    },
    "INITIAL_MELD_TOO_LOW/nothing": {
        "en": "Nothing is laid, so nothing opens: the initial meld needs at least one set, worth {threshold:point/points} or more.",
        "es": "No se coloca nada, así que no se abre: la primera jugada necesita al menos una combinación y sumar {threshold:punto/puntos} o más.",
    },
    "INITIAL_MELD_TOO_LOW/nothing_any": {  # (a threshold of 0: any valid set opens)
        "en": "Nothing is laid, so nothing opens: the initial meld needs at least one valid set.",
        "es": "No se coloca nada, así que no se abre: la primera jugada necesita al menos una combinación válida.",
    },
    "INITIAL_MELD_TOO_LOW/no_set": {
        "en": "No valid set is laid from the rack, so nothing opens: the initial meld needs at least one valid set.",
        "es": "No se coloca ninguna combinación válida del atril, así que no se abre: la primera jugada necesita al menos una combinación válida.",
    },
    "TABLE_TILE_REMOVED": {
        "en": "Tile {tile} was on the table before the turn and is missing after it; tiles never go back to a rack.",
        "es": "La ficha {tile} estaba en la mesa antes del turno y falta después; las fichas nunca vuelven al atril.",
    },
    "TABLE_TILE_REMOVED/copies": {
        "en": "{count:copy/copies} of tile {tile} {count:#was/were} on the table before the turn and {count:#is/are} missing after it; tiles never go back to a rack.",
        "es": "{count:copia/copias} de la ficha {tile} {count:#estaba/estaban} en la mesa antes del turno y {count:#falta/faltan} después; las fichas nunca vuelven al atril.",
    },
    "TABLE_TILE_REMOVED/jokers": {
        "en": "{count:joker/jokers} {count:#was/were} on the table before the turn and {count:#is/are} missing after it; tiles never go back to a rack.",
        "es": "{count:comodín/comodines} {count:#estaba/estaban} en la mesa antes del turno y {count:#falta/faltan} después; las fichas nunca vuelven al atril.",
    },
    "BEFORE_TABLE_INVALID": {
        "en": "The table before the turn holds an invalid set: {set_message}",
        "es": "La mesa antes del turno tiene una combinación no válida: {set_message}",
    },
    "NO_TILE_PLAYED": {
        "en": "The table changed but no tile was played from the rack.",
        "es": "La mesa cambió sin que se jugara ninguna ficha del atril.",
    },
    "MANIPULATION_BEFORE_OPENING": {
        "en": "Sets already on the table may not be changed before the player has opened.",
        "es": "No se pueden modificar las combinaciones de la mesa antes de haber abierto.",
    },
    "JOKER_RELEASED_BEFORE_OPENING": {
        "en": "A joker on the table cannot be freed before the player has opened.",
        "es": "No se puede liberar un comodín de la mesa antes de haber abierto.",
    },
    "JOKER_NOT_REPLACED": {
        "en": "A joker did not stay in a valid set as the tile it stood for ({tile}), and that tile did not take its place.",
        "es": "Un comodín no se quedó en una combinación válida representando la misma ficha ({tile_es}), y esa ficha no ocupó su lugar.",
    },
    "JOKER_NOT_REPLACED/both": {
        "en": "A joker did not stay in a valid group, and the two missing tiles ({tile}) did not take its place.",
        "es": "Un comodín no se quedó en un grupo válido, y las dos fichas que faltaban ({tile_es}) no ocuparon su lugar.",
    },
    "JOKER_NOT_REPLACED/both_one": {  # (both colours needed, one of them placed: ``tile`` is the other)
        "en": "A joker freed from a group of three needs both missing tiles ({needed}) in its place; {tile} did not take it.",
        "es": "Para liberar un comodín de un grupo de tres hacen falta las dos fichas que faltan ({needed_es}); {tile_es} no ocupó su lugar.",
    },
    "JOKER_REPLACED_FROM_TABLE": {
        "en": "The tile that replaced a joker came from the table; under these rules it must come from the rack.",
        "es": "La ficha que sustituyó a un comodín vino de la mesa; con estas reglas debe venir del atril.",
    },
    "FREED_JOKER_MISUSED": {
        "en": "A freed joker must end in a new set holding at least two tiles played from the rack this turn.",
        "es": "Un comodín liberado debe acabar en una combinación nueva con al menos dos fichas jugadas del atril en este turno.",
    },
    "FREED_JOKER_MISUSED/other_set": {
        "en": "A freed joker must end in another set: not in a set of the same kind (run or group) holding a tile of the set it was freed from.",
        "es": "Un comodín liberado debe acabar en otra combinación: no en una del mismo tipo (escalera o grupo) que tenga una ficha de la combinación de la que salió.",
    },
    "JOKER_SET_BROKEN": {
        "en": "Under locked-joker rules nothing may leave a set holding a joker, and the joker may not move.",
        "es": "Con comodines bloqueados no se puede sacar nada de una combinación con comodín, ni mover el comodín.",
    },
    "JOKER_SET_BROKEN/locked_one": {  # (a locked set's joker freed without its exact tile)
        "en": "Under locked-joker rules a joker leaves its set only for its exact tile ({tile}), which did not take its place.",
        "es": "Con comodines bloqueados un comodín solo sale de su combinación por su ficha exacta ({tile_es}), que no ocupó su lugar.",
    },
    "JOKER_SET_BROKEN/locked_both": {
        "en": "Under locked-joker rules a joker leaves a group of three only for both missing tiles ({tile}), which did not take its place.",
        "es": "Con comodines bloqueados un comodín solo sale de un grupo de tres por las dos fichas que faltan ({tile_es}), que no ocuparon su lugar.",
    },
    "JOKER_SET_BROKEN/locked_both_one": {
        "en": "Under locked-joker rules a joker leaves a group of three only for both missing tiles ({needed}); {tile} did not take its place.",
        "es": "Con comodines bloqueados un comodín solo sale de un grupo de tres por las dos fichas que faltan ({needed_es}); {tile_es} no ocupó su lugar.",
    },
    "TIME_LIMIT_EXCEEDED": {
        "en": "The turn took {elapsed} s; the limit is {limit} s.",
        "es": "El turno duró {elapsed} s; el límite es {limit} s.",
    },
    # --- replay ---
    "WRONG_PLAYER": {
        "en": "Turn {turn} was played by {player}, but it was {expected}'s turn.",
        "es": "El turno {turn} lo jugó {player}, pero le tocaba a {expected}.",
    },
    "UNKNOWN_PLAYER": {
        "en": "Turn {turn} names a player who is not in the game: {player}.",
        "es": "El turno {turn} nombra a un jugador que no está en la ronda: {player}.",
    },
    "DRAW_MISMATCH": {
        "en": "The player drew {tile}, but the next tile in the pool is {expected}.",
        "es": "El jugador robó {tile}, pero la siguiente ficha del pozo es {expected}.",
    },
    "POOL_EMPTY": {
        "en": "The player drew a tile, but the pool is empty.",
        "es": "El jugador robó una ficha, pero el pozo está vacío.",
    },
    "DEAL_SIZE": {
        "en": "{player} was dealt {count:tile/tiles}; these rules deal {expected} to each of {players} players.",
        "es": "{player} recibió {count:ficha/fichas}; estas reglas reparten {expected} a cada uno de los {players} jugadores.",
    },
    "PLAYER_COUNT": {
        "en": "{count} players cannot play under these rules (allowed: {allowed}).",
        "es": "{count} jugadores no pueden jugar con estas reglas (se permiten: {allowed}).",
    },
    "PLAYER_COUNT/one": {
        "en": "1 player cannot play under these rules (allowed: {allowed}).",
        "es": "1 jugador no puede jugar con estas reglas (se permiten: {allowed}).",
    },
    "ROUND_OVER": {
        "en": "Turn {turn} comes after the round has ended.",
        "es": "El turno {turn} llega cuando la ronda ya ha terminado.",
    },
    "POOL_MISMATCH": {
        "en": "The pool must hold exactly the {expected:tile/tiles} that {expected:#was/were} not dealt; it holds {count} (missing: {missing}).",
        "es": "El pozo debe tener exactamente {expected:#la/las} {expected:ficha/fichas} que no se {expected:#repartió/repartieron}; tiene {count} (faltan: {missing}).",
    },
    "POOL_MISMATCH/one": {
        "en": "The pool must hold exactly the {expected:tile/tiles} that {expected:#was/were} not dealt; it holds {count} (missing: {missing}).",
        "es": "El pozo debe tener exactamente {expected:#la/las} {expected:ficha/fichas} que no se {expected:#repartió/repartieron}; tiene {count} (falta: {missing}).",
    },
    "POOL_MISMATCH/more": {
        "en": "The pool must hold exactly the {expected:tile/tiles} that {expected:#was/were} not dealt; it holds {count} (missing: {missing} and {more} more).",
        "es": "El pozo debe tener exactamente {expected:#la/las} {expected:ficha/fichas} que no se {expected:#repartió/repartieron}; tiene {count} (faltan: {missing} y {more} más).",
    },
    "END_MISMATCH": {
        "en": "The record says the round ended with the pool exhausted, but {count:tile is/tiles are} still in the pool.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero aún hay {count:ficha/fichas} en él.",
    },
    "END_MISMATCH/rack_empty": {
        "en": "The record says the round ended with the pool exhausted, but it ended when {player} went out.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero terminó cuando {player} se quedó sin fichas.",
    },
    "END_MISMATCH/play_on": {
        "en": "The record says the round ended with the pool exhausted, but only {passes} of the {players} players {passes:#has/have} passed in a row since the pool ran out; it ends when every player has passed.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero desde que se agotó solo {passes} de los {players} jugadores {passes:#ha/han} pasado en turnos seguidos; termina cuando todos han pasado.",
    },
    "END_MISMATCH/no_pass": {
        "en": "The record says the round ended with the pool exhausted, but no player has passed since the pool ran out, or since the last play after it; it ends when every player has passed in a row.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero nadie ha pasado desde que se agotó, o desde la última jugada posterior; termina cuando todos han pasado en turnos seguidos.",
    },
    "END_MISMATCH/one_more_turn": {
        "en": "The record says the round ended with the pool exhausted, but {count} of the {players} players still {count:#has/have} their last turn to play.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero a {count} de los {players} jugadores aún {count:#le/les} queda su último turno.",
    },
    "END_MISMATCH/every_turn": {  # (one_more_turn, no player's last turn played yet)
        "en": "The record says the round ended with the pool exhausted, but every player still has their last turn to play.",
        "es": "El registro dice que la ronda terminó con el pozo agotado, pero a todos los jugadores aún les queda su último turno.",
    },
}

KIND_ES = {"run": "escalera", "group": "grupo"}
TILES_EN = {"classic": "classic", "xp": "XP"}
TILES_ES = {"classic": "clásico", "xp": "XP"}
"""The tile sets' names in messages (``tiles``: "the XP tile set", "el juego de fichas clásico")."""


SET_LABEL = {"en": 'Set "{id}": ', "es": 'Combinación "{id}": '}
ECHOED_ID_CHARS = 64
"""The most characters of a set's id a message echoes (a longer one is cut, "…" last): an id
is any string, and one of 230,000 characters echoed in each of 41 messages made a 230 KB
request a 9.4 MB answer (the contract audit, session 52); the pointer names the set anyway."""


def echoed_id(set_id: object) -> str:
    """A set's id as messages echo it: at most ``ECHOED_ID_CHARS`` characters."""
    text = str(set_id)
    return text if len(text) <= ECHOED_ID_CHARS else text[: ECHOED_ID_CHARS - 1] + "…"


def _continued(sentence: str) -> str:
    """A sentence continuing after a colon, its first letter lower-case in both languages (RAE:
    "no es válida: una combinación…"; "This set is not valid: these tiles…", English capitalised
    it until session 60) unless it starts with a code ("R5", "J1")."""
    if sentence[1:2].isupper() or sentence[1:2].isdigit():
        return sentence
    return sentence[:1].lower() + sentence[1:]


class _Unknown:
    """A parameter a message names but the violation lacks: "?" (whatever its format spec)."""

    def __format__(self, spec: str) -> str:
        return "?"


class _Defaults(dict[str, Any]):
    def __missing__(self, key: str) -> _Unknown:
        return _Unknown()


class Count(int):
    """A number in a message that may carry its noun: ``{count:tile/tiles}`` is "1 tile" or
    "2 tiles"; ``{count:#has/have}`` is the word alone, agreeing with the number ("has" for 1);
    any other format spec formats the number."""

    def __format__(self, spec: str) -> str:
        if "/" in spec:
            one, many = spec.removeprefix("#").split("/", 1)
            word = one if self == 1 else many
            return word if spec.startswith("#") else f"{int(self)} {word}"
        return format(int(self), spec)


def number_text(value: float, lang: str = "en") -> str:
    """A fractional number (seconds, a limit) as the request wrote it, without a trailing ".0"
    ("121", "121.5", "120.0004"; "121,5" in Spanish); exponents only from 10**16 ("1e+20"),
    small fractions written out ("0.00002")."""
    text = repr(value).removesuffix(".0")  # (the shortest text that reads back as the value)
    if "e-" in text:  # ("2e-05": a fraction written out, "0.00002")
        text = f"{value:.20f}".rstrip("0")
    return text.replace(".", ",") if lang == "es" else text


def _number(value: Any, lang: str) -> Any:
    if type(value) is int:
        return Count(value)
    return number_text(value, lang) if type(value) is float else value


def _tiles_es(text: str) -> str:
    """Tiles joined by "or"/"and" in Spanish ("o" is "u" before a word read with o: "B3 u O3")."""
    return text.replace(" or O", " u O").replace(" or ", " o ").replace(" and ", " y ")


def render(code: str, params: Mapping[str, Any], lang: str = "en") -> str:
    """The message for ``code`` in ``lang`` (English when the language is not available)."""
    # A code may word each case (``params["case"]``) or rule variant (``params["rule"]``) on
    # its own: ``MESSAGES["CODE/case"]``, falling back to ``MESSAGES["CODE"]``.
    variant = params.get("case", params.get("rule"))
    templates = MESSAGES.get(f"{code}/{variant}") if variant is not None else None
    templates = templates or MESSAGES.get(code)
    if templates is None:
        return code
    template = templates.get(lang) or templates["en"]
    # (whole numbers may carry their noun; fractions, "121.0 s" before session 53, as written)
    values = _Defaults({key: _number(v, lang) for key, v in params.items()})
    if "kind" in params:
        values["kind_es"] = KIND_ES.get(str(params["kind"]), params["kind"])
    if "other" in params:
        values["other_es"] = KIND_ES.get(str(params["other"]), params["other"])
    if "tiles" in params:
        values["tiles_en"] = TILES_EN.get(str(params["tiles"]), params["tiles"])
        values["tiles_es"] = TILES_ES.get(str(params["tiles"]), params["tiles"])
    for key in ("tile", "needed"):  # a group joker's tiles: "O7 or R7", "O7 and R7"
        if key in params:
            values[f"{key}_es"] = _tiles_es(str(params[key]))
    if "set_code" in params:
        inner = {k: v for k, v in params.items() if k != "set_code"}
        values["set_message"] = _continued(render(str(params["set_code"]), inner, lang))
    return template.format_map(values)


@dataclass(frozen=True, slots=True)
class Violation:
    """One thing wrong with a request's position or turn."""

    code: str
    at: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    set_code: str | None = None

    def __hash__(self) -> int:
        # (``params`` is a dict: equal violations have equal codes and places, and hash alike)
        return hash((self.code, self.at, self.set_code))

    def message(self, lang: str = "en") -> str:
        """The violation's message in ``lang`` (``en`` or ``es``), its set id first when it has one."""
        params = dict(self.params)
        if self.set_code is not None:
            params["set_code"] = self.set_code
        message = render(self.code, params, lang)
        if params.get("set_id") is not None:  # SPEC §1: a set's id is echoed in messages
            label = SET_LABEL.get(lang, SET_LABEL["en"])
            message = label.format(id=echoed_id(params["set_id"])) + _continued(message)
        return message

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The violation as the API gives it: ``code``, ``message`` in ``lang``, ``at``, and ``set_code`` when a
        set's own code."""
        out: dict[str, Any] = {"code": self.code, "message": self.message(lang), "at": self.at}
        if self.set_code is not None:
            out["set_code"] = self.set_code
        return out


_QVALUE = re.compile(r"0(\.[0-9]{0,3})?|1(\.0{0,3})?")
"""RFC 9110's qvalue: a weight from 0 to 1 with at most three decimals (another is no weight)."""

ACCEPT_LANGUAGE_CHARS = 1024
"""How much of an Accept-Language value is read: the entries that end within its first 1,024
characters (a header of 499 KB, which the server accepts, cost ~115 ms a parse; the service
audit, session 49)."""


def pick_language(accept_language: str | None) -> str:
    """The best supported language for an Accept-Language header value (default English):
    the highest weight (RFC 9110 §12.5.4; q=0 is "not this one"), ``*`` weighing every
    supported language the header does not name, the first named winning a tie. Only the
    entries ending within ``ACCEPT_LANGUAGE_CHARS`` characters count."""
    if not accept_language:
        return "en"
    if len(accept_language) > ACCEPT_LANGUAGE_CHARS:  # (an entry cut short there is dropped)
        accept_language = accept_language[: ACCEPT_LANGUAGE_CHARS + 1].rpartition(",")[0]
    weights: dict[str, float] = {}
    anything: float | None = None  # the weight of "*"
    for part in accept_language.split(","):
        pieces = part.strip().split(";")
        tag = pieces[0].strip().lower().split("-")[0]
        q = 1.0
        for p in pieces[1:]:
            p = p.strip().lower()  # (parameter names are case-insensitive: "Q=0.1" is a weight)
            if p.startswith("q="):
                q = float(p[2:]) if _QVALUE.fullmatch(p[2:]) else 0.0
        if tag == "*":
            anything = q if anything is None else max(anything, q)
        elif tag in LANGUAGES:
            weights[tag] = max(weights.get(tag, 0.0), q)
    if anything is not None:
        for language in LANGUAGES:
            weights.setdefault(language, anything)
    best = max(weights, key=lambda language: weights[language], default="en")
    return best if weights.get(best, 0.0) > 0 else "en"


MESSAGES["NO_ARRANGEMENT"] = {
    "en": "The {count:tile/tiles} cannot be laid out as valid sets.",
    "es": "{count:#La/Las} {count:ficha/fichas} no se {count:#puede/pueden} colocar en combinaciones válidas.",
}
MESSAGES["NO_ARRANGEMENT/one"] = {
    "en": "The tile cannot be laid out as a valid set.",
    "es": "La ficha no se puede colocar en una combinación válida.",
}
MESSAGES["ARRANGEMENT_NOT_FOUND/one"] = {
    "en": "No arrangement of the tile was found within the time budget.",
    "es": "No se encontró cómo colocar la ficha dentro del tiempo disponible.",
}
MESSAGES["ARRANGEMENT_NOT_FOUND/unproven"] = {
    "en": (
        "No legal arrangement of the {count:tile/tiles} was found, but one may exist: the search does"
        " not try every move; give the table as sets to have it judged."
    ),
    "es": (
        "No se encontró una colocación legal de {count:#la/las} {count:ficha/fichas}, pero puede existir:"
        " la búsqueda no prueba todas las jugadas; envía la mesa como combinaciones para que se juzgue."
    ),
}
MESSAGES["ARRANGEMENT_NOT_FOUND"] = {
    "en": "No arrangement of the {count:tile/tiles} was found within the time budget.",
    "es": "No se encontró cómo colocar {count:#la/las} {count:ficha/fichas} dentro del tiempo disponible.",
}
