"""A webhook receiver for the tests, run as a process of its own
(``python -m tests.notifier.receiver PORT LOG CONTROL``): every request is appended to
``LOG`` as a JSON line (``{"at", "headers", "body", "status"}``) and answered as the
JSON file ``CONTROL`` says at that moment:

- ``{"status": 500}``: answer 500 (any status; 200 when the file is absent or empty);
- ``{"sleep": 3}``: wait that long first (a slow receiver: the worker's timeout);
- ``{"gone": ["<sid>", ...]}``: answer 410 for those sessions' webhooks;
- ``{"drip": ["<sid>", ...], "every": 3}``: for those sessions, answer 200 with a body of
  1000 bytes sent one byte every ``every`` seconds (a receiver that holds a delivery);
  ``"drip_headers": true`` drips the headers so;
- ``{"cut": ["<sid>", ...]}``: for those sessions, answer 200 saying 100 bytes of body
  and close after 10 (an answer cut off);
- ``{"long": ["<sid>", ...]}``: for those sessions, answer 200 with 1 MB of body at once.

Such an answer is logged with ``"answer": "drip"``, ``"cut"`` or ``"long"`` (not a 2xx
the worker may count as delivered).
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
        protocol_version = "HTTP/1.1"  # keeps the connection (the worker reuses it)

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
            answer = next((a for a in ("drip", "cut", "long") if sid in rules.get(a, [])), None)
            line = {
                "at": time.time(), "status": status, "answer": answer,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode(),
            }  # fmt: skip
            with lock, log.open("a") as out:
                out.write(json.dumps(line) + "\n")
            try:
                if answer == "drip":
                    self.drip(float(rules.get("every", 3)), bool(rules.get("drip_headers")))
                elif answer == "cut":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n" + b"x" * 10)
                    self.close_connection = True
                elif answer == "long":
                    size = 1 << 20
                    self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % size)
                    self.wfile.write(b"x" * size)
                else:
                    self.send_response(status)
                    self.send_header("content-length", "0")
                    self.end_headers()
            except OSError:  # the worker cut the connection
                self.close_connection = True

        def drip(self, every: float, headers: bool) -> None:
            head = b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n"
            if not headers:
                self.wfile.write(head)
                head = b""
            for byte in [head[i : i + 1] for i in range(len(head))] + [b"x"] * 1000:
                self.wfile.write(byte)
                self.wfile.flush()
                time.sleep(every)

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
