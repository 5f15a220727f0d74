"""Shared pytest fixtures for the rummikub-rules test suite."""
