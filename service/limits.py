"""Request limits: how much one request may ask of the service (bytes and tiles).

Every limit has a default, a Flask config key and an environment variable of the same name
(``RUMMIKUB_MAX_TILES_PER_SET`` ...). ``create_app(config)`` reads the config mapping first, then
the environment, then the default. A request over a limit is rejected with HTTP 413 and a
problem document naming the limit (see docs/service.md).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ENV_PREFIX = "RUMMIKUB_"


def int_setting(config: Mapping[str, Any], environ: Mapping[str, str], key: str, minimum: int, rule: str) -> int | None:
    """An integer setting from ``config``, else ``environ`` (None when unset or blank).
    Raises ValueError naming ``key`` and ``rule`` for anything not a whole number >= minimum."""
    raw: Any = config.get(key, environ.get(key))
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be {rule}, got {raw!r}") from None
    if isinstance(raw, bool) or value < minimum:
        raise ValueError(f"{key} must be {rule}, got {raw!r}")
    return value


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on one request. ``max_body_bytes`` is enforced by the HTTP layer; the others by
    :func:`service.operations.run_operation`, so the CLI's in-process mode applies them too.
    ``solver_budget_ms`` is the time the solver may spend on one arrange or suggest request;
    ``analyze_budget_ms`` on a replay's ``analyze`` (all its draws together)."""

    max_body_bytes: int = 256 * 1024
    max_tiles_per_set: int = 40
    max_sets_per_table: int = 100
    max_players: int = 8
    max_rounds: int = 500
    max_turns: int = 1000
    max_tiles: int = 20_000
    solver_budget_ms: int = 1000
    analyze_budget_ms: int = 5000

    @staticmethod
    def env_name(field: str) -> str:
        """``max_tiles_per_set`` → ``RUMMIKUB_MAX_TILES_PER_SET`` (also the Flask config key)."""
        return ENV_PREFIX + field.upper()

    @classmethod
    def from_settings(cls, config: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Limits:
        """Limits from a config mapping (keys ``RUMMIKUB_MAX_...``), then ``environ`` (default
        ``os.environ``), then the defaults. Raises ValueError for a value that is not a positive
        integer."""
        config = config or {}
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for field in dataclasses.fields(cls):
            value = int_setting(config, environ, cls.env_name(field.name), 1, "a positive integer")
            if value is not None:
                values[field.name] = value
        return cls(**values)

    def describe(self) -> dict[str, int]:
        """Every limit by its environment variable name (for docs and errors)."""
        return {self.env_name(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}


DEFAULT_LIMITS = Limits()
