"""The house-rule tables of tests/engine/rules/house_table.py played statelessly through
the HTTP routes (``POST /v1/games``, ``/v1/games/apply``, ``/validate``, ``/view``,
``/legal-moves``; every exchange checked against the spec by
``tests.service.harness.ApiClient``). A refused move leaves no new state (the client
keeps its own)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import engine
from engine import State
from tests.engine.rules.house_table import Deal, Event, Table, V
from tests.service.harness import ApiClient, new_game, problem
from tests.support import CardSpec, stacked_deck


class HttpTable:
    def __init__(self, api: ApiClient, raw: dict[str, Any]) -> None:
        self.api = api
        self.raw = raw

    @property
    def state(self) -> State:  # type: ignore[override]
        return engine.from_dict(self.raw)

    @state.setter
    def state(self, state: State) -> None:
        self.raw = engine.to_dict(state)

    def move(self, move: dict[str, Any]) -> list[Event]:
        resp = self.api.post("/v1/games/apply", json={"state": self.raw, "move": move})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        answer = resp.get_json()
        assert answer["view"] == engine.view(engine.from_dict(answer["state"]), move["player"])
        self.raw = answer["state"]
        return answer["events"]  # type: ignore[no-any-return]

    def refused(self, move: dict[str, Any]) -> str:
        resp = self.api.post("/v1/games/apply", json={"state": self.raw, "move": move})
        code = str(resp.get_json().get("code"))
        problem(resp, 422, code)
        checked = self.api.post("/v1/games/validate", json={"state": self.raw, "move": move})
        assert checked.get_json()["legal"] is False and checked.get_json()["code"] == code
        return code

    def view(self, seat: int | None) -> dict[str, Any]:
        resp = self.api.post("/v1/games/view", json={"state": self.raw, "player": seat})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp.get_json()["view"]  # type: ignore[no-any-return]

    def legal(self, seat: int) -> list[dict[str, Any]]:
        resp = self.api.post("/v1/games/legal-moves", json={"state": self.raw, "player": seat})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp.get_json()["moves"]  # type: ignore[no-any-return]


def deal_over_http(api: ApiClient) -> Deal:
    """A table factory whose games are made and played through ``api``."""

    def deal(
        hands: Sequence[Sequence[CardSpec]],
        turned: CardSpec,
        draw: Sequence[CardSpec] = (),
        dealer: int = 0,
        **options: Any,
    ) -> Table:
        deck = stacked_deck(V, hands, turned, draw, dealer)
        body = new_game(
            api, players=len(hands), seed=7, dealer=dealer, deck=deck, options=options or None
        )
        return HttpTable(api, body["state"])

    return deal
