"""Health and readiness endpoints of the HTTP service."""

from __future__ import annotations

from pathlib import Path

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


def test_every_endpoint_has_its_own_metrics_route() -> None:
    """POST /v1/render was counted under route="other" (a re-check, session 47)."""
    import yaml

    from service.app import route_of

    spec = yaml.safe_load((Path(__file__).parents[1] / "openapi.yaml").read_text(encoding="utf-8"))
    for path in spec["paths"]:
        label = route_of(path.replace("{preset}", "sabra"))
        assert label != "other", path
