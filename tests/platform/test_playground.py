"""The playground (``/play``) in headless Chromium: it opens on classic UNO, its options
labelled in words and its rules link showing the rules as a page; a game of each
variant against bots, created through the page's form and played to the end through its
legal-move controls (one per distinct move; the first control each time, by mouse and
by keyboard in turn); the scores
the page shows are the API's; the record the page downloads replays
(``POST /v1/games/replay``) to the same final view; the page's error box shows the service's problem
``detail``; a dropped stream reconnects with ``Last-Event-ID``. Screenshots of games in
progress go to ``artifacts/`` (one per variant).

Needs Chromium and selenium (``tests/platform/browser.py``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
#: The seed of each game: the deal is the same each run (the bots' choices are seeded by
#: the session id, so the game is not). Seeds whose deals make short games with up to
#: four seats (more bots: someone goes out sooner).
SEEDS = {
    "dos": 8,
    "uno_all_wild": 4,
    "uno_classic": 3,
    "uno_duo": 1,
    "uno_flip": 9,
    "uno_pocket_pizza": 6,
}
SEATS = 4


@contextmanager
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
    with _app() as app, serve(app) as url:
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


def api_post(base_url: str, path: str, body: Any) -> Any:
    req = urllib.request.Request(
        base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def api_replay(base_url: str, record: dict[str, Any]) -> Any:
    """The record verified by ``POST /v1/games/replay`` a page at a time (each page with
    the ``resume`` the one before answered): the last page's answer."""
    from engine.record_pages import pages
    from service.replay_limits import DEFAULT_PAGE_MOVES

    answer: Any = None
    for page in pages(record, DEFAULT_PAGE_MOVES):
        resume = answer["resume"] if answer else None
        answer = api_post(base_url, "/v1/games/replay", {**page, "resume": resume})
    return answer


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
    seats = min(SEATS, engine.find_variant(variant).max_players)
    for field, value in {
        "players": str(seats),
        "seed": str(SEEDS.get(variant, 1)),
        **{f"option-{k}": v for k, v in options.items()},
    }.items():
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
    from selenium.webdriver.common.action_chains import ActionChains
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
        labels = [b.text for b in button]
        assert len(set(labels)) == len(labels), f"the same move twice: {labels}"
        first = button[0]
        try:
            if made % 2:
                # The keyboard: after a move the focus is back on the first control, and
                # Enter (sent to whatever has the focus) presses it.
                def focused(d: Any, control: Any = first) -> bool:
                    return bool(d.switch_to.active_element == control)

                wait_for(driver, focused)
                ActionChains(driver).send_keys(Keys.ENTER).perform()
            else:
                first.click()
        except (StaleElementReferenceException, ElementNotInteractableException):
            continue  # re-drawn meanwhile (a newer view): find the controls again

        def answered(d: Any, before: str | None = version) -> bool:
            return body.get_attribute("data-version") != before or bool(shown_error(d))

        wait_for(driver, answered)
        assert not shown_error(driver), shown_error(driver)
        made += 1
        if made == 3:
            assert driver.save_screenshot(str(shot))
    return made


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_game_of_each_variant_against_bots_to_the_end(
    base_url: str, browser: Any, downloads: Path, variant: str, tmp_path: Path
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
    shown = [int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#seats td.score")]
    assert shown == final["scores"]
    result = browser.find_element(By.ID, "result").text
    names = [s["name"] for s in api_get(base_url, f"/v1/sessions/{sid}")["seats"]]
    assert all(names[w] in result for w in final["winners"]), result
    # The log holds the seat's events, every one in order.
    events = api_get(base_url, f"/v1/sessions/{sid}/events?limit=1000")["events"]
    logged = [
        li.get_attribute("data-seq") for li in browser.find_elements(By.CSS_SELECTOR, "#log li")
    ]
    assert logged == [str(e["seq"]) for e in events]
    assert browser.find_element(By.ID, "status").get_attribute("data-state") == "finished"

    # The record the page downloads replays to the same end.
    browser.find_element(By.ID, "download-record").click()
    saved = downloads / f"{variant}-{sid}.json"
    wait_for(browser, lambda d: saved.is_file() and saved.stat().st_size > 0)
    record = json.loads(saved.read_text())
    assert record == api_get(base_url, f"/v1/sessions/{sid}/record")
    replayed = api_replay(base_url, record)
    assert replayed["score"]["scores"] == final["scores"]
    assert replayed["score"]["winners"] == final["winners"]
    spectator = api_post(base_url, "/v1/games/view", {"state": replayed["state"], "player": None})
    assert spectator["view"] == final

    ARTIFACTS.mkdir(exist_ok=True)
    if shot.exists():
        (ARTIFACTS / shot.name).write_bytes(shot.read_bytes())


def test_the_page_opens_on_classic_uno_with_labelled_options_and_readable_rules(
    base_url: str, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, base_url)
    chosen = Select(browser.find_element(By.ID, "variant")).first_selected_option
    classic = api_get(base_url, "/v1/variants/uno_classic")
    assert chosen.get_attribute("value") == "uno_classic" and chosen.text == classic["title"]
    options = classic["options"]
    labels = {
        lab.get_attribute("for"): lab.text
        for lab in browser.find_elements(By.CSS_SELECTOR, "#options label")
    }
    assert labels == {f"option-{k}": v["label"] for k, v in options.items()}
    assert "target" not in labels.values() and labels["option-target"] == "Points to win"
    link = browser.find_element(By.CSS_SELECTOR, "#rules-link a")
    assert link.get_attribute("href") == base_url + classic["rules_url"]
    browser.get(link.get_attribute("href"))
    heading = wait_for(browser, lambda d: d.find_elements(By.TAG_NAME, "h1"))
    assert heading[0].text.startswith("Classic UNO")
    assert "# Classic" not in browser.find_element(By.TAG_NAME, "body").text
    assert browser.find_elements(By.TAG_NAME, "table")  # the scoring tables, as tables


def test_a_refused_game_shows_the_services_problem_detail(base_url: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    body = {
        "variant": "uno_classic",
        "players": [{"name": "Player"}, {"name": "Bot 1", "bot": True}],
        "options": {"target": 0, "challenge_rule": "active_color"},
        "seed": SEEDS["uno_classic"],
    }
    req = urllib.request.Request(
        f"{base_url}/v1/sessions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=10)
    problem = json.load(refused.value)
    assert refused.value.code == 422 and problem["code"] == "invalid_option"

    open_page(browser, base_url)
    fill_setup(browser, "uno_classic", target="0")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, shown_error)
    box = browser.find_element(By.ID, "error")
    assert box.find_element(By.CLASS_NAME, "detail").text == problem["detail"]
    assert box.get_attribute("data-code") == "invalid_option"
    assert box.get_attribute("role") == "alert"
    assert not browser.find_element(By.ID, "game").is_displayed()


def _union_tags(name: str) -> set[str]:
    return set(spec_document()["components"]["schemas"][name]["discriminator"]["mapping"])


def test_the_pages_words_cover_every_move_decision_and_event_of_the_spec(
    base_url: str, browser: Any
) -> None:
    """The page labels moves, decisions and events from tables keyed by type (and
    listens to the stream's events by those names): the spec's types, no more, no less."""
    open_page(browser, base_url)
    keys = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        import('/play/words.js').then((w) => done({
          moves: Object.keys(w.MOVE_TEXT),
          pending: Object.keys(w.PENDING_TEXT),
          events: Object.keys(w.EVENT_TEXT),
        }), (err) => done({error: String(err)}));
        """
    )
    assert "error" not in keys, keys
    assert set(keys["moves"]) == _union_tags("Move")
    assert set(keys["pending"]) == _union_tags("PendingView")
    assert set(keys["events"]) == _union_tags("Event")


class StreamRequests:
    """WSGI middleware: the ``Last-Event-ID`` of every stream request (None without)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.last_event_ids: list[str | None] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO", "").endswith("/stream"):
            self.last_event_ids.append(environ.get("HTTP_LAST_EVENT_ID"))
        return self.app(environ, start_response)


def test_a_lost_stream_reconnects_with_last_event_id_and_says_so(browser: Any) -> None:
    """Streams that end after half a second: the page shows that it reconnects, the
    browser resumes after the last event it had (Last-Event-ID), and the page is live
    again."""
    from selenium.webdriver.common.by import By

    with _app(SESSION_STREAM_SECONDS=0.5) as app:
        seen = StreamRequests(app.wsgi_app)
        app.wsgi_app = seen  # type: ignore[method-assign]
        with serve(app) as url:
            open_page(browser, url)
            browser.execute_script(
                """
                window.statuses = [];
                const s = document.getElementById('status');
                new MutationObserver(() => window.statuses.push(s.dataset.state))
                  .observe(s, {attributes: true, attributeFilter: ['data-state']});
                """
            )
            fill_setup(browser, "uno_classic", target="500")
            browser.find_element(By.ID, "start").click()
            wait_for(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
            # A move, so that the stream has events to resume after.
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button:enabled"))[
                0
            ].click()
            resumed = wait_for(browser, lambda d: [i for i in seen.last_event_ids if i])
            last = int(
                browser.find_element(By.CSS_SELECTOR, "#log li:last-child").get_attribute(
                    "data-seq"
                )
            )
            assert seen.last_event_ids[0] is None and int(resumed[0]) <= last
            states = wait_for(
                browser,
                lambda d: (
                    (s := d.execute_script("return window.statuses"))
                    and "reconnecting" in s
                    and s[-1] == "live"
                    and s
                ),
            )
            assert states.index("live") < states.index("reconnecting")
            assert browser.find_element(By.ID, "status").text.startswith("Live")


def test_quick_match_seats_the_page_with_a_phone_asking_for_the_same_game(
    base_url: str, browser: Any
) -> None:
    """The page's "Quick match" asks for classic UNO for two; a phone asks the same
    through the API: one table, dealt, the page playing its seat with the token its
    ticket handed over (a move made from the page is accepted)."""
    from selenium.webdriver.common.by import By

    open_page(browser, base_url)
    fill_setup(browser, "uno_classic")
    box = browser.find_element(By.ID, "players")
    box.clear()
    box.send_keys("2")
    browser.find_element(By.ID, "quick-match").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "matching").is_displayed())
    phone = api_post(
        base_url, "/v1/matches", {"variant": "uno_classic", "seats": 2, "name": "Phone"}
    )
    assert phone["status"] == "matched" and phone["token"]
    wait_for(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
    sid = browser.find_element(By.ID, "session-id").text
    assert sid == phone["session_id"]
    table = api_get(base_url, f"/v1/sessions/{sid}")
    assert [s["bot"] for s in table["seats"]] == [False, False]
    assert table["seats"][0]["name"] == "Player" and table["seats"][1]["name"] == "Phone"
    body = browser.find_element(By.TAG_NAME, "body")
    wait_for(browser, lambda d: body.get_attribute("data-version"))
    assert not shown_error(browser), shown_error(browser)
