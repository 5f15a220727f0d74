"""Command-line tool ``rummikub`` (Typer app in :mod:`cli.main`)."""
