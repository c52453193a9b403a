"""/docs/ in headless Chromium: Swagger UI from the app's own assets lists every
operation of openapi.yaml (read now, not copied here), and "Try it out" on
``GET /v1/variants`` renders a 200. A screenshot goes to ``artifacts/``.

Needs Debian's chromium and chromium-driver (``make test`` installs them) and selenium
(the dev extra). Missing: the test fails when ``CI`` is set, else it is skipped."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from werkzeug.serving import make_server

from service.spec import OPENAPI
from tests.platform.conftest import MakeApp

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
WAIT = 30


def need(ok: bool, reason: str) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def operations() -> set[tuple[str, str]]:
    need(OPENAPI.is_file(), f"{OPENAPI} does not exist yet")
    doc = yaml.safe_load(OPENAPI.read_text())
    return {
        (method.upper(), path)
        for path, item in (doc.get("paths") or {}).items()
        for method in item
        if method in METHODS
    }


@pytest.fixture
def base_url(make_app: MakeApp) -> Iterator[str]:
    """The app on a real server (werkzeug, threaded) on a free loopback port."""
    server = make_server("127.0.0.1", 0, make_app(LOG_LEVEL="warning"), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


@pytest.fixture
def browser() -> Iterator[Any]:
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
    profile = tempfile.mkdtemp(prefix="uno-docs-chromium-")
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
        "--window-size=1280,2400",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_docs_list_every_operation_and_try_it_out_works(base_url: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wanted = operations()
    assert ("GET", "/v1/variants") in wanted
    wait = WebDriverWait(browser, WAIT)
    browser.get(f"{base_url}/docs/")
    wait.until(
        lambda d: (
            len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= len(wanted)
            or d.find_elements(By.CSS_SELECTOR, ".errors-wrapper, .loading-container .errors")
        )
    )
    errors = browser.find_elements(By.CSS_SELECTOR, ".errors-wrapper")
    assert not errors, "Swagger UI cannot render openapi.yaml: " + errors[0].text

    # Every operation of the spec is on the page (method and path of each block).
    listed = set()
    for block in browser.find_elements(By.CSS_SELECTOR, ".opblock"):
        method = block.find_element(By.CSS_SELECTOR, ".opblock-summary-method").text
        path = block.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute(
            "data-path"
        )
        listed.add((method.strip().upper(), path))
    assert wanted - listed == set()

    # The page's scripts and styles came from this app, not a CDN.
    scripts = [s.get_attribute("src") for s in browser.find_elements(By.TAG_NAME, "script")]
    assert all(s.startswith(base_url) for s in scripts if s), scripts

    # Try it out -> Execute on GET /v1/variants, and the 200 answer is rendered.
    block = next(
        b
        for b in browser.find_elements(By.CSS_SELECTOR, ".opblock.opblock-get")
        if b.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path")
        == "/v1/variants"
    )
    block.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    wait.until(lambda d: block.find_elements(By.CSS_SELECTOR, ".try-out__btn"))
    browser.execute_script(
        "arguments[0].scrollIntoView()", block.find_element(By.CSS_SELECTOR, ".try-out__btn")
    )
    block.find_element(By.CSS_SELECTOR, ".try-out__btn").click()
    execute = wait.until(lambda d: block.find_element(By.CSS_SELECTOR, "button.execute"))
    wait.until(ec.element_to_be_clickable(execute))
    execute.click()
    status = wait.until(
        lambda d: block.find_element(
            By.CSS_SELECTOR, ".live-responses-table .response .response-col_status"
        )
    )
    request_url = block.find_element(By.CSS_SELECTOR, ".request-url").text.split()[-1]
    assert request_url == f"{base_url}/v1/variants", (
        "Try it out called another host: openapi.yaml's first `servers` entry should be "
        "the relative url `/` so the docs call the server that serves them"
    )
    assert status.text.strip().startswith("200"), block.text
    body = block.find_element(
        By.CSS_SELECTOR, ".live-responses-table .response .response-col_description"
    )
    assert "uno_classic" in body.text

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "docs-swagger-ui.png"
    browser.execute_script("arguments[0].scrollIntoView()", status)
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
