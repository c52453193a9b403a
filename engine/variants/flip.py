"""UNO Flip (``uno_flip``): double-sided cards, a light and a dark side with their own
actions, the Flip that turns everything over (rules: ``docs/rules/uno_flip.md``).

Hidden information. The public catalog pairs every light face with its dark face by
card id, so naming a card by catalog id would tell its other face. Therefore nothing a
seat sees names a card by catalog id: at the start of every round the engine draws a
secret random permutation of ``0..111`` from the game's generator (``State.ext.labels``,
catalog id -> label), and views, events and moves name a card by its **round label**:
``{"id": label, "code": <face on the side in play>}``. Moves carry labels (``card``);
``decode_move`` turns them into catalog ids, ``encode_move`` lists legal moves with
labels. A seat's view shows its own hand by active face, every opponent's hand only by
inactive face (``backs``, in hand order; the viewer's own entry is empty), the inactive
face of the draw pile's top card (``draw_top_back``) and the side in play (``side``).
A ``drew`` event tells everybody the count and the inactive faces of the drawn cards
(they are printed on the back; the drawer saw each of them on top of the draw pile) and
only the drawer the labels and active faces. Error details name cards by label too.

Choices where the rule book is silent (documented for integrators):

- A Flip played as the last card still turns everything over, and the hands are scored
  on the new side (the side in play when the round ended); no colour is named.
- After a Flip whose new top is a wild face, the colour chooser is the player of the
  Flip (``choose_color``); then the next player moves. At the start of a round (a
  turned-up Flip, or a turned-up light Wild) the dealer names the colour.
- Wild Draw Color: the named colour is the active colour; "a card of that colour" is a
  card whose dark face has it (a wild face never counts and stays in the hand). The
  drawing stops when the draw pile is empty and the discard pile has nothing left to
  reshuffle. Going out with it makes the next player draw until the colour (no
  challenge: the round is over).
- Skip Everyone: one ``skipped`` event lists every other seat; the same player moves
  again and, not having said UNO, stays catchable until another seat moves (README).
- The cut for dealer shows each cut card by its light code only (no label exists yet).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from .. import rng as prng
from ..cards import Color, Kind
from ..dispatch import defaults
from ..errors import InvalidState, RulesError
from ..events import Event, event
from ..moves import Move
from ..state import Pending, Phase, State, Work, pending
from ..uno import UnoPending, UnoRules
from ..variant import OptionSpec

P = UnoPending
# Enum members as module constants: on Python 3.11 every ``P.X`` is a descriptor call.
CHOOSE_COLOR = P.CHOOSE_COLOR
SIDE_NAMES = ("light", "dark")
GAME_OVER = Phase.GAME_OVER
_new = tuple.__new__


def _with_card(move: Move, card: int) -> Move:
    """``move`` naming ``card`` instead (``_replace`` without its overhead: hot path)."""
    mtype, player, _, color, target, chain, uno, cards = move
    return _new(Move, (mtype, player, card, color, target, chain, uno, cards))  # type: ignore[no-any-return]


class FlipExt(NamedTuple):
    """UNO Flip's extra state: this round's secret card labels (``labels[id]`` is the
    label of catalog card ``id``; ``by_label`` the inverse, derived)."""

    labels: tuple[int, ...] = ()
    by_label: tuple[int, ...] = ()


class Flip(UnoRules):
    id = "uno_flip"
    title = "UNO Flip"
    catalog_name = "uno_flip"
    min_players = 2
    max_players = 10
    target = 500
    notes = (
        "112 double-sided cards: face index 0 is light, 1 dark; State.side is the side in "
        "play. Every round starts on the light side.",
        "Views, events and moves name cards by a secret per-round label (view hand/"
        "discard_top 'id'), never by catalog id: the catalog pairs faces by id, so an id "
        "would reveal a card's hidden face. Send the label as a play's 'card'; the legal "
        "moves list carries labels. Labels change every round.",
        "A view shows the viewer's hand by active face, the other hands by inactive face "
        "('backs', per seat in hand order, the viewer's own entry empty), the inactive "
        "face of the draw pile's top card ('draw_top_back') and 'side' (light/dark).",
        "A turned-up Wild (or a wild face revealed by a turned-up Flip) is named by the "
        "dealer; a wild face revealed by a played Flip by the player of the Flip.",
        "A Flip played as the last card turns everything over before the hands are "
        "scored on the side then in play.",
        "Option scoring=alternative: the player who goes out scores 0, every other "
        "player scores their own hand, and when a total reaches the target the lowest "
        "total wins (winner_rule 'lowest').",
    )
    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"flipped"}
    #: A turned-up Wild Draw Two goes back into the draw pile (the round starts light).
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.WILD_DRAW_TWO})
    draw_amounts: ClassVar[dict[Kind, int]] = {Kind.DRAW_ONE: 1, Kind.DRAW_FIVE: 5}
    #: (draw, guilty, not guilty). For Wild Draw Color the numbers are the cards drawn
    #: *after* drawing until the named colour (see ``challenge_draw``).
    challenge_cards: ClassVar[dict[Kind, tuple[int, int, int]]] = {
        Kind.WILD_DRAW_TWO: (2, 2, 4),
        Kind.WILD_DRAW_COLOR: (0, 0, 2),
    }

    def extra_options(self) -> list[OptionSpec]:
        return [
            *super().extra_options(),
            OptionSpec(
                "scoring",
                "standard",
                "standard: the player who goes out scores the other hands, first to the "
                "target wins; alternative: every other player scores their own hand, the "
                "lowest total wins when one reaches the target",
                choices=("standard", "alternative"),
                label="Scoring",
            ),
        ]

    def winner_rule_for(self, s: State | Work) -> str:
        return "lowest" if s.option("scoring") == "alternative" else "highest"

    def metadata(self, with_catalog: bool = False) -> dict[str, Any]:
        out = super().metadata(with_catalog)
        out["winner_rule_by_option"] = {
            "option": "scoring",
            "standard": "highest",
            "alternative": "lowest",
        }
        return out

    # ------------------------------------------------------------------ ext / labels
    def initial_ext(self, players: int) -> FlipExt:
        return FlipExt()

    def round_ext(self, w: Work) -> FlipExt:
        """A fresh secret labelling for the round, drawn from the game's generator."""
        labels = list(self.catalog.ids)
        w.rng = prng.shuffle(w.rng, labels)
        return self._ext(labels)

    def _ext(self, labels: list[int]) -> FlipExt:
        by_label = [0] * len(labels)
        for card, label in enumerate(labels):
            by_label[label] = card
        return FlipExt(tuple(labels), tuple(by_label))

    def ext_to_json(self, ext: FlipExt) -> dict[str, Any]:
        return {"labels": list(ext.labels)}

    def ext_from_json(self, raw: Any, players: int) -> FlipExt:
        if not isinstance(raw, dict) or set(raw) != {"labels"}:
            raise InvalidState("state.ext: must be {labels} for uno_flip", field="ext")
        labels = raw["labels"]
        size = self.catalog.size
        if (
            not isinstance(labels, list)
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in labels)
            or sorted(labels) != list(range(size))
        ):
            raise InvalidState(
                f"state.ext.labels: must be a permutation of 0..{size - 1} (card id -> label)",
                field="ext.labels",
            )
        return self._ext(labels)

    def public_ref(self, s: State | Work, card: int) -> dict[str, Any]:
        """A card by its round label and its face on the side in play."""
        labels = s.ext.labels
        if not labels:  # the cut for dealer, before the first round is labelled
            return {"code": self.catalog.code[0][card]}
        return {"id": labels[card], "code": self.catalog.code[s.side][card]}

    private_ref = public_ref

    def label(self, s: State | Work, card: int) -> int:
        return s.ext.labels[card]  # type: ignore[no-any-return]

    def decode_move(self, state: State, move: Move) -> Move:
        """A move's ``card`` is a round label: translate it into the catalog id."""
        card = move[2]
        if card is None:
            return move
        by_label = state.ext.by_label
        if 0 <= card < len(by_label):
            return _with_card(move, by_label[card])
        self.check_move(state, move)  # the usual guards come first
        raise RulesError(
            f"card {card} is not in player {move.player}'s hand", code="card_not_in_hand"
        )

    def encode_move(self, state: State, move: Move) -> Move:
        card = move[2]
        if card is None:
            return move
        return _with_card(move, state.ext.labels[card])

    # ------------------------------------------------------------------ views
    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        side = state.side
        back = self.catalog.code[1 - side]
        view["side"] = SIDE_NAMES[side]
        view["backs"] = [
            [] if seat == player else [back[c] for c in hand]
            for seat, hand in enumerate(state.hands)
        ]
        pile = state.draw_pile
        view["draw_top_back"] = back[pile[0]] if pile else None
        view["winner_rule"] = self.winner_rule_for(state)

    def drew_event(self, w: Work, seat: int, cards: list[int], reason: str) -> Event:
        """Everybody sees the count and the backs; only the drawer the faces in play."""
        back = self.catalog.code[1 - w.side]
        backs = []
        for c in cards:  # a loop, not a comprehension (no function made per draw)
            backs.append(back[c])
        return {
            "type": "drew",
            "player": seat,
            "count": len(cards),
            "reason": reason,
            "backs": backs,
            "secret": {"to": [seat], "data": {"cards": self.private_refs(w, cards)}},
        }

    def score(self, state: State) -> dict[str, Any]:
        out = super().score(state)
        out["winner_rule"] = self.winner_rule_for(state)
        out["side"] = SIDE_NAMES[state.side]
        return out

    # ------------------------------------------------------------------ first card
    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        """Turned-up Wild: the dealer names the colour. Turned-up Flip: everything flips,
        the round starts dark, the new top's action does not take effect (a wild face:
        the dealer names the colour). Skip, Reverse, Draw One as in classic UNO."""
        first = w.next_seat(w.dealer)
        kind = self.kind(w, card)
        if kind is Kind.FLIP:
            top = self.flip_table(w, None, events)
            w.current = first
            if self.catalog.wild[w.side][top]:
                w.pending = pending(P.CHOOSE_COLOR, w.dealer, then=first)
        elif self.is_wild(w, card):
            w.current = first
            w.pending = pending(P.CHOOSE_COLOR, w.dealer, then=first)
        else:
            super().first_card_effect(w, card, events)

    # ------------------------------------------------------------------ Flip
    def flip_table(self, w: Work, player: int | None, events: list[Event]) -> int:
        """Turn every card over: hands (the side in play), the draw pile as a whole and
        the discard pile as a whole. Return the new top card; the active colour is its
        colour on the new side (``None`` for a wild face)."""
        w.side = side = 1 - w.side
        w.draw_pile = w.draw_pile[::-1]
        w.discard = w.discard[::-1]
        top = w.discard[-1]
        w.active_color = self.catalog.color[side][top]
        events.append(
            event("flipped", player=player, side=SIDE_NAMES[side], top=self.public_ref(w, top))
        )
        return top

    def effect_flip(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        top = self.flip_table(w, player, events)
        nxt = w.next_seat(player)
        w.current = nxt
        if self.catalog.wild[w.side][top]:
            w.pending = pending(CHOOSE_COLOR, player, then=nxt)

    # ------------------------------------------------------------------ other actions
    def effect_skip_everyone(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        others = [w.next_seat(player, k) for k in range(1, w.num_players)]
        events.append(event("skipped", players=others))
        w.current = player

    effects = {
        Kind.SKIP: UnoRules.effect_skip,
        Kind.REVERSE: UnoRules.effect_reverse,
        Kind.DRAW_ONE: UnoRules.effect_draw,
        Kind.DRAW_FIVE: UnoRules.effect_draw,
        Kind.SKIP_EVERYONE: effect_skip_everyone,
        Kind.FLIP: effect_flip,
        Kind.WILD_DRAW_TWO: UnoRules.effect_challengeable_draw,
        Kind.WILD_DRAW_COLOR: UnoRules.effect_challengeable_draw,
    }

    def challenge_draw(
        self, w: Work, seat: int, count: int, card: int, events: list[Event]
    ) -> None:
        """Wild Draw Two: ``count`` cards. Wild Draw Color: until the named colour, then
        ``count`` more."""
        if self.kind(w, card) is Kind.WILD_DRAW_COLOR:
            self.draw_until(w, seat, w.active_color, events)
            if count:
                self.draw_cards(w, seat, count, events, "penalty")
        else:
            self.draw_cards(w, seat, count, events, "penalty")

    def draw_until(self, w: Work, seat: int, color: Color | None, events: list[Event]) -> list[int]:
        """Draw one card at a time until one of ``color`` on the side in play (a wild face
        does not count) or nothing is left to draw; every drawn card stays in the hand."""
        colors = self.catalog.color[w.side]
        drawn: list[int] = []
        pile = w.draw_pile
        while True:
            if not pile:
                w.draw_pile = pile
                pile = self.reshuffle(w, events)
                if not pile:
                    break
            card, pile = pile[0], pile[1:]
            drawn.append(card)
            if colors[card] is color:
                break
        w.draw_pile = pile
        if drawn:
            w.hands[seat] = w.hands[seat] + tuple(drawn)
        events.append(self.drew_event(w, seat, drawn, "penalty"))
        return drawn

    def last_card_effect(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        """Going out: a draw card makes the next player draw first (Wild Draw Color: until
        the colour); a Flip still turns everything over."""
        kind = self.kind(w, card)
        if kind is Kind.WILD_DRAW_COLOR:
            self.draw_until(w, w.next_seat(player), w.active_color, events)
        elif kind is Kind.FLIP:
            self.flip_table(w, player, events)
        else:
            super().last_card_effect(w, player, card, events)

    # ------------------------------------------------------------------ forced defaults
    @defaults(P.CHOOSE_COLOR)
    def default_choose_color(self, state: State, player: int) -> Move:
        """Name the first colour of the side in play, in the order red, yellow, green,
        blue (dark side: pink, teal, orange, purple)."""
        return super().default_choose_color(state, player)

    # ------------------------------------------------------------------ play checks
    def card_name(self, s: State | Work, card: int) -> int:
        """Error messages name cards by round label, never by catalog id."""
        return self.label(s, card)

    # ------------------------------------------------------------------ scoring
    def round_points(self, w: Work, winner: int) -> tuple[int, ...]:
        """Standard: the winner scores the other hands. Alternative: the winner scores 0,
        every other player their own hand. Faces count on the side in play."""
        if w.option("scoring") == "alternative":
            return tuple(0 if s == winner else self.hand_points(w, s) for s in range(w.num_players))
        return super().round_points(w, winner)

    def game_winners(
        self, totals: tuple[int, ...], target: int, winner_rule: str = "highest"
    ) -> tuple[int, ...]:
        """Once a total reaches ``target``: the highest totals (standard scoring) or the
        lowest (``winner_rule="lowest"``, alternative scoring); ties shared."""
        if max(totals) < target:
            return ()
        best = min(totals) if winner_rule == "lowest" else max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def finish_round(self, w: Work, winner: int, events: list[Event]) -> None:
        super().finish_round(w, winner, events)
        if w.phase is GAME_OVER and self.winner_rule_for(w) == "lowest":
            winners = self.game_winners(w.scores, w.option("target", self.target), "lowest")
            w.winners = winners
            events[-1] = {**events[-1], "winners": list(winners)}

    # ------------------------------------------------------------------ checks
    def check_state(self, state: State) -> None:
        super().check_state(state)
        if len(state.ext.labels) != self.catalog.size:
            raise InvalidState("every card needs a round label", field="ext.labels")
        color = state.active_color
        if color is not None and color not in self.colors_for(state):
            raise InvalidState(
                f"active colour {color} is not a colour of the {SIDE_NAMES[state.side]} side",
                field="active_color",
            )
        pend = state.pending
        if state.phase is not Phase.PLAY:
            return
        if color is None and (pend is None or pend.type is not P.CHOOSE_COLOR):
            raise InvalidState(
                "no colour is in play and no colour choice is pending", field="active_color"
            )
        if pend is not None:
            self.check_pending(state, pend)

    def check_pending(self, state: State, pend: Pending) -> None:
        """The private data each decision needs, so that answering it cannot fail."""
        n = state.num_players
        keys = {k for k, _ in pend.data}

        def seat(key: str) -> bool:
            v = pend.get(key)
            return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n

        if pend.type is P.CHOOSE_COLOR:
            ok = keys == {"then"} and seat("then") and pend.card is None
        elif pend.type is P.CHALLENGE:
            top = state.discard[-1]
            hand = pend.get("hand", ())
            ok = (
                keys - {"hand"} == {"guilty", "offender"}
                and seat("offender")
                and isinstance(hand, tuple)
                and set(hand) <= set(state.hands[pend.get("offender")])
                and isinstance(pend.get("guilty"), bool)
                and pend.card == top
                and self.catalog.kind[state.side][top] in self.challenge_cards
                and pend.player == state.current
            )
        else:  # play_drawn
            ok = not keys and pend.player == state.current
        if not ok:
            raise InvalidState(
                f"the pending {pend.type.value!r} decision is malformed", field="pending.data"
            )
