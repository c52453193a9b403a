"""The playground (``/play``) in headless Chromium: a game of each variant against a
bot, created through the page's form and played to the end through its legal-move
controls (the first control each time, by mouse and by keyboard in turn); the scores
the page shows are the API's; the page's error box shows the service's problem
``detail``; a dropped stream reconnects with ``Last-Event-ID``. Screenshots of games in
progress go to ``artifacts/`` (one per variant).

Needs Chromium and selenium (``tests/platform/browser.py``)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

import engine
from service import create_app
from tests.platform.browser import ARTIFACTS, chromium, serve
from tests.service.harness import close, spec_document

WAIT = 30
#: A game of each variant ends well before this many of the person's moves.
MAX_MOVES = 400
#: The seed of every game here, so each plays the same way each run.
SEED = 7


def _app(**config: Any) -> Iterator[Flask]:
    with pytest.MonkeyPatch.context() as mp:
        for name in ("RATE_LIMIT", "LOG_LEVEL", "REDIS_URL"):
            mp.delenv(name, raising=False)
        app = create_app({"TESTING": True, "LOG_LEVEL": "warning", **config})
        try:
            yield app
        finally:
            close(app)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    for app in _app():
        with serve(app) as url:
            yield url


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads: Path) -> Iterator[Any]:
    # A phone-sized window: the page must work there.
    with chromium(window="412,1600", downloads=downloads) as driver:
        yield driver


def api_get(base_url: str, path: str) -> Any:
    with urllib.request.urlopen(base_url + path, timeout=10) as resp:
        return json.load(resp)


def wait_for(driver: Any, what: Callable[[Any], Any], timeout: float = WAIT) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(what)


def open_page(driver: Any, base_url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{base_url}/play")
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))


def fill_setup(driver: Any, variant: str, **options: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
    for field, value in {"seed": str(SEED), **{f"option-{k}": v for k, v in options.items()}}.items():
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)


def shown_error(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "error")
    return str(box.text) if box.is_displayed() else ""


def play_to_the_end(driver: Any, shot: Path) -> int:
    """Press the first legal-move control until the game is over (clicks and the
    keyboard in turn); a screenshot after a few moves. Answers the moves made."""
    from selenium.common.exceptions import (
        ElementNotInteractableException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    body = driver.find_element(By.TAG_NAME, "body")
    made = 0
    while body.get_attribute("data-phase") != "game_over":
        assert made < MAX_MOVES, "the game did not end"
        version = body.get_attribute("data-version")
        button = wait_for(
            driver,
            lambda d: (
                d.find_elements(By.CSS_SELECTOR, "#moves button.move:enabled")
                or body.get_attribute("data-phase") == "game_over"
            ),
        )
        if button is True:
            break
        first = button[0]
        try:
            if made % 2:
                first.send_keys(Keys.ENTER)  # a button is focusable: Enter presses it
            else:
                first.click()
        except (StaleElementReferenceException, ElementNotInteractableException):
            continue  # re-drawn meanwhile (a newer view): find the controls again
        wait_for(
            driver,
            lambda d, v=version: body.get_attribute("data-version") != v or shown_error(d),
        )
        assert not shown_error(driver), shown_error(driver)
        made += 1
        if made == 3:
            assert driver.save_screenshot(str(shot))
    return made


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_game_of_each_variant_against_a_bot_to_the_end(
    base_url: str, browser: Any, variant: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, base_url)
    fill_setup(browser, variant, target="1")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
    sid = browser.find_element(By.ID, "session-id").text
    shot = tmp_path / f"playground-{variant}.png"
    made = play_to_the_end(browser, shot)
    assert made > 0

    # The scores shown are the API's (the spectator view: no token).
    final = api_get(base_url, f"/v1/sessions/{sid}")["view"]
    assert final["phase"] == "game_over"
    shown = [
        int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#seats td.score")
    ]
    assert shown == final["scores"]
    result = browser.find_element(By.ID, "result").text
    names = [s["name"] for s in api_get(base_url, f"/v1/sessions/{sid}")["seats"]]
    assert all(names[w] in result for w in final["winners"]), result
    # The log holds the seat's events, every one in order.
    events = api_get(base_url, f"/v1/sessions/{sid}/events?limit=1000")["events"]
    logged = [li.get_attribute("data-seq") for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert logged == [str(e["seq"]) for e in events]
    assert browser.find_element(By.ID, "status").get_attribute("data-state") == "finished"

    ARTIFACTS.mkdir(exist_ok=True)
    if shot.exists():
        (ARTIFACTS / shot.name).write_bytes(shot.read_bytes())
