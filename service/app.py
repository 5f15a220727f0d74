"""Flask application factory for the rummikub-rules HTTP service (SPEC §7).

Views are thin: they read the JSON body, pick the language and call
:func:`service.operations.run_operation`, which the CLI also calls in-process. Every 4xx/5xx
is an RFC 9457 problem document (``application/problem+json``), Flask's own 404/405 included.
Limits, CORS and the body size come from the config mapping or ``RUMMIKUB_*`` environment
variables (docs/service.md).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache, partial
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec
from flask import Blueprint, Flask, Response, current_app, request, send_from_directory
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound, PreconditionFailed, RequestEntityTooLarge
from werkzeug.http import parse_date, parse_options_header
from werkzeug.routing import WebsocketMismatch

from engine.errors import json_value_error_text
from engine.violations import pick_language
from service.limits import Limits, int_setting
from service.observe import (
    METRICS_CONTENT_TYPE,
    REQUEST_ID_KEY,
    AccessLog,
    configure_error_log,
    count_verdict,
    instrument,
    log_format_is_json,
    metrics_text,
    shown_method,
)
from service.operations import (
    OPERATIONS,
    SVG_MEDIA_TYPE,
    RequestError,
    body_too_large,
    get_rules,
    list_rules,
    refusal_detail_es,
    render_svg,
    run_operation,
)
from service.schemas import DEFAULT_SET_CACHE_SIZE, configure_set_cache

PROBLEM_JSON = "application/problem+json"
JSON_BODY_KEY = "rummikub.json_body"
"""WSGI environ key of a body the server already decoded (with :func:`decode_json`), so the app
does not read it twice."""
LIMITS_KEY = "rummikub.limits"
LANG_KEY = "rummikub.lang"
"""WSGI environ key of the language picked for the request (:func:`_lang`)."""
CORS_ORIGINS_KEY = "RUMMIKUB_CORS_ORIGINS"
CORS_KEY = "rummikub.cors"
"""``app.extensions`` key of the app's :func:`cors_headers` for a request's ``Origin``: the server
adds them to the answers it makes without the app (503, and 400/408/413 for a body)."""
SET_CACHE_KEY = "RUMMIKUB_SET_CACHE_SIZE"
_HERE = Path(__file__).resolve().parent
_log = logging.getLogger(__name__)


# --- the committed contract and the docs page ------------------------------------------------


def openapi_path() -> Path:
    """The committed ``openapi.yaml``: beside this package in a wheel, at the repository root in
    a source checkout or an editable install."""
    for candidate in (_HERE / "openapi.yaml", _HERE.parent / "openapi.yaml"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("openapi.yaml is not installed with the service package")


@lru_cache(maxsize=1)
def _openapi_bytes() -> bytes:
    return openapi_path().read_bytes()


def swagger_ui_dir() -> Path:
    """Swagger UI 5 assets shipped by the flask-swagger-ui package (served by us: no CDN)."""
    return Path(str(resources.files("flask_swagger_ui") / "dist"))


DOCS_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>rummikub-rules API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
"""

DOCS_INIT_JS = """window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
"""

DOCS_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'"


# --- helpers ----------------------------------------------------------------------------------


def _lang() -> str:
    """The request's language, picked once per request (a problem answer asks again)."""
    environ = request.environ
    if LANG_KEY not in environ:
        environ[LANG_KEY] = pick_language(environ.get("HTTP_ACCEPT_LANGUAGE"))
    return str(environ[LANG_KEY])


def _json_response(
    body: Any, status: int = 200, mimetype: str = "application/json", lang: str | None = None
) -> Response:
    """A JSON response; with ``lang``, ``Content-Language`` says the messages' language."""
    text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate echoed from the request (a player's name...)
        data = json.dumps(body, allow_nan=False, separators=(",", ":")).encode("ascii")
    response = Response(data, status=status, mimetype=mimetype)
    if lang is not None:  # add, not set: a new response has neither header yet
        response.headers.add("Content-Language", lang)
        response.headers.add("Vary", "Accept-Language")
    return response


def _problem_response(error: RequestError) -> Response:
    lang = _lang()
    response = _json_response(error.to_problem(lang), error.status, PROBLEM_JSON, lang)
    for name, value in error.headers.items():
        response.headers[name] = value
    return response


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""One decoder for every request (``json.loads`` with an option builds a new one per call)."""

_FAST_DECODER = msgspec.json.Decoder()


def decode_json(raw: bytes) -> Any:
    """``json.loads(raw, parse_constant=_reject_constant)``, with the encoding (UTF-8, -16 or
    -32) detected the way ``json.loads`` detects it.

    msgspec reads a UTF-8 body in about two thirds of the time and gives the same value for every
    body it accepts (tests/test_json_body.py); whatever it refuses (other encodings, escaped lone
    surrogates, numbers out of its range, NaN, deep nesting, bad JSON) is read by the standard
    library, whose value or error is the answer."""
    try:
        return _FAST_DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        pass
    return _DECODER.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))


def unsupported_media(environ: Mapping[str, Any]) -> RequestError | None:
    """The 415 of a request whose body is refused unread: another content type than JSON, or a
    content coding (``Content-Encoding`` other than identity); None when the body may be read.
    From the WSGI environ alone, so the server can tell before it gives the request a budget
    slot (a gzip suggest held one until the app refused it: session 59's surfaces audit)."""
    raw_type = environ.get("CONTENT_TYPE", "")
    mimetype = "application/json" if raw_type == "application/json" else parse_options_header(raw_type)[0].lower()
    if mimetype != "application/json" and not (mimetype.startswith("application/") and mimetype.endswith("+json")):
        # (a header that is not a media type, non-ASCII say, is shown as sent, escaped and cut)
        shown = mimetype or (ascii(raw_type[:60]) if raw_type else "")
        if shown:
            why, why_es, detail = f", not {shown}.", f", no {shown}.", f"unsupported content type {shown}"
        else:
            why, why_es, detail = "; no Content-Type was sent.", "; no se envió Content-Type.", "no content type"
        return RequestError(
            415,
            f"The request body must be JSON (Content-Type: application/json){why}",
            [{"pointer": "", "detail": detail}],
            detail_es=f"El cuerpo debe ser JSON (Content-Type: application/json){why_es}",
        )
    coding = environ.get("HTTP_CONTENT_ENCODING")
    if coding is not None and any(c.strip().lower() not in ("", "identity") for c in coding.split(",")):
        # (a gzip body was a 400 "'utf-8' codec can't decode byte 0x8b", a plain one labelled
        # gzip a 200: a coding is refused as RFC 9110 §15.5.16 says; the surfaces audit, session 59)
        shown = (
            coding.strip() if coding.isascii() and coding.isprintable() and len(coding) <= 60 else ascii(coding[:60])
        )
        return RequestError(
            415,
            f"The request body is sent with Content-Encoding {shown}: content codings are not accepted; "
            "send the body uncoded.",
            [{"pointer": "", "detail": f"unsupported content coding {shown}"}],
            detail_es=f"El cuerpo llega con Content-Encoding {shown}: no se aceptan codificaciones de contenido; "
            "envía el cuerpo sin codificar.",
            headers={"Accept-Encoding": "identity"},
        )
    return None


def read_json_body(limit: int | None) -> Any:
    """The request body as JSON. RequestError 415 for another content type or a content coding
    (:func:`unsupported_media`), 400 for a body that is not JSON (including NaN/Infinity and
    nesting too deep to parse), 413 over ``limit`` bytes (the app's MAX_CONTENT_LENGTH)."""
    req = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup, not six
    environ = req.environ
    refusal = unsupported_media(environ)
    if refusal is not None:
        raise refusal
    if JSON_BODY_KEY in environ:  # decoded by the server (service.server), once
        return environ[JSON_BODY_KEY]
    length = environ.get("CONTENT_LENGTH", "")
    if length.isdigit() and "HTTP_TRANSFER_ENCODING" not in environ:
        # The common case, read straight from the server's stream (werkzeug's wrapper costs
        # more than the read): exactly Content-Length bytes, refused before reading when too many.
        if limit is not None and int(length) > limit:
            raise RequestEntityTooLarge()
        raw = environ["wsgi.input"].read(int(length))
    else:
        raw = req.get_data(cache=False)
        # A streamed (chunked) body is cut at the limit by werkzeug; more data means too large.
        if req.content_length is None and limit is not None and len(raw) >= limit and environ["wsgi.input"].read(1):
            raise RequestEntityTooLarge()
    # (the Spanish keeps the English's facts it can say: where, as line and column, or why;
    # it said only "no es JSON válido": the language review, session 60)
    try:
        return decode_json(raw)
    except RecursionError:
        detail, why_es = "the JSON is nested too deeply to read", ": está anidado a demasiada profundidad para leerlo"
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, huge integers
        detail, why_es = json_value_error_text(exc), ""
        if isinstance(exc, json.JSONDecodeError):
            why_es = f" (línea {exc.lineno}, columna {exc.colno})"
        elif detail.startswith("a number has too many digits"):
            why_es = ": un número tiene demasiadas cifras (como máximo 4300)"
    raise RequestError(
        400,
        f"The request body is not valid JSON: {detail}.",
        [{"pointer": "", "detail": detail}],
        detail_es=f"El cuerpo de la petición no es JSON válido{why_es}.",
    )


# --- views --------------------------------------------------------------------------------------


def _operation_view(name: str) -> Any:
    def view() -> Response:
        limits: Limits = current_app.extensions[LIMITS_KEY]
        body = read_json_body(limits.max_body_bytes)
        lang = _lang()
        answer = run_operation(name, body, lang, limits)
        count_verdict(name, answer)
        return _json_response(answer, lang=lang)

    view.__name__ = name.replace("/", "_")
    view.__doc__ = f"POST /v1/{name}: {OPERATIONS[name].summary}."
    return view


def _v1_blueprint() -> Blueprint:
    v1 = Blueprint("v1", __name__, url_prefix="/v1")
    for name in OPERATIONS:
        v1.add_url_rule(f"/{name}", view_func=_operation_view(name), methods=["POST"])

    @v1.post("/render")
    def render() -> Response:
        """POST /v1/render: a position or a turn drawn as SVG (engine.svg)."""
        limits: Limits = current_app.extensions[LIMITS_KEY]
        body = read_json_body(limits.max_body_bytes)
        lang = _lang()
        response = Response(render_svg(body, lang, limits).encode("utf-8"), mimetype=SVG_MEDIA_TYPE)
        response.headers.add("Content-Language", lang)
        response.headers.add("Vary", "Accept-Language")
        return response

    @v1.get("/rules")
    def rules_index() -> Response:
        return _json_response(list_rules())

    @v1.get("/rules/<preset>")
    def rules_preset(preset: str) -> Response:
        return _json_response(get_rules(preset))

    return v1


def _register_meta_routes(app: Flask) -> None:
    @app.get("/healthz")
    def healthz() -> Response:
        """Liveness: the process is up and answering."""
        return _json_response({"status": "ok"})

    @app.get("/readyz")
    def readyz() -> Response:
        """Readiness: the contract is readable and the engine answers."""
        _openapi_bytes()
        run_operation("sets/validate", {"sets": [["R1", "R2", "R3"]]})
        return _json_response({"status": "ready"})

    @app.get("/metrics")
    def metrics() -> Response:
        """Prometheus metrics (text format), summed over the server's worker processes."""
        return Response(metrics_text(), content_type=METRICS_CONTENT_TYPE)

    @app.get("/openapi.yaml")
    def openapi_yaml() -> Response:
        return Response(_openapi_bytes(), mimetype="application/yaml")

    @app.get("/docs")
    @app.get("/docs/", endpoint="docs_slash")
    def docs() -> Response:
        response = Response(DOCS_HTML, mimetype="text/html")
        response.headers["Content-Security-Policy"] = DOCS_CSP
        return response

    @app.get("/docs/init.js")
    def docs_init() -> Response:
        return Response(DOCS_INIT_JS, mimetype="text/javascript")

    @app.get("/docs/<path:asset>")
    def docs_asset(asset: str) -> Response:
        """A Swagger UI file, its preconditions evaluated in RFC 9110 §13.2.2's order; Range is
        ignored (``Accept-Ranges: none``, §14.2-14.3: small files, loaded whole; werkzeug's ranges
        came before If-None-Match and answered HEAD, unknown units, weak If-Range tags...)."""
        response = send_from_directory(swagger_ui_dir(), asset, max_age=86400, conditional=False)
        response.accept_ranges = "none"
        etag, weak = response.get_etag()
        modified = response.last_modified and response.last_modified.replace(microsecond=0)
        if request.if_match:  # "*": the file exists; else a strong match
            failed = not (request.if_match.star_tag or (not weak and request.if_match.contains(etag or "")))
        else:
            since = _http_date(request.headers.get("If-Unmodified-Since"))
            failed = since is not None and modified is not None and modified > since
        if failed:
            response.close()
            raise PreconditionFailed()
        if request.if_none_match:  # (a weak comparison)
            unchanged = request.if_none_match.contains_weak(etag or "")
        else:
            since = _http_date(request.headers.get("If-Modified-Since"))
            unchanged = since is not None and modified is not None and modified <= since
        if unchanged:
            response.close()
            response.status_code = 304  # (werkzeug sends no body and drops its entity headers)
        return response


_HTTP_DATE = re.compile(
    r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT"  # IMF-fixdate
    r"|[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT"  # rfc850-date
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}"  # asctime-date
)


def _http_date(value: str | None) -> datetime | None:
    """An If-(Un)Modified-Since value as a date, or None when it is not one HTTP-date (RFC 9110
    §5.6.7): such a field is ignored (§13.1.3-13.1.4), a list of dates too (werkzeug read the
    first)."""
    return parse_date(value) if value is not None and _HTTP_DATE.fullmatch(value.strip()) else None


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(RequestError)
    def request_error(error: RequestError) -> Response:
        return _problem_response(error)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        method = shown_method(request.method)
        if status == 413:
            problem = body_too_large(current_app.config.get("MAX_CONTENT_LENGTH"))
        elif status == 404 and error.description == NotFound.description:  # (routing's, not ours)
            # one error, at "" (the request as a whole: its path, not a value in the body)
            detail = f"No endpoint {method} {request.path}: the API's paths are in /openapi.yaml and /docs."
            problem = RequestError(
                status,
                detail,
                [{"pointer": "", "detail": f"no endpoint {method} {request.path}"}],
                detail_es=f"No existe la ruta {method} {request.path}: las rutas de la API están en /openapi.yaml y /docs.",
            )
        elif status == 405 and error.description == MethodNotAllowed.description:
            allowed = ", ".join(sorted(getattr(error, "valid_methods", None) or ()))
            problem = RequestError(
                status,
                f"{method} is not allowed on {request.path} (allowed: {allowed}).",
                [{"pointer": "", "detail": f"method {method} not allowed (allowed: {allowed})"}],
                detail_es=f"{method} no está permitido en {request.path} (permitidos: {allowed}).",
            )
        elif isinstance(error, WebsocketMismatch):
            problem = RequestError(
                status,
                "This service does not speak WebSocket: send the request without 'Upgrade: websocket'.",
                [{"pointer": "", "detail": "a WebSocket upgrade is not served: the API is plain HTTP"}],
                detail_es="Este servicio no habla WebSocket: envía la petición sin 'Upgrade: websocket'.",
            )
        else:  # werkzeug's own refusals (a malformed request, a failed precondition, a range)
            description = error.description or HTTPStatus(status).phrase
            problem = RequestError(
                status,
                description,
                [{"pointer": "", "detail": _first_lower(description)}],
                detail_es=refusal_detail_es(status),
            )
        response = _problem_response(problem)
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
        if status == 413:
            response.headers["Connection"] = "close"
        return response

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception) -> Response:
        _log.exception(
            "unexpected error on %s %s",
            request.method,
            request.path,
            extra={"request_id": request.environ.get(REQUEST_ID_KEY)},
        )
        return _problem_response(
            RequestError(
                500,
                "The service failed to answer this request.",
                [],
                detail_es="El servicio no pudo responder a esta petición.",
            )
        )


def cors_headers(origins: list[str], origin: str | None) -> dict[str, str]:
    """Minimal CORS: the headers of an answer to a request from ``origin``, none unless it is one
    of the configured ``origins`` (``*`` allows any). ``Vary: Origin`` is among them unless any
    origin is allowed, for any request (with no ``Origin``, or one not allowed, it is the only
    one) once origins are configured."""
    allow_any = "*" in origins
    if not origin or not (allow_any or origin in origins):
        # The answer depends on Origin all the same: a shared cache must not give the copy made
        # without CORS headers to an allowed origin (WHATWG Fetch §3.2.5; the service audit,
        # session 51: the docs assets are public for a day).
        return {"Vary": "Origin"} if origins and not allow_any else {}
    headers = {
        "Access-Control-Allow-Origin": "*" if allow_any else origin,
        "Access-Control-Allow-Headers": "Content-Type, Accept-Language, X-Request-ID",
        "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Max-Age": "600",
        "Access-Control-Expose-Headers": "X-Request-ID, Retry-After",
    }
    if not allow_any:
        headers["Vary"] = "Origin"
    return headers


def _add_cors(app: Flask, origins: list[str]) -> None:
    """CORS for the configured origins (:func:`cors_headers`). Off when none are set."""

    @app.after_request
    def cors(response: Response) -> Response:
        headers = cors_headers(origins, request.headers.get("Origin"))
        if headers.pop("Vary", None):
            response.vary.add("Origin")
        response.headers.update(headers)
        return response


def _answer_options_with_no_content(app: Flask) -> None:
    """Flask answers ``OPTIONS`` itself with ``Allow`` and an empty text/html 200; the answer
    has no content, so it says so: 204 with neither ``Content-Type`` nor ``Content-Length``
    (RFC 9110 §15.3.5, §8.6). A CORS preflight accepts any 2xx (WHATWG Fetch "ok status")."""

    @app.after_request
    def no_content(response: Response) -> Response:
        if (
            request.method == "OPTIONS"
            and response.status_code == 200
            and not response.is_streamed
            and not response.get_data()
        ):
            response.status_code = HTTPStatus.NO_CONTENT
            del response.headers["Content-Type"]
            del response.headers["Content-Length"]
        return response


def _cors_origins(config: Mapping[str, Any]) -> list[str]:
    raw = config.get(CORS_ORIGINS_KEY, os.environ.get(CORS_ORIGINS_KEY, ""))
    items = raw.split(",") if isinstance(raw, str) else list(raw or [])
    return [o.strip() for o in items if o and o.strip()]


def _set_cache_size(config: Mapping[str, Any]) -> int:
    size = int_setting(config, os.environ, SET_CACHE_KEY, 0, "a whole number (0 turns the cache off)")
    return DEFAULT_SET_CACHE_SIZE if size is None else size


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the WSGI app. ``config`` entries override Flask's defaults (``{"TESTING": True}``)
    and the ``RUMMIKUB_*`` environment variables (limits, CORS origins)."""
    settings = dict(config or {})
    limits = Limits.from_settings(settings)
    app = Flask(__name__, static_folder=None)  # no /static/ route: the docs assets have their own view
    app.config["MAX_CONTENT_LENGTH"] = limits.max_body_bytes
    app.config.from_mapping(settings)
    if "MAX_CONTENT_LENGTH" in settings and "RUMMIKUB_MAX_BODY_BYTES" not in settings:
        limits = Limits.from_settings({**settings, "RUMMIKUB_MAX_BODY_BYTES": settings["MAX_CONTENT_LENGTH"]})
    app.extensions[LIMITS_KEY] = limits
    configure_set_cache(_set_cache_size(settings))
    app.register_blueprint(_v1_blueprint())
    _register_meta_routes(app)
    _register_error_handlers(app)
    _answer_options_with_no_content(app)
    origins = _cors_origins(settings)
    if origins:
        _add_cors(app, origins)
    app.extensions[CORS_KEY] = partial(cors_headers, origins)
    configure_error_log(log_format_is_json(settings))
    app.wsgi_app = instrument(app.wsgi_app, route_of, AccessLog.from_settings(settings))  # type: ignore[method-assign, assignment]
    return app


_STATIC_ROUTES = frozenset(
    [f"/v1/{name}" for name in OPERATIONS]
    + ["/v1/render", "/v1/rules", "/healthz", "/readyz", "/metrics", "/openapi.yaml", "/docs", "/docs/init.js"]
)


def route_of(path: str) -> str:
    """The route a path belongs to, for metric labels (a bounded set: unknown paths are
    ``other``)."""
    if path in _STATIC_ROUTES:
        return path
    if path.startswith("/v1/rules/"):
        return "/v1/rules/{preset}"
    if path.startswith("/docs/"):
        return "/docs/{asset}"
    return "other"


def _first_lower(text: str) -> str:
    """A sentence as an ``errors[]`` detail: lower-case first letter, no closing full stop."""
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:]
