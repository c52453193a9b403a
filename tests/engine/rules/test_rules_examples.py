"""The worked examples of the rules pages (``docs/rules/<variant>.md``), replayed against
the engine: each example holds a ``yaml`` block that sets up its position, makes its
moves and states what follows, and this test fails when the engine disagrees.

The block (a fenced ``yaml`` block in "## Worked examples" whose first key is
``example``)::

    example: A volley         # the example's bold title in the page
    players: 2
    dealer: 1                 # default 0
    seed: 7                   # default 7 (UNO Flip's card labels come from it)
    options: {target: 200}    # default: none
    deck: [R5 (9), W (100)]   # either: the top of a stacked deck, the rest in id order
    hands:                    # or: each seat's whole hand after the deal, in hand order
      - [RD2 (23), YD2 (48)]
      - [GD2 (73), G1]
    turned: R5 (9)            # with hands: the card turned up (DOS: the center row)
    draw: [G4, G4]            # with hands: the top of the draw pile, top first
    bottom: [R6/O9, R1/P3]    # with hands: the bottom of the draw pile, bottom card last
    scores: [150, 180]        # the game totals before the example
    after: A volley           # instead of a position: where that example ended
    steps:                    # in order; each a move and what follows it, or checks only
      - move: {"type": "play", "player": 0, "card": 23}   # or a list of moves
        events: [played, {"type": "volley", ...}]         # type, or the whole event
        pending: {"type": "volley", "player": 1, "draw_stack": 2}
      - move: {"type": "play", "player": 0, "card": 5}
        refused: does_not_match   # the move is refused with this code
      - what_if: true         # the step runs, then the example goes on from before it
        move: {"type": "accept", "player": 1}
        view: {current_player: 0}

A card is a catalog id, a code (the first card of that code not named yet), or both:
``R5 (9)``. With ``hands``, each hand is dealt (one card at a time from the dealer's
left; UNO Duo's draft keeps every card drawn) padded to the hand size; after the set-up
the padding goes under the draw pile, so each seat holds its listed cards (and any card
the turned-up card made it draw). Checks, after a step (or of the position, before any move):

- ``events``: the step's events (the set-up's, before any move) as ``seen_by`` sees
  them (default: a spectator), each its ``type`` or the whole event;
- ``pending``: the pending decision as ``seen_by``'s view shows it (``null``: none);
- ``view``: fields of ``seen_by``'s view;
- ``hands``: each listed seat's hand, in any order;
- ``legal``: ``player``'s legal moves: exactly ``moves``, or ``includes`` / ``excludes``,
  or ``count``;
- ``refused``: the rules error code of the step's (one) move; ``engine.validate`` agrees.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml

import engine
from engine import Phase, RulesError, State
from engine.docs import rules_path
from tests.support import DeckBuilder, mv

SECTION = "Worked examples"
SEED = 7
POSITION_KEYS = {"example", "after", "players", "dealer", "seed", "options", "deck", "hands", "turned",
                 "draw", "bottom", "scores", "steps"}  # fmt: skip
STEP_KEYS = {"move", "refused", "what_if", "seen_by", "events", "pending", "view", "hands",
             "legal"}  # fmt: skip
LEGAL_KEYS = {"player", "moves", "includes", "excludes", "count"}
CARD = re.compile(r"(?P<code>[^\s()]+)(?: \((?P<id>\d+)\))?")


# ---------------------------------------------------------------- reading the pages
def section(text: str, title: str) -> str:
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True)).get(title, "")


def titles(body: str) -> list[str]:
    """The examples' bold titles: ``**A volley.**`` at the start of a paragraph."""
    return re.findall(r"^\*\*(.+?)\.\*\*", body, flags=re.M)


def blocks(body: str) -> list[dict[str, Any]]:
    """The example blocks: fenced ``yaml`` blocks whose first key is ``example``."""
    found = []
    for raw in re.findall(r"^```yaml\n(.*?)^```", body, flags=re.M | re.S):
        data = yaml.safe_load(raw)
        if isinstance(data, dict) and next(iter(data), None) == "example":
            found.append(data)
    return found


@dataclass
class Example:
    variant: str
    spec: dict[str, Any]
    title: str = field(init=False)

    def __post_init__(self) -> None:
        self.title = str(self.spec["example"])


def examples() -> Iterator[Example]:
    for variant in engine.all_variants():
        text = rules_path(variant.id).read_text(encoding="utf-8")
        for spec in blocks(section(text, SECTION)):
            yield Example(variant.id, spec)


EXAMPLES = list(examples())


# ---------------------------------------------------------------- cards
class Cards:
    """Card specs (``R5``, ``R5 (9)``, ``9``) to catalog ids, each card used once."""

    def __init__(self, variant_id: str) -> None:
        self.builder = DeckBuilder(variant_id)
        self.catalog = self.builder.catalog

    def codes(self, card_id: int) -> set[str]:
        card = self.catalog.cards[card_id]
        return {card.code, *(f.code for f in card.faces)}

    def take(self, spec: Any) -> int:
        if isinstance(spec, int):
            return self.builder.take(spec)
        m = CARD.fullmatch(str(spec))
        assert m, f"not a card: {spec!r}"
        if m["id"] is None:
            return self.builder.take(m["code"])
        card_id = self.builder.take(int(m["id"]))
        assert m["code"] in self.codes(card_id), f"card {card_id} is not {m['code']}"
        return card_id

    def filler(self, count: int) -> list[int]:
        """``count`` unused cards from the end of the catalog (they end under the pile)."""
        return [self.builder.take(c) for c in self.builder.rest()[-count:]] if count else []


def matches_hand(cards: Cards, hand: tuple[int, ...], specs: list[Any]) -> bool:
    """Whether ``hand`` holds exactly the cards ``specs`` name (in any order)."""
    left = list(hand)
    for spec in specs:
        m = CARD.fullmatch(str(spec))
        assert m, f"not a card: {spec!r}"
        if isinstance(spec, int) or m["id"] is not None:
            want = spec if isinstance(spec, int) else int(m["id"])
            found = [c for c in left if c == want]
        else:
            found = [c for c in left if m["code"] in cards.codes(c)]
        if not found:
            return False
        left.remove(found[0])
    return not left


# ---------------------------------------------------------------- the position
def dealt_deck(
    variant: engine.Variant, cards: Cards, spec: dict[str, Any]
) -> tuple[list[int], set[int]]:
    """A whole deck that deals ``hands`` (each padded to the hand size) and turns
    ``turned`` (for a game that drafts, UNO Duo, a draft in which every card drawn is
    kept), and the padding cards."""
    players, dealer = spec["players"], spec.get("dealer", 0)
    named = [[cards.take(c) for c in hand] for hand in spec["hands"]]
    size = variant.hand_size
    assert len(named) == players and all(len(h) <= size for h in named), "hands"
    turned = spec.get("turned")
    turned_ids = [cards.take(c) for c in (turned if isinstance(turned, list) else [turned])]
    top = [cards.take(c) for c in spec.get("draw", ())]
    bottom = [cards.take(c) for c in spec.get("bottom", ())]
    hands = [h + cards.filler(size - len(h)) for h in named]
    padding = {c for h, n in zip(hands, named, strict=True) for c in h[len(n) :]}
    deck: list[int] = []
    if drafts(variant):  # Player 1 (the dealer) drafts first; each keeps, one card burns
        burns = cards.filler(2 * size)
        for i in range(size):
            for k, seat in enumerate((dealer, (dealer + 1) % players)):
                deck += [hands[seat][i], burns[2 * i + k]]
    else:
        for i in range(size):
            deck += [hands[(dealer + k) % players][i] for k in range(1, players + 1)]
    return deck + turned_ids + top + cards.builder.rest() + bottom, padding


def drafts(variant: engine.Variant) -> bool:
    probe = variant.new_game(2, SEED, 0, None, list(variant.catalog.ids))[0]
    return probe.phase is Phase.DRAFT


def position(example: Example) -> tuple[State, list[dict[str, Any]]]:
    spec = example.spec
    unknown = set(spec) - POSITION_KEYS
    assert not unknown, f"unknown keys {sorted(unknown)}"
    variant = engine.find_variant(example.variant)
    cards = Cards(example.variant)
    padding: set[int] = set()
    if "deck" in spec:
        top = [cards.take(c) for c in spec["deck"]]
        deck = top + cards.builder.rest()
    else:
        deck, padding = dealt_deck(variant, cards, spec)
    state, events = engine.start(
        example.variant, spec["players"], spec.get("seed", SEED), spec.get("dealer", 0),
        spec.get("options"), deck,
    )  # fmt: skip
    if "hands" in spec:
        while state.phase is Phase.DRAFT:  # the draft the deck was stacked for
            assert state.pending is not None
            state, more = engine.apply(state, mv("draft_keep", state.pending.player))
            events += more
        state = without(state, padding, len(spec.get("bottom", ())))
    if "scores" in spec:
        state = state._replace(scores=tuple(spec["scores"]))
    engine.check_invariants(state)
    return state, events


def without(state: State, padding: set[int], bottom: int) -> State:
    """The hands without the cards dealt only to fill them: those go into the draw pile
    above its ``bottom`` cards (cards the set-up made a seat draw stay in its hand)."""
    hands = tuple(tuple(c for c in h if c not in padding) for h in state.hands)
    gone = tuple(c for h in state.hands for c in h if c in padding)
    cut = len(state.draw_pile) - bottom
    pile = state.draw_pile[:cut] + gone + state.draw_pile[cut:]
    return state._replace(hands=hands, draw_pile=pile)


# ---------------------------------------------------------------- the steps
def legal_set(state: State, player: int) -> list[str]:
    return sorted(
        json.dumps(m.to_dict(), sort_keys=True) for m in engine.legal_moves(state, player)
    )


def as_keys(moves: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(engine.Move.from_dict(m).to_dict(), sort_keys=True) for m in moves)


def check(state: State, events: list[dict[str, Any]], step: dict[str, Any], cards: Cards) -> None:
    seat = step.get("seen_by")
    view = engine.view(state, seat)
    if "events" in step:
        seen = engine.redact_all(events, seat)
        got = [
            e if isinstance(want, dict) else e["type"]
            for e, want in zip(seen, step["events"], strict=False)
        ]
        assert got == step["events"] and len(seen) == len(step["events"]), (
            f"events: {json.dumps(seen)}"
        )
    if "pending" in step:
        assert view["pending"] == step["pending"], f"pending: {view['pending']}"
    for key, want in step.get("view", {}).items():
        assert view[key] == want, f"view {key}: {view[key]!r}"
    for seat_no, specs in step.get("hands", {}).items():
        hand = state.hands[int(seat_no)]
        shown = [cards.catalog.cards[c].code + f" ({c})" for c in hand]
        assert matches_hand(cards, hand, specs), f"hand {seat_no}: {shown}"
    if "legal" in step:
        legal = step["legal"]
        assert set(legal) <= LEGAL_KEYS, f"unknown legal keys {sorted(set(legal) - LEGAL_KEYS)}"
        have = legal_set(state, legal["player"])
        if "moves" in legal:
            assert have == as_keys(legal["moves"]), f"legal moves: {have}"
        missing = set(as_keys(legal.get("includes", []))) - set(have)
        assert not missing, f"not legal: {sorted(missing)}"
        present = set(as_keys(legal.get("excludes", []))) & set(have)
        assert not present, f"legal after all: {sorted(present)}"
        if "count" in legal:
            assert len(have) == legal["count"], f"legal moves: {have}"


def run_step(
    state: State, last: list[dict[str, Any]], step: dict[str, Any], cards: Cards
) -> tuple[State, list[dict[str, Any]]]:
    unknown = set(step) - STEP_KEYS
    assert not unknown, f"unknown step keys {sorted(unknown)}"
    moves = step.get("move")
    if moves is None:
        check(state, last, step, cards)
        return state, last
    moves = moves if isinstance(moves, list) else [moves]
    if "refused" in step:
        assert len(moves) == 1, "a refused step holds one move"
        with pytest.raises(RulesError) as applied:
            engine.apply(state, moves[0])
        with pytest.raises(RulesError) as validated:
            engine.validate(state, moves[0])
        assert applied.value.code == validated.value.code == step["refused"], applied.value.code
        check(state, last, {k: v for k, v in step.items() if k != "events"}, cards)
        return state, last
    after, events = state, []
    for move in moves:
        after, more = engine.apply(after, move)
        events += more
    check(after, events, step, cards)
    return (state, last) if step.get("what_if") else (after, events)


def replay(example: Example) -> tuple[State, list[dict[str, Any]]]:
    """Play the example's steps from its position (or from where the example it comes
    ``after`` ended); the final state and the last step's events."""
    if "after" in example.spec:
        extra = set(example.spec) - {"example", "after", "steps"}
        assert not extra, f"an example that goes on from another sets no position: {extra}"
        before = [e for e in EXAMPLES if e.variant == example.variant]
        earlier = next(e for e in before if e.title == example.spec["after"])
        state, events = replay(earlier)
    else:
        state, events = position(example)
    cards = Cards(example.variant)
    for n, step in enumerate(example.spec.get("steps", []), 1):
        try:
            state, events = run_step(state, events, step, cards)
        except (AssertionError, RulesError) as exc:
            raise AssertionError(f"step {n} ({step.get('move', 'checks')}): {exc}") from exc
    return state, events


# ---------------------------------------------------------------- the tests
@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"{e.variant}:{e.title}" for e in EXAMPLES]
)  # fmt: skip
def test_a_worked_example_plays_as_its_page_says(example: Example) -> None:
    replay(example)


@pytest.mark.parametrize("variant", engine.all_variants(), ids=lambda v: v.id)
def test_every_worked_example_has_its_replay(variant: engine.Variant) -> None:
    """Each bold-titled example of the section has at least one block, and every block
    names one of them."""
    body = section(rules_path(variant.id).read_text(encoding="utf-8"), SECTION)
    named = titles(body)
    replayed = [str(b["example"]) for b in blocks(body)]
    assert named, "no worked example"
    assert sorted(set(replayed)) == sorted(set(named)), (named, replayed)


def test_a_wrong_expectation_fails() -> None:
    """The replay checks what a block states: a wrong pending decision fails."""
    example = next(e for e in EXAMPLES if e.variant == "uno_classic")
    spec = {**example.spec, "steps": [{"pending": {"type": "nothing", "player": 9}}]}
    with pytest.raises(AssertionError, match="pending"):
        replay(Example(example.variant, spec))
