# rummikub-rules HTTP service: two stages, slim runtime, numeric non-root user.
#   docker build -t rummikub-rules .
#   docker run -p 8000:8000 rummikub-rules     # settings: RUMMIKUB_* env vars (docs/service.md)

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md openapi.yaml ./
COPY engine ./engine
COPY service ./service
COPY cli ./cli
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir ".[serve]"

FROM python:3.11-slim
LABEL org.opencontainers.image.title="rummikub-rules" \
      org.opencontainers.image.description="Stateless Rummikub rules-validation service"
RUN useradd --system --no-log-init --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin rummikub
COPY --from=build /opt/venv /opt/venv
ENV PATH="/opt/venv/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RUMMIKUB_BIND=0.0.0.0:8000
WORKDIR /tmp
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ.get('RUMMIKUB_BIND', '0.0.0.0:8000').rsplit(':', 1)[1]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]
CMD ["gunicorn", "--config", "python:service.gunicorn_conf", "service.app:create_app()"]
