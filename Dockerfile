# rummikub-rules HTTP service: two stages, slim runtime, numeric non-root user.
#   docker build -t rummikub-rules .
#   docker run -p 8000:8000 rummikub-rules     # settings: RUMMIKUB_* env vars (docs/service.md)
# The base image is pinned by digest: the python:3.11-slim multi-arch index (Debian trixie,
# Python 3.11.16) pushed 2026-08-16, the newest build this repository's offline checks can attest
# (docs/service.md, Deploying). To move to a newer build, resolve the tag again
# (docker buildx imagetools inspect python:3.11-slim) and replace both digests. Python packages
# are pinned by hash: constraints.txt (the serve closure) and build-constraints.txt (the build
# backend); `make lock` regenerates both.

FROM python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7 AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE openapi.yaml constraints.txt build-constraints.txt ./
COPY engine ./engine
COPY service ./service
COPY cli ./cli
# Every download is checked against a hash: the build backend, then the serve dependencies; the
# package itself is built here (no build isolation: the hashed backend) and added without deps.
RUN python -m pip install --no-cache-dir --require-hashes -r build-constraints.txt \
    && python -m pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels . \
    && python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-hashes -r constraints.txt \
    && /opt/venv/bin/pip install --no-cache-dir --no-deps /wheels/rummikub_rules-*.whl \
    && /opt/venv/bin/pip check

FROM python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7
LABEL org.opencontainers.image.title="rummikub-rules" \
      org.opencontainers.image.description="Stateless Rummikub rules-validation service" \
      org.opencontainers.image.licenses="MIT"
RUN useradd --system --no-log-init --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin rummikub
COPY --from=build /opt/venv /opt/venv
ENV PATH="/opt/venv/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RUMMIKUB_BIND=0.0.0.0:8000 \
    RUMMIKUB_GRACEFUL_TIMEOUT=8
WORKDIR /tmp
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ.get('RUMMIKUB_BIND', '0.0.0.0:8000').rsplit(':', 1)[1]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "service.server"]
