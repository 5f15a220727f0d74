"""The render answer's example in openapi.yaml is drawn from the contract's own render request
example (it gave a height, 412, that neither example draws: the contract audit, session 52)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.operations import render_svg

pytestmark = pytest.mark.contract
SPEC: dict[str, Any] = yaml.safe_load(
    (Path(__file__).resolve().parents[1] / "openapi.yaml").read_text(encoding="utf-8")
)
_SIZE = re.compile(r'<svg xmlns="http://www.w3.org/2000/svg" width="\d+" height="\d+" viewBox="[\d ]+"')


def test_the_render_example_is_the_turn_examples_picture() -> None:
    operation = SPEC["paths"]["/v1/render"]["post"]
    example = operation["responses"]["200"]["content"]["image/svg+xml"]["example"]
    request = SPEC["components"]["examples"]["RenderRequest"]["value"]
    assert operation["requestBody"]["content"]["application/json"]["examples"]["turn"]["$ref"].endswith(
        "/RenderRequest"
    )
    drawn = _SIZE.match(render_svg(request))
    documented = _SIZE.match(example)
    assert drawn is not None and documented is not None
    assert documented.group(0) == drawn.group(0)
