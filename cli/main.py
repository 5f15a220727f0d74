"""The ``rummikub`` command-line tool (SPEC §8)."""

from __future__ import annotations

import importlib.util
import os
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from typing import Annotated

import typer

DIST_NAME = "rummikub-rules"

app = typer.Typer(
    name="rummikub",
    help="Check Rummikub sets, melds, turns and scores; run the rules service.",
    no_args_is_help=True,
    add_completion=False,
)


def _version() -> str:
    try:
        return dist_version(DIST_NAME)
    except PackageNotFoundError:
        return "unknown"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"rummikub {_version()}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True),
    ] = False,
) -> None:
    """Check Rummikub sets, melds, turns and scores; run the rules service."""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: RUMMIKUB_WORKERS or the CPU count).")
    ] = None,
) -> None:
    """Run the HTTP service under gunicorn (docs at /docs)."""
    missing = [name for name in ("flask", "gunicorn") if importlib.util.find_spec(name) is None]
    if missing:
        typer.echo(
            f"rummikub serve needs {', '.join(missing)}: pip install 'rummikub-rules[serve]'",
            err=True,
        )
        raise typer.Exit(2)
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:service.gunicorn_conf",
        "--bind",
        f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
    ]
    if workers is not None:
        argv += ["--workers", str(workers)]
    argv.append("service.app:create_app()")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
