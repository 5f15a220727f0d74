"""Shared pytest fixtures for the rummikub-rules test suite."""

import pytest
from hypothesis import HealthCheck, settings

from engine.solver import exhaustive

# Hypothesis' own timing checks are off for every property test: its 200 ms deadline per example
# and its too_slow health check (generation) measure the machine, not the property, and the suite
# runs on 2 loaded cores (a full collection of a big xdist worker's heap inside one example, or a
# descheduled worker, can pass 200 ms). Tests that had no settings of their own used the defaults.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture
def without_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver's own passes and their proofs, without small positions settled by trying
    every move (``engine.solver.exhaustive``): for tests of those passes."""
    monkeypatch.setattr(exhaustive, "MOST_TILES", 0)
