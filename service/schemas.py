"""marshmallow schemas for every request body of the v1 API (SPEC §7).

Every schema rejects unknown fields and wrong JSON types at every level. Tiles, sets, tables and
rules are read by custom fields that call the engine's parsers, so an error deep inside a table
carries its exact JSON Pointer (``/after/2/1``, ``/sets/0/tiles/3/color``). :func:`load_request`
turns marshmallow's nested error dict into a flat list of ``{"pointer", "detail"}``.

Request limits (:class:`service.limits.Limits`) are checked here, before any list is parsed, so a
request over a limit costs no more than reading its JSON. A limit error is a
:class:`LimitMessage`; :func:`load_request` reports those with HTTP 413.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, NamedTuple, TypeVar

from marshmallow import RAISE, Schema, ValidationError, fields, missing, post_load, types, validate, validates_schema

from engine.errors import MAX_ERRORS_LISTED, InputError
from engine.replay import GameRecord, RecordedPlayer, RecordedTurn
from engine.rules import MAX_PLAYERS, SABRA, Rules, RulesError, resolve_rules
from engine.scoring import MatchRound, PlayerRack
from engine.sets import SET_FIELDS, TableSet, parse_set, set_object_errors
from engine.solver import OBJECTIVES, TIE_BREAKS
from engine.tiles import JOKER_FIELDS, TILE_FIELDS, Tile, parse_tile, parse_tiles
from engine.turns import require_rack
from service.limits import DEFAULT_LIMITS, Limits

MAX_REPORTED_ERRORS = MAX_ERRORS_LISTED
"""A request with more errors than this reports the first ones only (bounded response size)."""


class RawPointer(str):
    """An error-dict key that is already a JSON Pointer suffix (``/2/1``), as the engine's
    parsers report them; other keys are field names or list indices and get escaped."""

    __slots__ = ()


class LimitMessage(str):
    """An error message for a request over one of the limits; ``limit`` names its setting,
    ``es`` says the same in Spanish (the 413's Spanish ``detail``)."""

    limit: str
    es: str

    def __new__(cls, text: str, limit: str, es: str | None = None) -> LimitMessage:
        obj = super().__new__(cls, text)
        obj.limit = limit
        obj.es = es or text
        return obj


@dataclass(frozen=True, slots=True)
class FieldError:
    """One reason a request cannot be read: where (JSON Pointer) and why."""

    pointer: str
    detail: str
    limit: str | None = None
    detail_es: str | None = None  # (a limit's, for the problem's Spanish detail; errors[] stay English)

    def to_json(self) -> dict[str, str]:
        out = {"pointer": self.pointer, "detail": self.detail}
        if self.limit is not None:
            out["limit"] = self.limit
        return out


class RequestInvalid(Exception):
    """A request body that does not match its schema (``errors`` are flat, pointer-first)."""

    def __init__(self, errors: list[FieldError], total: int) -> None:
        super().__init__(f"{total} error(s)")
        self.errors = errors
        self.total = total

    @property
    def over_limit(self) -> bool:
        return bool(self.errors) and all(e.limit is not None for e in self.errors)


# --- per-request budget ------------------------------------------------------------------------


@dataclass(slots=True)
class _Budget:
    limits: Limits
    tiles: int = 0
    exceeded: bool = False
    bad_items: int = 0  # bad tiles and sets reported so far: reading stops at MAX_REPORTED_ERRORS

    @property
    def stopped(self) -> bool:
        """Over the tile limit, or as many bad tiles and sets found as a problem lists: the
        request fails anyway, and the tiles and sets left are not read (an all-invalid body
        built ~20,000 error messages to list 50, 300 ms where a valid one took 35; 60,000 empty
        set objects 0.65 s: the service audits, session 49)."""
        return self.exceeded or self.bad_items >= MAX_REPORTED_ERRORS

    def take(self, count: int) -> LimitMessage | None:
        """Count ``count`` more tiles; a limit message the first time the total goes over."""
        if self.exceeded:
            return None
        self.tiles += count
        if self.tiles > self.limits.max_tiles:
            self.exceeded = True
            return _limit_message(
                "max_tiles",
                f"the request holds more than {self.limits.max_tiles} tiles",
                self.limits,
                f"la petición tiene más de {self.limits.max_tiles} fichas",
            )
        return None


_BUDGET: ContextVar[_Budget | None] = ContextVar("rummikub_request_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    return budget if budget is not None else _Budget(DEFAULT_LIMITS)


def _limit_message(field: str, what: str, limits: Limits, what_es: str) -> LimitMessage:
    name, limit = Limits.env_name(field), getattr(limits, field)
    return LimitMessage(f"{what}; the limit is {limit} ({name})", name, f"{what_es}; el límite es {limit} ({name})")


class _Skip(Exception):
    """The tile budget is already spent, or the errors a problem lists are found: stop parsing
    (the request fails anyway)."""


# --- scalar fields -----------------------------------------------------------------------------

_T = TypeVar("_T")

_IN_OUR_WORDS: dict[str, str | list[Any] | dict[Any, Any]] = {"required": "is required", "null": "must not be null"}
"""marshmallow's two messages every field may give, worded as ours are ("must be a string"; it
says "Missing data for required field.")."""


class _Field(fields.Field[_T]):
    """Base of our fields: a value that is present and not null goes straight to
    ``_deserialize`` when the field has no validators or field-level hooks (none of ours has);
    marshmallow's generic path, which handles required, null and defaults, costs more than
    reading a tile string."""

    default_error_messages = _IN_OUR_WORDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._direct = not (self.validators or self.pre_load or self.post_load)

    def deserialize(
        self, value: Any, attr: str | None = None, data: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        if value is missing:
            if self.required:
                return super().deserialize(value, attr, data, **kwargs)
            default = self.load_default  # what marshmallow returns, without its checks
            return default() if callable(default) else default
        if value is None or not self._direct:
            return super().deserialize(value, attr, data, **kwargs)
        return self._deserialize(value, attr, data, **kwargs)


class StrictBoolean(_Field[bool]):
    """``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes"...)."""

    invalid_message = "must be true or false"

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise ValidationError(self.invalid_message)
        return value


class StrictString(_Field[str]):
    """A JSON string, nothing else."""

    invalid_message = "must be a string"

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if not isinstance(value, str):
            raise ValidationError(self.invalid_message)
        return value


class Seconds(_Field[float]):
    """A finite, non-negative JSON number (a boolean is not a number)."""

    invalid_message = "must be a non-negative number of seconds"

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError(self.invalid_message)
        try:
            seconds = float(value)  # an integer past a float's range (2**1024 written out) overflows
        except OverflowError:
            raise ValidationError(self.invalid_message) from None
        if not math.isfinite(seconds) or seconds < 0:
            raise ValidationError(self.invalid_message)
        return value


# --- engine-backed fields ----------------------------------------------------------------------


def _engine_error(exc: InputError) -> ValidationError:
    """A ValidationError keyed by the engine's relative pointer (every error of a rules value:
    ``RulesError.others``)."""
    every = exc.every if isinstance(exc, RulesError) else (exc,)
    if len(every) == 1 and not exc.pointer:
        return ValidationError(exc.message)
    messages: dict[RawPointer, list[str]] = {}
    for error in every:
        messages.setdefault(RawPointer(error.pointer), []).append(error.message)
    return ValidationError(messages)


_TEXT_TILES: dict[str, Tile] = {}
"""Tile strings already read (the engine's parser is the authority; this only skips calls)."""
_TEXT_TILES_MAX = 4096


def _parse_tile_array(value: list[Any], budget: _Budget, prefix: str = "") -> tuple[Tile, ...]:
    """Parse every tile of an array, reporting every bad tile (not just the first); error
    pointers are ``prefix/index...``."""
    over = budget.take(len(value))
    if over is not None:
        raise ValidationError(over)
    if budget.stopped:
        raise _Skip
    known = _TEXT_TILES
    try:
        return tuple(map(known.__getitem__, value))  # every tile a string read before
    except (KeyError, TypeError):  # a new string, or another JSON value: read one by one
        pass
    tiles: list[Tile] = []
    errors: dict[Any, Any] = {}
    for i, raw in enumerate(value):
        if raw.__class__ is str:
            tile = known.get(raw)
            if tile is not None:
                tiles.append(tile)
                continue
        try:
            tile = parse_tile(raw)
        except InputError as exc:
            errors[RawPointer(f"{prefix}/{i}{exc.pointer}")] = [exc.message]
            budget.bad_items += 1
            if budget.bad_items >= MAX_REPORTED_ERRORS:
                break
            continue
        tiles.append(tile)
        if raw.__class__ is str and len(known) < _TEXT_TILES_MAX:
            known[raw] = tile
    if errors:
        raise ValidationError(errors)
    return tuple(tiles)


class TileField(_Field[Tile]):
    """One tile, in string or object form (SPEC §1)."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Tile:
        over = _budget().take(1)
        if over is not None:
            raise ValidationError(over)
        try:
            return parse_tile(value)
        except InputError as exc:
            raise _engine_error(exc) from None


class TileListField(_Field[tuple[Tile, ...]]):
    """An array of tiles (a rack, a pool)."""

    invalid_message = "must be an array of tiles"

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> tuple[Tile, ...]:
        if not isinstance(value, list):
            raise ValidationError(self.invalid_message)
        try:
            return _parse_tile_array(value, _budget())
        except _Skip:
            return ()


def _parse_set_strings(tiles: tuple[str, ...]) -> TableSet:
    return TableSet(parse_tiles(list(tiles)))


DEFAULT_SET_CACHE_SIZE = 8192
_known_set: Callable[[tuple[str, ...]], TableSet] = lru_cache(maxsize=DEFAULT_SET_CACHE_SIZE)(_parse_set_strings)
"""A set given as an array of tile strings, read once per process: a table carries the same sets
from turn to turn and ``TableSet`` keeps its readings, so a set seen before costs a dictionary
lookup. Raises InputError like the engine's parser (errors are not cached)."""


def configure_set_cache(size: int) -> None:
    """Keep up to ``size`` parsed sets per process (0 turns the cache off)."""
    global _known_set
    _known_set = lru_cache(maxsize=size)(_parse_set_strings) if size > 0 else _parse_set_strings


def _read_set(value: Any, budget: _Budget) -> TableSet:
    """One set (array of tiles or ``{"tiles", "kind"?, "id"?}``), within the limits."""
    if value.__class__ is list and len(value) <= budget.limits.max_tiles_per_set:  # the common case
        over = budget.take(len(value))
        if over is not None:
            raise ValidationError(over)
        if budget.stopped:
            raise _Skip
        try:
            # Only arrays of valid tile strings are ever cached (any other value fails to parse).
            return _known_set(tuple(value))
        except (InputError, TypeError):  # a bad tile, or an unhashable one (an object form)
            budget.tiles -= len(value)  # counted again below, where every bad tile is reported
        return TableSet(_parse_tile_array(value, budget))
    tiles = value.get("tiles") if isinstance(value, Mapping) else value
    if isinstance(tiles, list):
        if len(tiles) > budget.limits.max_tiles_per_set:
            raise ValidationError(
                _limit_message(
                    "max_tiles_per_set",
                    f"this set has {len(tiles)} tiles",
                    budget.limits,
                    f"esta combinación tiene {len(tiles)} fichas",
                )
            )
        if not isinstance(value, Mapping):
            return TableSet(_parse_tile_array(tiles, budget))
        shell = set_object_errors(value, "")  # unknown fields, kind, id: listed beside the tiles' errors
        if not shell:
            return TableSet(_parse_tile_array(tiles, budget, "/tiles"), value.get("kind"), value.get("id"))
        messages: dict[Any, Any] = {RawPointer(e.pointer): [e.message] for e in shell}
        try:
            _parse_tile_array(tiles, budget, "/tiles")
        except ValidationError as exc:
            if not isinstance(exc.messages, dict):  # over a limit: that alone
                raise
            messages.update(exc.messages)
        except _Skip:
            pass
        raise ValidationError(messages)
    if isinstance(value, Mapping):  # (its tiles no array: that beside the object's other errors)
        raise ValidationError({RawPointer(e.pointer): [e.message] for e in set_object_errors(value, "")})
    try:
        return parse_set(value, "")
    except InputError as exc:
        raise _engine_error(exc) from None


def _known_table(value: list[Any], budget: _Budget) -> tuple[TableSet, ...] | None:
    """The common case in one pass: every set an array of valid tile strings, within the limits.
    None sends the table to the set-by-set reading, which reports every error with its pointer."""
    cap = budget.limits.max_tiles_per_set
    count = 0
    for raw in value:
        if raw.__class__ is not list or len(raw) > cap:
            return None
        count += len(raw)
    if budget.exceeded or budget.tiles + count > budget.limits.max_tiles:
        return None
    known = _known_set
    try:
        table = tuple([known(tuple(raw)) for raw in value])
    except (InputError, TypeError):  # a bad tile, or an object form
        return None
    budget.tiles += count
    return table


class TableField(_Field[tuple[TableSet, ...]]):
    """A table: an array of sets. Reports the errors of every set, each with its pointer."""

    invalid_message = "must be an array of sets"

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> tuple[TableSet, ...]:
        if not isinstance(value, list):
            raise ValidationError(self.invalid_message)
        budget = _budget()
        if len(value) > budget.limits.max_sets_per_table:
            raise ValidationError(
                _limit_message(
                    "max_sets_per_table",
                    f"this table has {len(value)} sets",
                    budget.limits,
                    f"esta mesa tiene {len(value)} combinaciones",
                )
            )
        fast = _known_table(value, budget)
        if fast is not None:
            return fast
        sets: list[TableSet] = []
        errors: dict[Any, Any] = {}
        for i, raw in enumerate(value):
            if budget.stopped:
                break
            bad_before = budget.bad_items
            try:
                sets.append(_read_set(raw, budget))
            except ValidationError as exc:
                errors[i] = exc.messages
                if budget.bad_items == bad_before:  # the set's own fault, not its tiles' (counted there)
                    budget.bad_items += 1
            except _Skip:
                break
        if errors:
            raise ValidationError(errors)
        return tuple(sets)


class RulesField(_Field[Rules | None]):
    """``rules``: a preset name or ``{"preset"?, ...overrides}`` (SPEC §3). Missing or null gives
    ``default`` (sabra; a match round's default is None: it follows the match's rules)."""

    def __init__(self, default: Rules | None = SABRA, **kwargs: Any) -> None:
        super().__init__(load_default=default, allow_none=True, **kwargs)
        self.default = default

    def deserialize(
        self, value: Any, attr: str | None = None, data: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Rules | None:
        if value is None:
            return self.default
        rules: Rules | None = super().deserialize(value, attr, data, **kwargs)
        return rules

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Rules:
        budget = _budget()
        if budget.stopped:  # refused already (a match's 500 rounds of bad rules cost 0.3 s): not read
            return SABRA
        try:
            return resolve_rules(value)
        except InputError as exc:
            budget.bad_items += len(exc.every) if isinstance(exc, RulesError) else 1
            raise _engine_error(exc) from None
        except (ValueError, TypeError, KeyError) as exc:  # defensive: the engine should raise InputError
            raise ValidationError(f"these rules cannot be read ({exc})") from None


class Object(fields.Nested):
    """A JSON object read by a schema (an item of an array: a player, a round, a turn)."""

    default_error_messages = {**_IN_OUR_WORDS, "type": "must be a JSON object"}  # noqa: RUF012


class BoundedList(fields.List[Any]):
    """A JSON array with at most ``getattr(limits, limit)`` items."""

    # ("Not a valid list." was marshmallow's: a hostile-client audit, session 44)
    default_error_messages = {**_IN_OUR_WORDS, "invalid": "must be an array"}  # noqa: RUF012

    def __init__(self, inner: fields.Field[Any], limit: str, **kwargs: Any) -> None:
        super().__init__(inner, **kwargs)
        self.limit = limit

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        if isinstance(value, list):
            limits = _budget().limits
            cap = getattr(limits, self.limit)
            if self.limit == "max_players" and len(value) > MAX_PLAYERS:  # a rule of the game, not a limit
                raise ValidationError(f"{len(value)} players: no edition has more than {MAX_PLAYERS}")
            if len(value) > cap:
                raise ValidationError(
                    _limit_message(
                        self.limit,
                        f"this array has {len(value)} items",
                        limits,
                        f"esta lista tiene {len(value)} elementos",
                    )
                )
        return super()._deserialize(value, attr, data, **kwargs)


# --- request schemas ---------------------------------------------------------------------------


class _FieldPlan(NamedTuple):
    steps: tuple[tuple[str, str, fields.Field[Any]], ...]  # JSON key, attribute, field
    keys: frozenset[str]  # every JSON key a field reads


class StrictSchema(Schema):
    """Unknown fields are errors; a body that is not an object is an error."""

    error_messages = {"type": "must be a JSON object", "unknown": "unknown field"}  # noqa: RUF012

    def load(
        self,
        data: Any,
        *,
        many: bool | None = None,
        partial: bool | types.StrSequenceOrSet | None = None,
        unknown: types.UnknownOption | None = None,
    ) -> Any:
        """marshmallow's ``load``. A JSON object for a schema without hooks is read by
        :meth:`_load_fields`, which gives the same result and the same errors for less than
        marshmallow's generic path costs (a measurable share of a verification request)."""
        plan = self._field_plan
        if plan is not None and data.__class__ is dict and not (many or partial or unknown):
            return self._load_fields(data, plan)
        try:
            return super().load(data, many=many, partial=partial, unknown=unknown)
        except ValidationError as exc:
            if not (isinstance(data, dict) and isinstance(exc.messages, dict)):
                raise
            raise self._unknown_in_body_order(exc, data) from None

    @cached_property
    def _known_keys(self) -> frozenset[str]:
        """Every JSON key a field reads."""
        return frozenset(name if field.data_key is None else field.data_key for name, field in self.load_fields.items())

    def _unknown_in_body_order(self, exc: ValidationError, data: dict[str, Any]) -> ValidationError:
        """marshmallow's errors with its unknown fields in the body's order, as
        :meth:`_load_fields` lists them: marshmallow lists them in a set's order, which varies
        with the strings' hashes from run to run (the input audit, session 50)."""
        messages: dict[Any, Any] = exc.messages  # type: ignore[assignment]
        known = self._known_keys
        unknown = iter([key for key in data if key not in known and key in messages])
        ordered: dict[Any, Any] = {}
        for key in messages:
            name = next(unknown) if key not in known and key in data else key
            ordered[name] = messages[name]
        return ValidationError(ordered, data=exc.data, valid_data=exc.valid_data)

    @cached_property
    def _field_plan(self) -> _FieldPlan | None:
        """How :meth:`_load_fields` reads a body. None sends every body to marshmallow (hooks,
        ``many``, ``partial``, ``unknown`` other than RAISE)."""
        if self.many or self.partial or any(self._hooks.values()) or self.unknown != RAISE:
            return None
        steps = tuple(
            (name if field.data_key is None else field.data_key, field.attribute or name, field)
            for name, field in self.load_fields.items()
        )
        return _FieldPlan(steps, frozenset(key for key, _, _ in steps))

    def _load_fields(self, data: dict[str, Any], plan: _FieldPlan) -> Any:
        """Each field's value, or a ValidationError keyed like marshmallow's (field errors in
        field order, then unknown fields in the body's order)."""
        result: dict[str, Any] = {}
        errors: dict[str, Any] = {}
        for key, attribute, field in plan.steps:
            try:
                value = field.deserialize(data.get(key, missing), key, data)
            except ValidationError as exc:
                errors[key] = exc.messages
                continue
            if value is not missing:
                result[attribute] = value
        if not plan.keys.issuperset(data):
            for key in data:
                if key not in plan.keys:
                    errors[key] = [self.error_messages["unknown"]]
        if errors:
            raise ValidationError(errors, data=data, valid_data=result)
        return result


def _rules() -> RulesField:
    return RulesField()


class SetsValidateRequest(StrictSchema):
    sets = TableField(required=True)
    rules = _rules()


class MeldCheckRequest(StrictSchema):
    sets = TableField(required=True)
    rack = TileListField(load_default=None, allow_none=True)
    rules = _rules()


@dataclass(frozen=True, slots=True)
class LooseTiles:
    """A turn's ``after`` given as a flat list of tiles: the service finds the arrangement."""

    tiles: tuple[Tile, ...]
    form: str = ""
    """Where the tiles lie in ``after``: ``""`` (a flat array), ``"/loose"`` (the object form)."""


def is_loose(value: list[Any]) -> bool:
    """A flat list of tiles rather than a list of sets: read by its first item that is clearly
    one or the other (a set: an array, or an object with a set's fields; a tile: a string, or an
    object with a tile's fields), and a list of tiles when none is. So a malformed item is told
    as what the others are: ``[{"x": [...]}, ["K1", "K2", "K3"]]`` is a table whose set 0 is
    malformed, in either order (session 42: before, the first item decided, and the whole list
    was read as tiles), and ``["R6", ["R3"]]`` loose tiles of which item 1 is no tile."""
    for item in value:
        if item.__class__ is list:  # a set: the common case
            return False
        if isinstance(item, str):
            return True
        if isinstance(item, Mapping):
            if not SET_FIELDS.isdisjoint(item):
                return False
            if not (TILE_FIELDS | JOKER_FIELDS).isdisjoint(item):
                return True
    return True


class AfterField(_Field[tuple[TableSet, ...] | LooseTiles]):
    """A turn's ``after``: a table (array of sets) or a loose table (``{"loose": [tiles]}``, or
    a flat array of tiles)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.table = TableField()
        self.loose = TileListField()

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> tuple[TableSet, ...] | LooseTiles:
        if isinstance(value, list) and value and is_loose(value):
            tiles: tuple[Tile, ...] = self.loose.deserialize(value, attr, data, **kwargs)
            return LooseTiles(tiles)
        if isinstance(value, Mapping):  # the object form {"loose": [tiles]}, for generated clients
            if "loose" not in value:
                raise ValidationError('must be an array of sets, or {"loose": [tiles]} for a loose table')
            errors: dict[Any, Any] = {
                k: ["unknown field"] for k in sorted(k for k in value if k != "loose")[:MAX_REPORTED_ERRORS]
            }
            try:
                tiles = self.loose.deserialize(value["loose"], attr, data, **kwargs)
            except ValidationError as exc:
                errors["loose"] = exc.messages
            if errors:
                raise ValidationError(errors)
            return LooseTiles(tiles, "/loose")
        table: tuple[TableSet, ...] = self.table.deserialize(value, attr, data, **kwargs)
        return table


def _rack_not_empty(rack: Sequence[Tile]) -> None:
    """An empty rack (SPEC §4: that player has gone out; moves/suggest the same), told beside
    the request's other errors (``require_rack`` said it only when there were none: the API
    audit, session 38). Not when reading stopped before the rack (the tile limit passed, or the
    errors a problem lists found): it was not read then (an after over the limit made it look
    empty: a worst-cost hunt, session 43)."""
    if not rack and _budget().stopped:
        return
    try:
        require_rack(rack)
    except InputError as exc:
        raise ValidationError(exc.message) from None


class TurnVerifyRequest(StrictSchema):
    before = TableField(required=True)
    after = AfterField(required=True)
    rack = TileListField(required=True, validate=_rack_not_empty)
    opened = StrictBoolean(required=True)
    elapsed_seconds = Seconds(load_default=None, allow_none=True)
    rules = _rules()


class RoundPlayer(StrictSchema):
    name = StrictString(required=True)
    rack = TileListField(required=True)
    opened = StrictBoolean(load_default=None, allow_none=True)

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> PlayerRack:
        return PlayerRack(data["name"], data["rack"], data["opened"])


class RoundScoreRequest(StrictSchema):
    players = BoundedList(Object(RoundPlayer), "max_players", required=True)
    winner = StrictString(load_default=None, allow_none=True)
    rules = _rules()


class MatchRoundSchema(StrictSchema):
    """A round inside a match; its own ``rules``, if given, override the match's."""

    players = BoundedList(Object(RoundPlayer), "max_players", required=True)
    winner = StrictString(load_default=None, allow_none=True)
    rules = RulesField(default=None)

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> MatchRound:
        return MatchRound(tuple(data["players"]), data["winner"], data["rules"])


class MatchScoreRequest(StrictSchema):
    rounds = BoundedList(Object(MatchRoundSchema), "max_rounds", required=True)
    rules = _rules()


class RecordPlayer(StrictSchema):
    name = StrictString(required=True)
    rack = TileListField(required=True)

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> RecordedPlayer:
        return RecordedPlayer(data["name"], data["rack"])


class RecordTurn(StrictSchema):
    """A ``{"player", "draw"}`` or ``{"player", "table", "elapsed_seconds"?}`` entry."""

    player = StrictString(required=True)
    draw = TileField()
    table = TableField()
    elapsed_seconds = Seconds(load_default=None, allow_none=True)

    @validates_schema
    def one_action(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("draw" in data) == ("table" in data):
            raise ValidationError("a turn has exactly one of 'draw' and 'table'")

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> RecordedTurn:
        draw = data.get("draw")
        return RecordedTurn(
            data["player"],
            draw=None if draw is None else draw.undeclared(),
            table=data.get("table"),
            elapsed_seconds=data["elapsed_seconds"],
        )


class GameReplayRequest(StrictSchema):
    """A game record (SPEC §6) plus the replay options."""

    players = BoundedList(
        Object(RecordPlayer),
        "max_players",
        required=True,
        validate=validate.Length(min=1, error="a game needs at least one player"),
    )
    pool = TileListField(load_default=None, allow_none=True)
    turns = BoundedList(Object(RecordTurn), "max_turns", load_default=list)
    end = StrictString(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(["pool_exhausted"], error="must be 'pool_exhausted' when given"),
    )
    rules = _rules()
    analyze = StrictBoolean(load_default=False)
    continue_on_error = StrictBoolean(load_default=False)

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        record = GameRecord(tuple(data["players"]), tuple(data["turns"]), data["pool"], data["end"], data["rules"])
        return {"record": record, "analyze": data["analyze"], "continue_on_error": data["continue_on_error"]}


class ArrangeRequest(StrictSchema):
    """SPEC §9 ``POST /v1/tables/arrange``."""

    tiles = TileListField(required=True)
    rules = _rules()


class SuggestRequest(StrictSchema):
    """SPEC §9 ``POST /v1/moves/suggest``; ``tie_break`` picks among the best moves (#18)."""

    table = TableField(required=True)
    rack = TileListField(required=True, validate=_rack_not_empty)
    opened = StrictBoolean(required=True)
    objective = StrictString(
        load_default="tiles",
        validate=validate.OneOf(OBJECTIVES, error="must be 'tiles' or 'value'"),
    )
    tie_break = StrictString(
        load_default="least_change",
        validate=validate.OneOf(TIE_BREAKS, error="must be 'least_change' or 'any'"),
    )
    rules = _rules()


# --- loading -----------------------------------------------------------------------------------


def escape_pointer_token(token: str) -> str:
    """RFC 6901 escaping of one reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def flatten_errors(messages: Any, prefix: str = "") -> Iterator[FieldError]:
    """marshmallow's nested error messages as flat ``FieldError``s, in request order."""
    if isinstance(messages, Mapping):
        for key, sub in messages.items():
            if key == "_schema":
                pointer = prefix
            elif isinstance(key, RawPointer):
                pointer = prefix + key
            else:
                pointer = f"{prefix}/{escape_pointer_token(str(key))}"
            yield from flatten_errors(sub, pointer)
    elif isinstance(messages, list | tuple):
        for message in messages:
            if isinstance(message, Mapping | list | tuple):
                yield from flatten_errors(message, prefix)
            else:
                yield _field_error(prefix, message)
    else:
        yield _field_error(prefix, messages)


def _field_error(pointer: str, message: Any) -> FieldError:
    if isinstance(message, LimitMessage):
        return FieldError(pointer, str(message), message.limit, message.es)
    return FieldError(pointer, str(message))


def _listed(errors: list[FieldError]) -> list[FieldError]:
    """The errors a problem lists, at most MAX_REPORTED_ERRORS, in their order: the request's own
    fields' (``/opened``, an unknown ``/zz``; up to half the list) whatever the number of bad
    tiles before them (50 bad tiles hid a wrong ``opened``, counted but not listed: the contract
    audit, session 52), then as many of the others as fit."""
    if len(errors) <= MAX_REPORTED_ERRORS:
        return errors
    own = [i for i, e in enumerate(errors) if e.pointer.count("/") <= 1][: MAX_REPORTED_ERRORS // 2]
    taken = set(own)
    others = [i for i in range(len(errors)) if i not in taken][: MAX_REPORTED_ERRORS - len(own)]
    return [errors[i] for i in sorted(own + others)]


def load_request(schema: Schema, body: Any, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Validate and convert ``body`` with ``schema``. Raises :class:`RequestInvalid`."""
    token = _BUDGET.set(_Budget(limits))
    try:
        return schema.load(body)
    except ValidationError as exc:
        errors = list(flatten_errors(exc.messages))
        # Over a limit and otherwise readable: 413 naming the limit. A body that is also wrong
        # in its content gets the 422 (every error, the limit ones too): fixing the size alone
        # would not make it readable.
        limited = [e for e in errors if e.limit is not None]
        shown = errors if len(limited) < len(errors) else limited
        raise RequestInvalid(_listed(shown), len(shown)) from None
    finally:
        _BUDGET.reset(token)


class RenderPositionRequest(StrictSchema):
    """``POST /v1/render`` with a position: a moves/suggest body (``objective`` and
    ``tie_break`` are accepted and ignored); ``rack`` and ``opened`` are optional."""

    table = TableField(required=True)
    rack = TileListField(load_default=None, allow_none=True)
    opened = StrictBoolean(load_default=None, allow_none=True)
    objective = StrictString(
        load_default="tiles",
        validate=validate.OneOf(OBJECTIVES, error="must be 'tiles' or 'value'"),
    )
    tie_break = StrictString(
        load_default="least_change",
        validate=validate.OneOf(TIE_BREAKS, error="must be 'least_change' or 'any'"),
    )
    rules = _rules()


def render_schema(body: Any) -> Schema:
    """The schema of a ``POST /v1/render`` body: a turn (it has ``before`` or ``after``, read as
    turns/verify reads it) or a position."""
    if isinstance(body, Mapping) and ("before" in body or "after" in body):
        return TurnVerifyRequest()
    return RenderPositionRequest()
