"""/docs/ in headless Chromium: Swagger UI from the app's own assets lists every
operation of openapi.yaml (read now, not copied here), and "Try it out" on
``GET /v1/variants`` renders a 200. A screenshot goes to ``artifacts/``.

Needs Chromium and selenium (``tests/platform/browser.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from service.spec import OPENAPI
from tests.platform.browser import ARTIFACTS, chromium, need, serve
from tests.platform.conftest import MakeApp

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
WAIT = 30


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
    with serve(make_app(LOG_LEVEL="warning")) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


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
