"""HTTP service for the rummikub-rules engine (Flask app factory in :mod:`service.app`)."""
