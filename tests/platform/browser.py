"""Headless Chromium for the platform tests: the app on a real loopback server and a
selenium driver. Needs Debian's chromium and chromium-driver (``make test`` installs
them) and selenium (the dev extra). Missing: a test fails when ``CI`` is set, else it is
skipped."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots and other test artifacts (ignored by git).
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def need(ok: bool, reason: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@contextmanager
def serve(app: Flask) -> Iterator[str]:
    """``app`` on a real server (werkzeug, threaded) on a free loopback port: its URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


@contextmanager
def chromium(window: str = "1280,2400", downloads: Path | None = None) -> Iterator[Any]:
    """A headless Chromium driver; files it downloads go to ``downloads``."""
    need(
        shutil.which(CHROMIUM) is not None and shutil.which(CHROMEDRIVER) is not None,
        f"{CHROMIUM} or {CHROMEDRIVER} missing (apt-get install chromium chromium-driver; "
        "make test does)",
    )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        need(False, "selenium is not installed (pip install -e '.[dev]')")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="uno-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={window}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option(
            "prefs",
            {
                "download.default_directory": str(downloads),
                "download.prompt_for_download": False,
            },
        )
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        if downloads is not None:
            driver.execute_cdp_cmd(
                "Browser.setDownloadBehavior",
                {"behavior": "allow", "downloadPath": str(downloads)},
            )
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
