"""A bare Flask app for bench/bench_http.py: one POST route that reads a small JSON body and
answers a small JSON, the floor any JSON endpoint pays on a server. Not part of the product."""

from __future__ import annotations

from typing import Any

from flask import Flask, request


def create_app() -> Flask:
    app = Flask(__name__)

    @app.post("/echo")
    def echo() -> Any:
        body = request.get_json(force=True)
        return {"ok": True, "keys": len(body)}

    return app


def rsgi_app() -> Any:
    """The bare app behind the same RSGI adapter the service runs behind under granian."""
    from service.server import RSGIAdapter

    return RSGIAdapter(create_app(), 256 * 1024, 10.0)
