"""``python -m service.notifier``: the notifier worker, until SIGTERM or SIGINT.

``--dead-letters N`` prints the newest N dead letters (JSON lines) and exits."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from types import FrameType

import orjson

from service.sessions.config import SessionConfig
from service.sessions.outbox import parse_entry

from . import metrics
from .settings import NotifierSettings, SettingError
from .worker import Worker

log = logging.getLogger("service.notifier")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.notifier", description=__doc__)
    parser.add_argument("--dead-letters", type=int, metavar="N", help="print N dead letters")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = NotifierSettings.load()
        config = SessionConfig.load()
        worker = Worker(settings, config)
    except (SettingError, ValueError) as e:
        print(f"notifier: {e}", file=sys.stderr)
        return 2
    if args.dead_letters is not None:
        for letter in worker.queue.dead_letters(args.dead_letters):
            webhook_id, body = parse_entry(letter.pop("entry").encode())
            try:
                shown = orjson.loads(body)
            except orjson.JSONDecodeError:  # an entry that could not be decoded
                shown = body.decode()
            out = {**letter, "webhook_id": webhook_id, "body": shown}
            print(orjson.dumps(out).decode())
        worker.store.close()
        return 0
    done = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    worker.start()
    metrics.serve(settings.metrics_port, worker.healthy)
    log.info(
        "notifier %s: %s, sweeping clocks%s", settings.name, worker.store.kind,
        f", delivering to {settings.webhook_url}" if worker.sender else "",
    )  # fmt: skip
    done.wait()
    log.info("notifier %s: stopping", settings.name)
    worker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
