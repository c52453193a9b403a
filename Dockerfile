# syntax=docker/dockerfile:1
# The UNO rules service: gunicorn (gevent workers) serving service:create_app().
# Build: docker build -t uno-rules:dev .    Run: docker run --rm -p 8000:8000 uno-rules:dev

ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# --- builder: a virtualenv with the dependencies and the project installed editable at /app
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /app
# Dependencies first (their layer survives source changes): exactly requirements/run.txt,
# every file checked against its hash (make lock writes it; the tests ran on these versions).
COPY requirements/run.txt requirements/run.txt
RUN pip install --no-cache-dir --require-hashes --no-deps --only-binary=:all: -r requirements/run.txt
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY service/ service/
# Editable: the code stays in /app, so service finds /app/openapi.yaml beside it, and the
# distribution's metadata is still installed. The build backend is the locked setuptools.
RUN pip install --no-cache-dir --no-deps --no-build-isolation -e .

# --- runtime: the virtualenv and the source, run as a numeric non-root user
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PORT=8000
RUN groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin app
COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
COPY engine/ engine/
COPY service/ service/
COPY openapi.yaml pyproject.toml README.md ./
# The rules documents the service serves at /docs/rules (read from /app/docs/rules).
COPY docs/rules/ docs/rules/
# Bytecode now, as root: the container itself never writes (read-only root filesystem).
RUN python -m compileall -q /app/engine /app/service
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]
CMD ["python", "-m", "gunicorn", "--config", "/app/service/gunicorn_conf.py"]
