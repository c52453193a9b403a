"""``python -m service``: start the API with gunicorn on ``$PORT`` (8000).

gunicorn reads ``service/gunicorn_conf.py`` (by path, so the master does not import the
app before gevent patches the workers); without that file, plain defaults. ``--dev``
runs Flask's development server on 127.0.0.1 instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

CONF = Path(__file__).resolve().parent / "gunicorn_conf.py"
APP = "service:create_app()"
DESCRIPTION = (
    "Start the API with gunicorn on $PORT (default 8000), configured by "
    "service/gunicorn_conf.py; --dev runs Flask's development server on 127.0.0.1 instead."
)


def gunicorn_argv(port: int, conf: Path = CONF) -> list[str]:
    """The gunicorn command line: the config module if there is one, else defaults."""
    argv = [sys.executable, "-m", "gunicorn"]
    if conf.exists():
        return [*argv, "--config", str(conf), APP]
    # All interfaces, as in the image (a container is reached on its own IP; bandit B104 is
    # accepted for it in security/accepted.toml); BIND_HOST narrows it.
    host = os.environ.get("BIND_HOST", "").strip() or "0.0.0.0"
    return [*argv, "--bind", f"{host}:{port}", "--workers", "2", "--access-logfile", "-", APP]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service", description=DESCRIPTION)
    parser.add_argument("--dev", action="store_true", help="Flask's development server")
    parser.add_argument("--port", type=int, default=None, help="default: $PORT or 8000")
    args = parser.parse_args(argv)
    port = args.port
    if port is None:
        raw = os.environ.get("PORT", "").strip() or "8000"
        if not raw.isdigit():
            parser.error(f"PORT must be a port number, got {raw!r}")
        port = int(raw)
    if not 0 < port < 65536:
        parser.error(f"the port must be from 1 to 65535, not {port}")
    if args.dev:
        from service import create_app

        create_app().run(host="127.0.0.1", port=port, debug=False)
        return 0
    os.environ["PORT"] = str(port)
    command = gunicorn_argv(port)
    os.execv(command[0], command)
    return 0  # pragma: no cover - exec does not return


if __name__ == "__main__":
    sys.exit(main())
