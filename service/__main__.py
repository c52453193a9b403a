"""``python -m service``: start the API with gunicorn (``service/gunicorn_conf.py``) on
``$PORT`` (8000). ``--dev`` runs Flask's development server instead."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service", description=__doc__)
    parser.add_argument("--dev", action="store_true", help="Flask's development server")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args(argv)
    if args.dev:
        from service import create_app

        create_app().run(host="127.0.0.1", port=args.port, debug=False)
        return 0
    conf = Path(__file__).resolve().parent / "gunicorn_conf.py"
    os.environ["PORT"] = str(args.port)
    os.execvp(
        sys.executable,
        [sys.executable, "-m", "gunicorn", "-c", str(conf), "service:create_app()"],
    )
    return 0  # pragma: no cover - exec does not return


if __name__ == "__main__":
    sys.exit(main())
