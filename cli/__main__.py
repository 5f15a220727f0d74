"""Allow ``python -m cli``."""

from cli.main import app

app(prog_name="rummikub")
