"""The v1 operations, transport-free: validate a request body, run the engine, return the JSON.

The Flask views (:mod:`service.app`) and the CLI's in-process mode both call
:func:`run_operation`, so a local answer and a remote one are the same document. Nothing here
imports Flask.

A request that cannot be read raises :class:`RequestError`, which renders as an RFC 9457
problem document (``application/problem+json``): 422 for schema, tile and rules errors, 413 for
a request over one of the limits (:class:`service.limits.Limits`), 404 for an unknown preset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from marshmallow import Schema

from engine import solver
from engine.errors import InputError
from engine.loose import verify_loose_turn
from engine.replay import replay_game
from engine.rules import PRESET_DESCRIPTIONS, PRESETS, Rules, resolve_rules
from engine.scoring import score_match, score_round
from engine.sets import TableSet
from engine.tiles import Tile, format_tiles
from engine.turns import TurnVerdict, verify_turn
from engine.validate import check_meld, require_supply, validate_sets
from engine.violations import LANGUAGES
from service import schemas
from service.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "OPERATIONS",
    "Limits",
    "RequestError",
    "body_too_large",
    "get_rules",
    "list_rules",
    "run_operation",
]

PROBLEM_TYPE = "about:blank"
"""Problems use standard HTTP semantics: ``title`` is the status phrase, ``detail`` says more."""

_TITLES: dict[int, str] = {
    413: "Content Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}
"""RFC 9110 phrases where Python's ``HTTPStatus`` still has the older ones."""

_TITLES_ES: dict[int, str] = {
    400: "Petición incorrecta",
    404: "No encontrado",
    405: "Método no permitido",
    406: "No aceptable",
    408: "Tiempo de espera agotado",
    409: "Conflicto",
    411: "Longitud requerida",
    412: "Precondición fallida",
    413: "Contenido demasiado grande",
    414: "URI demasiado larga",
    415: "Tipo de contenido no admitido",
    416: "Rango no satisfacible",
    417: "Expectativa fallida",
    422: "Contenido no procesable",
    428: "Precondición requerida",
    429: "Demasiadas peticiones",
    431: "Campos de cabecera demasiado grandes",
    500: "Error interno del servidor",
    501: "No implementado",
    503: "Servicio no disponible",
    505: "Versión de HTTP no admitida",
}

_REFUSALS_ES: dict[int, str] = {
    400: "La petición no se puede leer.",
    406: "No se puede responder en ninguno de los formatos aceptados.",
    408: "La petición no llegó a tiempo.",
    411: "Falta la longitud del cuerpo (Content-Length).",
    412: "La precondición de la petición no se cumple.",
    414: "La URI es demasiado larga.",
    416: "El rango pedido no se puede servir.",
    417: "La expectativa (Expect) de la petición no se puede cumplir.",
    428: "La petición debe ser condicional.",
    431: "Los campos de cabecera son demasiado grandes.",
    501: "El método no está implementado.",
    505: "La versión de HTTP no se admite.",
}


def refusal_detail_es(status: int) -> str | None:
    """The Spanish detail of an HTTP-level refusal (werkzeug's own: a failed precondition, a
    range beyond a file...) by its status; None where there is none."""
    return _REFUSALS_ES.get(status)


_PREDICATES = ("is ", "must ", "may ", "has ", "are ")
"""Details that say what the value at their pointer is or must be: told after the pointer
("/sets is required"), where other details are told before it ("not a tile: 'X1' at /sets/0/0")."""


class RequestError(Exception):
    """A request the service cannot answer with a verdict. ``errors`` lists
    ``{"pointer", "detail"}`` (JSON Pointers into the request body; a limit error also names the
    ``limit``)."""

    def __init__(
        self,
        status: int,
        detail: str,
        errors: Sequence[dict[str, str]] = (),
        *,
        detail_es: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.title = _TITLES.get(status) or HTTPStatus(status).phrase
        self.detail = detail
        self.detail_es = detail_es
        self.errors = list(errors)
        self.headers = dict(headers or {})

    def to_problem(self, lang: str = "en") -> dict[str, Any]:
        """The RFC 9457 body: ``type``, ``title``, ``status``, ``detail``, ``errors``."""
        spanish = lang == "es"
        return {
            "type": PROBLEM_TYPE,
            "title": _TITLES_ES.get(self.status, self.title) if spanish else self.title,
            "status": self.status,
            "detail": self.detail_es if spanish and self.detail_es else self.detail,
            "errors": self.errors,
        }

    @classmethod
    def unprocessable(cls, errors: Sequence[dict[str, str]], total: int | None = None) -> RequestError:
        total = len(errors) if total is None else total
        first = errors[0] if errors else {"pointer": "", "detail": "invalid request"}
        pointer, detail = first["pointer"], first["detail"]
        if pointer and detail.startswith(_PREDICATES):  # "is required", "must be a string"
            said = f": {pointer} {detail}"
        else:  # (the pointer first: "...online-sabra at /rules" read as a preset's place; session 53)
            said = f" at {pointer}: {detail}" if pointer else f": {detail}"
        # The Spanish says where (the first pointer) and how many; the reasons, English, are in
        # errors[] (it said only "(1 error); ver 'errors'": the language review, session 60)
        where_es = f"en {pointer}" if pointer else "en el cuerpo"
        if total >= schemas.MAX_REPORTED_ERRORS:  # (each list stops at that many: there may be more)
            more = f" (at least {total} errors; {len(errors)} are listed)"
            said_es = f"el primer error está {where_es} (al menos {total} errores; se listan {len(errors)})"
        elif total > 1:
            more = f" ({total} errors in all)"
            said_es = f"el primer error está {where_es} ({total} errores en total)"
        else:
            more = ""
            said_es = f"hay un error {where_es}"
        return cls(
            422,
            f"The request cannot be read{said}{more}.",
            errors,
            detail_es=f"No se puede leer la petición: {said_es}; consulta 'errors' (en inglés).",
        )

    @classmethod
    def too_large(cls, errors: Sequence[dict[str, str]], first_es: str | None = None) -> RequestError:
        """The 413 of a request over limits; ``first_es``: the first error's detail in Spanish
        (without it the Spanish detail names the settings only)."""
        names = ", ".join(sorted({e["limit"] for e in errors if "limit" in e}))
        return cls(
            413,
            f"The request is over the service's limits ({names}): {errors[0]['detail']}.",
            errors,
            detail_es=f"La petición supera los límites del servicio ({names})"
            + (f": {first_es}." if first_es else "."),
        )


def body_too_large(limit: int | None) -> RequestError:
    """The 413 for a body over ``RUMMIKUB_MAX_BODY_BYTES`` (the HTTP layer's, and the CLI's
    in-process mode's, which measures the body it would send)."""
    detail = f"the request body is larger than {limit} bytes (RUMMIKUB_MAX_BODY_BYTES)"
    return RequestError(
        413,
        f"The request is too large: {detail}.",
        [{"pointer": "", "detail": detail, "limit": "RUMMIKUB_MAX_BODY_BYTES"}],
        detail_es=f"El cuerpo de la petición supera {limit} bytes (RUMMIKUB_MAX_BODY_BYTES).",
        headers={"Connection": "close"},
    )


# --- operations --------------------------------------------------------------------------------


Handler = Callable[[Any, str, Limits], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Operation:
    """One POST endpoint: ``/v1/{name}``."""

    name: str
    schema: Schema
    handler: Handler
    summary: str


def _sets_validate(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    return validate_sets(data["sets"], data["rules"]).to_json(lang)


def _melds_check(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    return check_meld(data["sets"], data["rack"], data["rules"]).to_json(lang)


def _loose_verdict(data: dict[str, Any], after: schemas.LooseTiles, limits: Limits) -> TurnVerdict:
    """A turn whose ``after`` is a flat tile list, arranged by the solver within the budget;
    a declared joker among them (but those copied from ``before``) is refused at its place in
    the request (``engine.loose.check_undeclared``; not in the schema, whose hooks would cost
    every verification marshmallow's slow path)."""
    return verify_loose_turn(
        data["before"],
        after.tiles,
        data["rack"],
        data["opened"],
        data["rules"],
        data["elapsed_seconds"],
        budget_seconds=limits.solver_budget_ms / 1000,
        at="/after" + after.form,
    )


def _turns_verify(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    after = data["after"]
    if isinstance(after, schemas.LooseTiles):
        verdict = _loose_verdict(data, after, limits)
    else:
        verdict = verify_turn(
            data["before"], after, data["rack"], data["opened"], data["rules"], data["elapsed_seconds"]
        )
    return verdict.to_json(lang)


def _rounds_score(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    return score_round(data["players"], data["rules"], data["winner"]).to_json()


def _matches_score(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    return score_match(data["rounds"], data["rules"]).to_json()


def _games_replay(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    result = replay_game(
        data["record"],
        continue_on_error=data["continue_on_error"],
        analyze=data["analyze"],
        analyze_budget_seconds=limits.analyze_budget_ms / 1000,
        search_budget_seconds=limits.solver_budget_ms / 1000,
    )
    return result.to_json(lang)


def _tables_arrange(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    tiles: tuple[Tile, ...] = data["tiles"]
    require_supply([("/tiles", tiles)], data["rules"])
    result = solver.arrange(tiles, data["rules"], limits.solver_budget_ms / 1000)
    return {
        "arrangeable": result.arrangeable,
        "sets": None if result.sets is None else [format_tiles(s) for s in result.sets],
        "optimal_proven": result.optimal_proven,
        "budget_exhausted": result.budget_exhausted,
    }


def _moves_suggest(data: dict[str, Any], lang: str, limits: Limits) -> dict[str, Any]:
    table: tuple[TableSet, ...] = data["table"]
    rack: tuple[Tile, ...] = data["rack"]
    rules: Rules = data["rules"]
    # (suggest refuses an invalid table set, an empty rack and tiles beyond the supply)
    move = solver.suggest(
        table, rack, data["opened"], rules, data["objective"], limits.solver_budget_ms / 1000, data["tie_break"]
    )
    assert move.changes is not None
    return {
        "after": [format_tiles(s) for s in move.after],
        "played": format_tiles(move.played),
        "value": move.value,
        "optimal_proven": move.optimal_proven,
        "budget_exhausted": move.budget_exhausted,
        "tie_break": data["tie_break"],
        "least_change_proven": move.least_change_proven,
        "changes": move.changes.to_json(),
    }


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation("sets/validate", schemas.SetsValidateRequest(), _sets_validate, "Validate sets"),
        Operation("melds/check", schemas.MeldCheckRequest(), _melds_check, "Check an initial meld"),
        Operation("turns/verify", schemas.TurnVerifyRequest(), _turns_verify, "Verify a turn"),
        Operation("rounds/score", schemas.RoundScoreRequest(), _rounds_score, "Score a round"),
        Operation("matches/score", schemas.MatchScoreRequest(), _matches_score, "Score a match"),
        Operation("games/replay", schemas.GameReplayRequest(), _games_replay, "Replay a game record"),
        Operation("tables/arrange", schemas.ArrangeRequest(), _tables_arrange, "Arrange tiles into sets"),
        Operation("moves/suggest", schemas.SuggestRequest(), _moves_suggest, "Suggest a move"),
    )
}
"""Every POST operation of the v1 API by name (the path after ``/v1/``)."""

BUDGETED_ALWAYS = frozenset({"moves/suggest", "tables/arrange"})
"""Operations that always run the solver (up to ``RUMMIKUB_SOLVER_BUDGET_MS``)."""
BUDGETED_SOMETIMES = frozenset({"turns/verify", "render", "games/replay"})
"""Operations that run the solver for some bodies: a loose ``after`` (verify, render), ``analyze``
(replay, up to ``RUMMIKUB_ANALYZE_BUDGET_MS``); and replays continuing after errors, whose
turns' cost adds up (``engine.replay.REPLAY_JOINT_STEPS``)."""


def refuses(name: str, body: Any, limits: Limits | None = None) -> bool:
    """Whether ``POST /v1/{name}`` with this parsed body is refused before anything runs: its
    schema or the limits (a 422 or 413; ``render`` too). The server asks this of a budgeted
    request it would otherwise refuse as beyond its share: a body refused anyway gets its 4xx,
    not the 503 (SPEC §7: nothing a client sends yields a 5xx; the soak of session 60)."""
    schema = schemas.render_schema(body) if name == "render" else None
    if schema is None:
        operation = OPERATIONS.get(name)
        if operation is None:
            return False
        schema = operation.schema
    try:
        _loaded(schema, body, limits or DEFAULT_LIMITS)
    except RequestError:
        return True
    return False


def _loaded(schema: Schema, body: Any, limits: Limits) -> Any:
    """``body`` read by ``schema`` within ``limits``; RequestError 413 over a limit, else 422."""
    try:
        return schemas.load_request(schema, body, limits)
    except schemas.RequestInvalid as exc:
        errors = [e.to_json() for e in exc.errors]
        if exc.over_limit:
            raise RequestError.too_large(errors, exc.errors[0].detail_es) from None
        raise RequestError.unprocessable(errors, exc.total) from None


def is_budgeted(name: str, body: Any) -> bool:
    """Whether the request ``POST /v1/{name}`` with this parsed body may spend a solver budget:
    the server runs those in its bounded share (docs/service.md, "Fair share"). Errs towards
    yes for a body it cannot tell; a body the operation refuses is refused either way."""
    if name in BUDGETED_ALWAYS:
        return True
    if name not in BUDGETED_SOMETIMES or not isinstance(body, dict):
        return False
    if _costly_rules(body.get("rules")):
        return True
    if name == "games/replay":
        # a record continuing after errors may repeat a costly illegal turn up to the turn limit
        # (joker checks: seconds in all for the worst records, the worst-cost audit of session 40)
        return any(key in body and body[key] is not False for key in ("analyze", "continue_on_error"))
    after = body.get("after")
    if isinstance(after, list):
        return bool(after) and schemas.is_loose(after)
    return after is not None and not isinstance(after, str | int | float | bool)


def _costly_rules(rules: Any) -> bool:
    """Rules under which one verdict may cost seconds, run in the bounded share, not on the
    worker's event loop, where every verdict of that worker waited for it:
    ``manipulate_on_opening_turn`` (an opening's value is then the best sets of its played
    tiles, SPEC §4: up to about a second of CPU for one turn of 100 XP tiles, and a replay
    continuing after errors may hold hundreds of such turns: 24-27 s of CPU for one record
    within the limits, the API audit of session 38); ``joker_sets_locked`` with
    ``group_joker_needs_both_colours`` (four locked groups of three freed at once, xp: up to
    12 s for one verify until session 58 cut its search, 0.33 s since, and a replay may hold
    many such turns)."""
    try:
        resolved = resolve_rules(rules)
    except InputError:
        return False  # (refused either way)
    return resolved.manipulate_on_opening_turn or (
        resolved.joker_sets_locked and resolved.group_joker_needs_both_colours
    )


def run_operation(name: str, body: Any, lang: str = "en", limits: Limits | None = None) -> dict[str, Any]:
    """Run one operation on a parsed JSON body and return the response JSON.

    ``lang`` is ``en`` or ``es`` (violation messages); ``limits`` default to the service's
    defaults, so the CLI's in-process answers match the service's. Raises :class:`RequestError`
    (422 unreadable body, 413 over a limit, 404 unknown operation)."""
    operation = OPERATIONS.get(name)
    if operation is None:
        raise RequestError(
            404,
            f"Unknown operation {name!r}; operations: {', '.join(OPERATIONS)}.",
            detail_es=f"Operación desconocida {name!r}; operaciones: {', '.join(OPERATIONS)}.",
        )
    limits = limits or DEFAULT_LIMITS
    if lang not in LANGUAGES:
        lang = "en"
    data = _loaded(operation.schema, body, limits)
    try:
        return operation.handler(data, lang, limits)
    except InputError as exc:
        raise RequestError.unprocessable([{"pointer": exc.pointer, "detail": exc.message}]) from None


# --- rules -------------------------------------------------------------------------------------


def _preset_json(name: str, rules: Rules) -> dict[str, Any]:
    settings = rules.to_dict()
    settings.pop("preset", None)
    return {"name": name, "description": PRESET_DESCRIPTIONS.get(name, ""), "settings": settings}


def list_rules() -> dict[str, Any]:
    """``GET /v1/rules``: every preset with every setting."""
    return {"default": "sabra", "presets": [_preset_json(name, rules) for name, rules in PRESETS.items()]}


SHOWN_NAME = 100
"""The most characters of an unknown preset's name its 404 repeats (then "…")."""


def get_rules(preset: str) -> dict[str, Any]:
    """``GET /v1/rules/{preset}``. Raises RequestError 404 for an unknown preset."""
    rules = PRESETS.get(preset)
    if rules is None:
        # (at most SHOWN_NAME characters of the name: the whole path segment was echoed twice,
        # up to the URL's limit; the surfaces audit, session 59)
        name = repr(preset) if len(preset) <= SHOWN_NAME else f"{preset[:SHOWN_NAME]!r}…"
        raise RequestError(
            404,
            f"Unknown rules preset {name}; presets: {', '.join(PRESETS)}.",
            [{"pointer": "", "detail": f"unknown preset {name}"}],
            detail_es=f"Conjunto de reglas {name} desconocido; disponibles: {', '.join(PRESETS)}.",
        )
    return _preset_json(preset, rules)


# --- pictures ----------------------------------------------------------------------------------

SVG_MEDIA_TYPE = "image/svg+xml"


def _render(data: dict[str, Any], lang: str, limits: Limits) -> str:
    from engine import svg

    rules: Rules = data["rules"]
    if "before" not in data:
        rack = data["rack"]
        racks = () if rack is None else (svg.RackView(rack, None, data["opened"]),)
        return svg.table_svg(data["table"], rules, racks=racks, lang=lang)
    after = data["after"]
    if isinstance(after, schemas.LooseTiles):
        # the tiles laid are drawn when no arrangement was found (they were drawn as an empty
        # table: an audit, session 52)
        return svg.turn_svg(
            data["before"],
            (),
            data["rack"],
            data["opened"],
            rules,
            data["elapsed_seconds"],
            verdict=_loose_verdict(data, after, limits),
            lang=lang,
            loose=after.tiles,
        )
    return svg.turn_svg(data["before"], after, data["rack"], data["opened"], rules, data["elapsed_seconds"], lang=lang)


def render_svg(body: Any, lang: str = "en", limits: Limits | None = None) -> str:
    """``POST /v1/render``: a position (a moves/suggest body; ``rack`` and ``opened`` optional)
    or a turn (a turns/verify body) drawn as SVG (:mod:`engine.svg`), titles in ``lang``.
    Raises :class:`RequestError` as :func:`run_operation` does."""
    limits = limits or DEFAULT_LIMITS
    if lang not in LANGUAGES:
        lang = "en"
    data = _loaded(schemas.render_schema(body), body, limits)
    try:
        return _render(data, lang, limits)
    except InputError as exc:
        raise RequestError.unprocessable([{"pointer": exc.pointer, "detail": exc.message}]) from None
