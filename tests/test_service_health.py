"""Health and readiness endpoints of the HTTP service."""

from __future__ import annotations

from service.app import create_app


def test_healthz() -> None:
    client = create_app({"TESTING": True}).test_client()
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_readyz() -> None:
    client = create_app({"TESTING": True}).test_client()
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ready"}
