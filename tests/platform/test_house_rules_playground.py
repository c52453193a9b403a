"""The playground (``/play``) offers classic UNO's house rules when classic UNO is
chosen: a select for ``stacking``, a checkbox for each on/off rule, a number for
``uno_penalty``; the game it starts plays them. Headless Chromium, as
tests/platform/test_playground.py (skipped without Chromium unless ``CI`` is set)."""

from __future__ import annotations

from typing import Any

from tests.platform.test_playground import (
    api_get,
    api_replay,
    base_url,
    browser,
    downloads,
    open_page,
    play_to_the_end,
    wait_for,
)

FIXTURES = (base_url, browser, downloads)  # the fixtures these tests take
FLAGS = ("seven_zero", "jump_in", "draw_to_match", "forced_play")


def fields(driver: Any) -> dict[str, Any]:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "options")
    return {e.get_attribute("name"): e for e in box.find_elements(By.CSS_SELECTOR, "[data-option]")}


def choose_variant(driver: Any, variant: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)


def test_the_house_rules_are_offered_for_classic_uno_only(base_url: str, browser: Any) -> None:
    from selenium.webdriver.support.ui import Select

    open_page(browser, base_url)
    choose_variant(browser, "uno_classic")
    shown = fields(browser)
    stacking = Select(shown["stacking"])
    assert [o.get_attribute("value") for o in stacking.options] == ["none", "same", "up"]
    assert stacking.first_selected_option.get_attribute("value") == "none"
    for name in FLAGS:
        assert shown[name].get_attribute("type") == "checkbox" and not shown[name].is_selected()
    assert shown["uno_penalty"].get_attribute("value") == "2"
    choose_variant(browser, "uno_duo")
    assert not {"stacking", *FLAGS, "uno_penalty"} & set(fields(browser))


def test_a_game_started_with_house_rules_plays_them_to_the_end(
    base_url: str, browser: Any, tmp_path: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, base_url)
    choose_variant(browser, "uno_classic")
    shown = fields(browser)
    Select(shown["stacking"]).select_by_value("up")
    for name in ("seven_zero", "jump_in", "forced_play"):
        shown[name].click()
    shown["target"].clear()
    shown["target"].send_keys("1")
    shown["uno_penalty"].clear()
    shown["uno_penalty"].send_keys("4")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
    sid = browser.find_element(By.ID, "session-id").text
    view = api_get(base_url, f"/v1/sessions/{sid}")["view"]
    assert view["house_rules"] == {
        "stacking": "up",
        "seven_zero": True,
        "jump_in": True,
        "forced_play": True,
        "uno_penalty": 4,
    }
    # Played to the end through the page's controls (a jump-in when one is offered).
    assert play_to_the_end(browser, tmp_path / "house-rules.png") > 0
    record = api_get(base_url, f"/v1/sessions/{sid}/record")
    assert record["options"]["stacking"] == "up"
    replayed = api_replay(base_url, record)
    assert replayed["score"]["game_over"] is True
