"""The container image without a container engine: the Dockerfile's exact CMD (granian) runs from the
installed package (bound to a free loopback port), its HEALTHCHECK command passes against it, and
SIGTERM stops it cleanly. Also: the Dockerfile's shape (two slim stages, numeric non-root user,
exec-form CMD, no curl) and hadolint."""

from __future__ import annotations

import contextlib
import http.client
import importlib.metadata
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.http
ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
BIN = Path(sys.executable).parent
JSON_HEADERS = {"Content-Type": "application/json"}


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, rest = line.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (k, _) in enumerate(steps) if k == "FROM")
    return steps[last_from:]


def exec_form(text: str) -> list[str]:
    argv = json.loads(text)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), text
    return argv


def cmd_argv() -> list[str]:
    cmds = [rest for k, rest in final_stage() if k == "CMD"]
    assert len(cmds) == 1
    return exec_form(cmds[0])


def healthcheck_argv() -> list[str]:
    checks = [rest for k, rest in final_stage() if k == "HEALTHCHECK"]
    assert len(checks) == 1
    words = checks[0].split(" ")
    start = words.index("CMD")
    assert all(w.startswith("--") for w in words[:start] if w), "only options before CMD"
    return exec_form(" ".join(words[start + 1 :]))


def local(argv: list[str]) -> list[str]:
    """The image's argv with its programs taken from this environment (the image puts the same
    installed package's scripts first on PATH)."""
    program = sys.executable if argv[0] in ("python", "python3") else str(BIN / argv[0])
    return [program, *argv[1:]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- the Dockerfile's shape ---------------------------------------------------------------------


def test_two_slim_stages_pinned_by_digest() -> None:
    froms = [rest for k, rest in instructions() if k == "FROM"]
    assert len(froms) == 2
    for line in froms:
        image, _, digest = line.split()[0].partition("@")
        assert image == "python:3.11-slim"
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), line
    assert len({f.split()[0] for f in froms}) == 1, "both stages on the same base"
    assert any("--from=build" in rest for k, rest in final_stage() if k == "COPY")


def hashed_pins(path: Path) -> dict[str, tuple[str, int]]:
    """name → (version, hashes) of a ``--generate-hashes`` lock."""
    pins: dict[str, tuple[str, int]] = {}
    name = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not line.startswith(" "):
            requirement = text.removesuffix("\\").strip()
            name, sep, version = requirement.partition("==")
            assert sep and version and " " not in version, f"not an exact pin: {line}"
            name = name.lower().replace("_", "-")
            pins[name] = (version, 0)
        elif text.startswith("--hash=sha256:"):
            version, count = pins[name]
            pins[name] = (version, count + 1)
    return pins


def declared_requirements(extras: set[str]) -> set[str]:
    """Names of the package's requirements (pyproject.toml, as installed) for these extras
    (``""``: the core)."""
    names = set()
    for requirement in importlib.metadata.requires("rummikub-rules") or []:
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", requirement)
        if (extra.group(1) if extra else "") in extras:
            match = re.match(r"[A-Za-z0-9._-]+", requirement)
            assert match, requirement
            names.add(match.group(0).lower().replace("_", "-"))
    return names


def test_pinned_serve_dependencies_only() -> None:
    runs = " ".join(rest for k, rest in instructions() if k == "RUN")
    assert "--require-hashes -r constraints.txt" in runs
    assert "--require-hashes -r build-constraints.txt" in runs and "--no-build-isolation" in runs
    assert "--no-deps /wheels/" in runs and "[dev]" not in runs
    pins = hashed_pins(ROOT / "constraints.txt")
    assert all(count for _, count in pins.values()), "every pin has its hashes"
    assert "werkzeug" in pins  # (Flask's, not ours: the lock holds the whole closure)
    for name in declared_requirements({"", "serve"}):
        assert name in pins, f"{name} (pyproject.toml) is not in constraints.txt: run make lock"
    assert "gunicorn" not in pins and "pytest" not in pins
    build = hashed_pins(ROOT / "build-constraints.txt")
    assert "hatchling" in build and all(count for _, count in build.values())
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert "!constraints.txt" in ignored and "!build-constraints.txt" in ignored


def test_license_matches_the_contract() -> None:
    contract = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    assert contract["info"]["license"]["identifier"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_numeric_non_root_user() -> None:
    users = [rest for k, rest in final_stage() if k == "USER"]
    assert users, "no USER in the final stage"
    uid, _, gid = users[-1].partition(":")
    assert uid.isdigit() and int(uid) > 0
    assert not gid or gid.isdigit()


def test_exec_form_and_no_curl() -> None:
    argv = cmd_argv()
    assert argv == ["python", "-m", "service.server"]
    health = healthcheck_argv()
    assert health[0] == "python" and "urllib" in health[-1]
    assert "curl" not in DOCKERFILE.read_text(encoding="utf-8")


def test_dockerignore_keeps_only_what_the_image_needs() -> None:
    text = (ROOT / ".dockerignore").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert lines[0] == "*", "an allowlist: ignore everything, then list what the image copies"
    copied = {src for k, rest in instructions() if k == "COPY" and "--from" not in rest for src in rest.split()[:-1]}
    assert copied
    for name in copied:
        assert f"!{name}" in lines or f"!{name}/" in lines, name


def test_hadolint_is_clean() -> None:
    hadolint = BIN / "hadolint"
    if not hadolint.exists():
        found = shutil.which("hadolint")
        if found is None:
            pytest.skip("hadolint is not installed")
        hadolint = Path(found)
    result = subprocess.run([str(hadolint), str(DOCKERFILE)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# --- the CMD, run -------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, str], int]]:
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"},
        "RUMMIKUB_BIND": f"127.0.0.1:{port}",
        "RUMMIKUB_WORKERS": "2",
        "PYTHONUNBUFFERED": "1",
    }
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        local(cmd_argv()),
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the launcher, its workers and theirs
    )
    try:
        yield process, env, port
    finally:
        # The whole group: a launcher killed alone left its workers running (seen: for hours).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        log.close()


def test_cmd_serves_and_passes_its_healthcheck(
    served: tuple[subprocess.Popen[bytes], dict[str, str], int], tmp_path: Path
) -> None:
    process, env, port = served
    health = local(healthcheck_argv())
    deadline = time.monotonic() + 90  # start-up took 10-30 s on a 2-core machine at load 6
    while True:
        assert process.poll() is None, (tmp_path / "server.log").read_text(errors="replace")
        result = subprocess.run(health, env=env, cwd=tmp_path, capture_output=True, timeout=15, check=False)
        if result.returncode == 0:
            break
        assert time.monotonic() < deadline, result.stderr.decode(errors="replace")
        time.sleep(0.2)

    body = json.dumps({"before": [], "after": [["K10", "B10", "O10"]], "rack": ["K10", "B10", "O10"], "opened": False})
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/turns/verify",
        data=body.encode(),
        headers=JSON_HEADERS,
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        assert json.loads(response.read())["initial_meld"] == {"value": 30}

    # A chunked body (no Content-Length) is read whole.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    pieces = iter([body[:20].encode(), body[20:].encode()])
    conn.request("POST", "/v1/turns/verify", body=pieces, encode_chunked=True, headers=JSON_HEADERS)
    response = conn.getresponse()
    assert response.status == 200
    assert json.loads(response.read())["initial_meld"] == {"value": 30}
    conn.close()

    # Over real HTTP, a body over the limit is refused with a 413 problem, chunked or not.
    too_large = b'{"sets": [' + b'["R1","R2","R3"],' * 20_000 + b'["R1","R2","R3"]]}'
    for chunked in (True, False):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        payload = iter([too_large]) if chunked else too_large
        conn.request("POST", "/v1/sets/validate", body=payload, encode_chunked=chunked, headers=JSON_HEADERS)
        response = conn.getresponse()
        assert response.status == 413, chunked
        assert response.getheader("Content-Type") == "application/problem+json"
        assert json.loads(response.read())["errors"][0]["limit"] == "RUMMIKUB_MAX_BODY_BYTES"
        conn.close()

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    log = (tmp_path / "server.log").read_text(errors="replace")
    assert "Shutting down granian" in log
    assert "Traceback" not in log
