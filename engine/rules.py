"""Rule settings and the named presets (SPEC §3, RULES.md).

``Rules`` is immutable; ``resolve_rules`` turns the request forms (a preset name, or an object
``{"preset": ..., **overrides}``) into one, naming the offending key on any error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.errors import MAX_ERRORS_LISTED, InputError, pointer_token
from engine.tiles import SUPPLIES, TileSupply, whole_number


class RulesError(InputError):
    """Unknown preset or setting, or a value of the wrong type. ``pointer`` is relative to the
    rules value in the request ("" for the whole value, "/joker_penalty" for one setting).
    ``others``: the further errors found in the same rules value, each with its pointer (a
    request is told every one at once; this error is the first)."""

    def __init__(self, message: str, pointer: str = "", others: tuple[RulesError, ...] = ()) -> None:
        super().__init__(message, pointer)
        self.others = others

    def under(self, prefix: str) -> RulesError:
        """The same error with its pointer (and its companions') below ``prefix`` (``/rules``)."""
        return RulesError(self.message, prefix + self.pointer, tuple(o.under(prefix) for o in self.others))

    @property
    def every(self) -> tuple[RulesError, ...]:
        """This error and the others."""
        return (self, *self.others)

    @staticmethod
    def of(errors: list[RulesError]) -> RulesError:
        """One error carrying ``errors`` (each with its own others), the first first; at most
        MAX_ERRORS_LISTED."""
        found = [e for error in errors for e in error.every][:MAX_ERRORS_LISTED]
        first = found[0]
        return RulesError(first.message, first.pointer, tuple(found[1:]))


CHOICES: dict[str, tuple[str, ...]] = {
    "tiles": ("classic", "xp"),
    "joker_release": ("replace", "free"),
    "joker_replacement_from": ("rack_or_table", "rack"),
    "freed_joker_use": ("any_set", "other_set", "new_set_with_two_rack_tiles"),
    "scoring": ("zero_sum", "penalty_only"),
    "pool_exhausted_scoring": ("subtract_lowest", "plain", "all_negative"),
    "pool_exhausted_end": ("play_on", "one_more_turn"),
}
BOOLEANS = (
    "manipulate_on_opening_turn",
    "joker_sets_locked",
    "group_joker_needs_both_colours",
    "strict_order",
    "timeout_keeps_valid_sets",
)
COUNTS = ("initial_meld_min", "timeout_penalty", "failed_turn_penalty", "joker_penalty")
MAX_PLAYERS = 8
_PLAYER_COUNT_KEYS = frozenset(str(n) for n in range(2, MAX_PLAYERS + 1))  # "deal" keys


def _check_field(name: str, value: Any) -> None:
    """A Rules field's value, as the constructor takes it: TypeError or ValueError naming it
    (``_check_setting`` reads a request's forms of it). Whole numbers are ints, not bools."""
    if name in CHOICES:
        if value not in CHOICES[name]:
            raise ValueError(f"Rules.{name} is one of {', '.join(CHOICES[name])}, not {value!r}")
    elif name in BOOLEANS:
        if type(value) is not bool:
            raise TypeError(f"Rules.{name} is True or False, not {value!r}")
    elif name in COUNTS:
        if type(value) is not int or not 0 <= value <= 1000:
            raise ValueError(f"Rules.{name} is a whole number from 0 to 1000, not {value!r}")
    elif name == "turn_time_limit":
        if value is not None and (type(value) not in (int, float) or not 0 < value <= 86400):
            raise ValueError(f"Rules.turn_time_limit is None or seconds (0 < s <= 86400), not {value!r}")
    elif name == "players":
        if (
            type(value) is not tuple
            or not value
            or not all(type(n) is int and 2 <= n <= MAX_PLAYERS for n in value)
            or list(value) != sorted(set(value))
        ):
            raise ValueError(f"Rules.players is a sorted tuple of player counts from 2 to {MAX_PLAYERS}, not {value!r}")
    elif name == "deal":
        pairs = value if type(value) is tuple else None
        if not pairs or not all(
            type(p) is tuple
            and len(p) == 2
            and type(p[0]) is int
            and 2 <= p[0] <= MAX_PLAYERS
            and type(p[1]) is int
            and 1 <= p[1] <= 30
            for p in pairs
        ):
            raise ValueError(f"Rules.deal is a tuple of (player count, 1-30 tiles) pairs, not {value!r}")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every setting of SPEC §3. Defaults are the ``sabra`` preset. ``preset`` names the
    preset the settings started from (a label: ``resolve_rules`` and ``PRESETS`` fill in its
    settings, the constructor does not). Each setting is checked as it is made: ValueError for
    a choice or number out of range, TypeError for a value of the wrong type (``resolve_rules``
    reads a request's forms: lists, objects, whole-number floats)."""

    preset: str = "sabra"
    tiles: str = "classic"
    players: tuple[int, ...] = (2, 3, 4)
    deal: tuple[tuple[int, int], ...] = ((2, 14), (3, 14), (4, 14))
    initial_meld_min: int = 30
    manipulate_on_opening_turn: bool = False
    joker_release: str = "replace"
    joker_replacement_from: str = "rack_or_table"
    freed_joker_use: str = "any_set"
    joker_sets_locked: bool = False
    group_joker_needs_both_colours: bool = False
    strict_order: bool = False
    turn_time_limit: float | None = None
    timeout_penalty: int = 3
    timeout_keeps_valid_sets: bool = False
    failed_turn_penalty: int = 3
    joker_penalty: int = 30
    scoring: str = "zero_sum"
    pool_exhausted_scoring: str = "subtract_lowest"
    pool_exhausted_end: str = "play_on"

    def __post_init__(self) -> None:
        for name in SETTINGS:
            _check_field(name, getattr(self, name))
        dealt = {n for n, _ in self.deal}
        if not set(self.players) <= dealt:
            missing = sorted(set(self.players) - dealt)
            raise ValueError(f"Rules.deal gives no deal for {missing} players of Rules.players {self.players}")
        if not isinstance(self.preset, str):
            raise TypeError(f"Rules.preset is a preset's name, not {self.preset!r}")

    @property
    def supply(self) -> TileSupply:
        """The tile set these rules play with (``SUPPLIES[self.tiles]``)."""
        return SUPPLIES[self.tiles]

    @property
    def jokers_move_freely(self) -> bool:
        """Any legal rearrangement frees a table joker, to go to any set: a free release, no
        locked joker sets, ``freed_joker_use: any_set``."""
        return self.joker_release == "free" and not self.joker_sets_locked and self.freed_joker_use == "any_set"

    def deal_for(self, player_count: int) -> int:
        """Tiles dealt to each player for this player count (KeyError if not allowed)."""
        return dict(self.deal)[player_count]

    def to_dict(self) -> dict[str, Any]:
        """JSON form, as listed by ``GET /v1/rules`` (``deal`` keyed by player count)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "deal":
                value = {str(k): v for k, v in value}
            elif f.name == "players":
                value = list(value)
            out[f.name] = value
        return out


SETTINGS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset")

SABRA = Rules()
PRESETS: Mapping[str, Rules] = MappingProxyType(
    {
        "sabra": SABRA,
        "pressman-2009": dataclasses.replace(
            SABRA,
            preset="pressman-2009",
            joker_replacement_from="rack",
            freed_joker_use="new_set_with_two_rack_tiles",
            turn_time_limit=120,
            timeout_penalty=1,
        ),
        "strict-joker": dataclasses.replace(SABRA, preset="strict-joker", joker_sets_locked=True),
        "free-joker": dataclasses.replace(SABRA, preset="free-joker", joker_release="free"),
        "opening-50": dataclasses.replace(SABRA, preset="opening-50", initial_meld_min=50),
        "komoni": dataclasses.replace(
            SABRA,
            preset="komoni",
            joker_penalty=25,
            scoring="penalty_only",
            players=(2, 3, 4, 5, 6),
            deal=((2, 14), (3, 13), (4, 13), (5, 13), (6, 13)),
        ),
        "xp": dataclasses.replace(
            SABRA,
            preset="xp",
            tiles="xp",
            players=(2, 3, 4, 5, 6),
            deal=tuple((n, 14) for n in range(2, 7)),
        ),
        "classic-timed": dataclasses.replace(
            SABRA,
            preset="classic-timed",
            players=(2, 3, 4, 5, 6),
            deal=((2, 10), (3, 7), (4, 7), (5, 7), (6, 7)),
            turn_time_limit=120,
            timeout_penalty=3,
            timeout_keeps_valid_sets=True,
        ),
        "online-sabra": dataclasses.replace(SABRA, preset="online-sabra", pool_exhausted_end="one_more_turn"),
    }
)
"""Every rules preset by name (read-only: a preset is shared by every request naming it)."""

PRESET_DESCRIPTIONS: dict[str, str] = {
    "sabra": "Current official rules (Sabra/Kodkod): 106 tiles, 14 dealt, opening 30, jokers freed by their tile from rack or table.",
    "pressman-2009": "Pressman 2009 booklet: joker replaced from the rack only, freed joker into a new set with two rack tiles, 120 s turns, 1-tile timeout penalty.",
    "strict-joker": "Older strict rule: nothing leaves a set holding a joker, its joker cannot move, only the exact tile frees it.",
    "free-joker": "Newer Goliath/Jumbo rule: any legal rearrangement frees a joker.",
    "opening-50": "Older 'Sabra way' opening: the initial meld needs 50 points.",
    "komoni": "Rummy Komoni: joker 25, losers collect penalty points (lowest total wins), 14 tiles for 2 players and 13 for 3-6.",
    "xp": "Rummikub XP: 160 tiles (3 copies, 4 jokers) for 2-6 players.",
    "classic-timed": "The 'reglas completas' edition: 10 tiles for 2 players and 7 for 3-6 (up to 6 on one classic set), 120 s turns; over time the valid sets stay, the rest goes back and the player draws 3.",
    "online-sabra": "The online help page: sabra, but once the pool is empty every player has exactly one more turn.",
}

PRESET_DESCRIPTIONS_ES: dict[str, str] = {
    # The CLI's reports with --lang es; the API's rules listing stays English.
    "sabra": "Reglas oficiales actuales (Sabra/Kodkod): 106 fichas, 14 por jugador, primera jugada de 30 puntos, los comodines se liberan con su ficha, del atril o de la mesa.",
    "pressman-2009": "Folleto de Pressman 2009: el comodín se sustituye solo desde el atril, el comodín liberado va a una combinación nueva con dos fichas del atril, turnos de 120 s, 1 ficha de penalización por tiempo.",
    "strict-joker": "Regla estricta antigua: nada sale de una combinación con comodín, su comodín no se mueve y solo la ficha exacta lo libera.",
    "free-joker": "Regla más reciente de Goliath/Jumbo: cualquier reorganización legal libera un comodín.",
    "opening-50": "Variante antigua «a la Sabra»: la primera jugada necesita 50 puntos.",
    "komoni": "Rummy Komoni: comodín 25, los perdedores suman puntos de penalización (gana el total más bajo), 14 fichas para 2 jugadores y 13 para 3-6.",
    "xp": "Rummikub XP: 160 fichas (3 copias, 4 comodines) para 2-6 jugadores.",
    "classic-timed": "La edición de «reglas completas»: 10 fichas para 2 jugadores y 7 para 3-6 (hasta 6 jugadores con un solo juego clásico), turnos de 120 s; si se acaba el tiempo, las combinaciones válidas se quedan, el resto vuelve al atril y el jugador roba 3.",
    "online-sabra": "La página de ayuda en línea: sabra, pero cuando el pozo se agota cada jugador tiene exactamente un turno más.",
}


def _check_setting(name: str, value: Any) -> Any:
    """Validate one override and return it in the Rules field's type."""
    pointer = f"/{pointer_token(name)}"
    if name in CHOICES:
        if not isinstance(value, str) or value not in CHOICES[name]:
            raise RulesError(f"'{name}' must be one of {', '.join(CHOICES[name])}", pointer)
        return value
    if name in BOOLEANS:
        if not isinstance(value, bool):
            raise RulesError(f"'{name}' must be true or false", pointer)
        return value
    if name in COUNTS:
        count = whole_number(value)
        if count is None or not 0 <= count <= 1000:
            raise RulesError(f"'{name}' must be a whole number from 0 to 1000", pointer)
        return count
    if name == "turn_time_limit":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86400:
            raise RulesError("'turn_time_limit' must be a number of seconds (0 < s <= 86400) or null", pointer)
        return value if type(value) in (int, float) else int(value) if isinstance(value, int) else float(value)
    if name == "players":
        counts = [whole_number(n) for n in value] if isinstance(value, list) else []
        wrong = [i for i, n in enumerate(counts) if n is None or not 2 <= n <= MAX_PLAYERS][:MAX_ERRORS_LISTED]
        if not counts or wrong:
            message = f"'players' must be a non-empty array of player counts from 2 to {MAX_PLAYERS}"
            raise RulesError.of(
                [RulesError(message, f"{pointer}/{i}") for i in wrong] or [RulesError(message, pointer)]
            )
        return tuple(sorted({n for n in counts if n is not None}))
    if name == "deal":
        dealt = whole_number(value)
        if isinstance(value, bool) or (isinstance(value, int | float) and (dealt is None or not 1 <= dealt <= 30)):
            raise RulesError("'deal' must be 1-30 tiles, or an object mapping player counts to 1-30", pointer)
        if dealt is not None:
            return tuple((n, dealt) for n in range(2, MAX_PLAYERS + 1))
        if not isinstance(value, Mapping):
            raise RulesError("'deal' must be a number of tiles or an object keyed by player count", pointer)
        deal: dict[int, int] = {}
        errors: list[RulesError] = []
        for key, tiles in value.items():
            if len(errors) == MAX_ERRORS_LISTED:
                break
            if str(key) not in _PLAYER_COUNT_KEYS:  # "2", not "02": two spellings would collide
                errors.append(
                    RulesError(
                        f"'deal' keys must be player counts from 2 to {MAX_PLAYERS}", f"{pointer}/{pointer_token(key)}"
                    )
                )
                continue
            count = whole_number(tiles)
            if count is None or not 1 <= count <= 30:
                errors.append(RulesError("each 'deal' entry must be 1-30 tiles", f"{pointer}/{pointer_token(key)}"))
                continue
            deal[int(key)] = count
        if errors:
            raise RulesError.of(errors)
        return tuple(sorted(deal.items()))
    raise RulesError(f"unknown setting '{name}'", pointer)


RulesLike = Rules | str | Mapping[str, Any]
"""What the public functions take for ``rules``: a Rules, a preset's name, or a request's
``rules`` object (``resolve_rules`` reads it)."""


def resolve_rules(value: Any = None) -> Rules:
    """Rules from a request's ``rules`` value: None (sabra), a preset name, a Rules, or an
    object ``{"preset"?: name, **overrides}``. Raises RulesError naming the offending key."""
    if value is None:
        return SABRA
    if isinstance(value, Rules):
        return value
    if isinstance(value, str):
        if value not in PRESETS:
            raise RulesError(f"unknown rules preset {value!r}; presets: {', '.join(PRESETS)}")
        return PRESETS[value]
    if not isinstance(value, Mapping):
        raise RulesError("'rules' must be a preset name or an object")
    errors: list[RulesError] = []  # every one, not only the first
    preset_name = value.get("preset", "sabra")
    if not isinstance(preset_name, str):
        errors.append(RulesError(f"'preset' must be a preset name: {', '.join(PRESETS)}", "/preset"))
    elif preset_name not in PRESETS:
        errors.append(RulesError(f"unknown rules preset {preset_name!r}; presets: {', '.join(PRESETS)}", "/preset"))
    overrides = {}
    for name, setting in value.items():
        if len(errors) >= MAX_ERRORS_LISTED:  # (each setting's own stop there too: ``of`` keeps the first)
            break
        if name == "preset":
            continue
        if name not in SETTINGS:
            errors.append(RulesError(f"unknown setting '{name}'", f"/{pointer_token(name)}"))
            continue
        try:
            overrides[name] = _check_setting(name, setting)
        except RulesError as exc:
            errors.append(exc)
    if errors:
        raise RulesError.of(errors)
    base = PRESETS[preset_name]
    if not overrides:
        return base
    if isinstance(value.get("deal"), Mapping):  # a deal object overrides the preset's deal count by count
        overrides["deal"] = tuple(sorted({**dict(base.deal), **dict(overrides["deal"])}.items()))
    if "players" in overrides or "deal" in overrides:
        players = overrides.get("players", base.players)
        overrides["deal"] = _complete_deal(overrides.get("deal", base.deal), players)
    return dataclasses.replace(base, **overrides)


def _complete_deal(deal: tuple[tuple[int, int], ...], players: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Every allowed player count with a deal: a count without an entry is dealt as the next
    smaller count that has one (or, below every entry, as the smallest). docs/rules-engine.md."""
    dealt = dict(deal)
    for n in players:
        if n not in dealt:
            smaller = [k for k in dealt if k < n]
            dealt[n] = dealt[max(smaller)] if smaller else dealt[min(dealt)]
    return tuple(sorted(dealt.items()))
