"""tests/vectors must be an exact copy of the shared rule vectors (shared/vectors/README.md), and
docs/SPEC.md and docs/RULES.md of the shared contract and rules (which the docs cite)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCAL = ROOT / "tests" / "vectors"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "vectors"


def test_local_vectors_are_json_arrays() -> None:
    files = sorted(LOCAL.glob("*.json"))
    assert files, f"no vector files in {LOCAL}"
    for path in files:
        assert isinstance(json.loads(path.read_text(encoding="utf-8")), list), path.name


def test_local_vectors_match_shared() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    shared = sorted(SHARED.glob("*.json"))
    assert shared, f"no vector files in {SHARED}"
    missing = [p.name for p in shared if not (LOCAL / p.name).is_file()]
    differ = [p.name for p in shared if (LOCAL / p.name).is_file() and (LOCAL / p.name).read_bytes() != p.read_bytes()]
    assert not missing and not differ, (
        f"tests/vectors is out of date (missing: {missing}, differ: {differ}); "
        f"re-copy with: cp {SHARED}/*.json {LOCAL}/"
    )


@pytest.mark.parametrize("name", ["SPEC.md", "RULES.md"])
def test_docs_hold_the_shared_contract(name: str) -> None:
    """The docs cite "SPEC §n": the contract ships with them (a docs audit, session 43)."""
    local = ROOT / "docs" / name
    assert local.is_file(), f"docs/{name} is missing"
    shared = SHARED.parent / name
    if not shared.is_file():
        pytest.skip(f"{shared} is absent")
    assert local.read_bytes() == shared.read_bytes(), f"docs/{name} is out of date; re-copy with: cp {shared} {local}"
