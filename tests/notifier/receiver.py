"""A webhook receiver for the tests, run as a process of its own
(``python -m tests.notifier.receiver PORT LOG CONTROL``): every request is appended to
``LOG`` as a JSON line (``{"at", "headers", "body", "status"}``) and answered as the
JSON file ``CONTROL`` says at that moment:

- ``{"status": 500}``: answer 500 (any status; 200 when the file is absent or empty);
- ``{"sleep": 3}``: wait that long first (a slow receiver: the worker's timeout);
- ``{"gone": ["<sid>", ...]}``: answer 410 for those sessions' webhooks.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def serve(port: int, log: Path, control: Path) -> None:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                rules = json.loads(control.read_text() or "{}")
            except (OSError, ValueError):
                rules = {}
            time.sleep(float(rules.get("sleep", 0)))
            status = int(rules.get("status", 200))
            try:
                sid = json.loads(body)["data"]["session_id"]
            except (ValueError, KeyError, TypeError):
                sid = None
            if sid in rules.get("gone", []):
                status = 410
            line = {
                "at": time.time(), "status": status,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode(),
            }  # fmt: skip
            with lock, log.open("a") as out:
                out.write(json.dumps(line) + "\n")
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
