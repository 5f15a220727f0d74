"""Flask application factory for the rummikub-rules HTTP service (SPEC §7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the WSGI app. ``config`` entries override Flask's defaults (e.g. ``{"TESTING": True}``)."""
    app = Flask(__name__)
    if config is not None:
        app.config.from_mapping(config)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        """Liveness: the process is up and answering."""
        return {"status": "ok"}

    @app.get("/readyz")
    def readyz() -> dict[str, str]:
        """Readiness: the app is ready to take traffic."""
        return {"status": "ready"}

    return app
