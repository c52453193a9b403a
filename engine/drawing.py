"""Dealing and drawing: the shuffled deck, the deal, draws with reshuffles."""

from __future__ import annotations

from . import rng as prng
from .events import Event, event
from .state import Work, seat_after
from .views import Views


class Drawing(Views):
    """The deck in a round: shuffling, dealing, drawing, reshuffling the discard pile."""

    def shuffled_deck(self, w: Work) -> list[int]:
        pile = list(self.catalog.ids)
        w.rng = prng.shuffle(w.rng, pile)
        return pile

    def deal(self, w: Work, pile: list[int], count: int) -> list[int]:
        """Deal ``count`` cards to each seat, one at a time from the seat left of the
        dealer clockwise; return the rest of the pile."""
        n = w.num_players
        dealt = n * count
        if len(pile) < dealt:
            raise ValueError(f"a deal of {count} to {n} seats needs {dealt} cards, not {len(pile)}")
        # The k-th seat from the dealer gets the pile's cards k-1, k-1+n, k-1+2n, ...
        hands: list[tuple[int, ...]] = [()] * n
        for k in range(1, n + 1):
            hands[seat_after(w.dealer, n, k)] = tuple(pile[k - 1 : dealt : n])
        w.hands = hands
        return pile[dealt:]

    def draw_cards(
        self, w: Work, seat: int, count: int, events: list[Event], reason: str
    ) -> list[int]:
        """Move up to ``count`` cards from the draw pile to ``seat``'s hand, reshuffling
        the discard pile when the draw pile runs out (README)."""
        pile = w.draw_pile
        if 0 < count <= len(pile):  # the common case: no reshuffle
            taken = pile[:count]
            w.draw_pile = pile[count:]
            hands = w.hands
            hands[seat] += taken
            cards = [*taken]
            events.append(self.drew_event(w, seat, cards, reason))
            return cards
        drawn: list[int] = []
        while len(drawn) < count:
            if not pile:
                w.draw_pile = pile
                pile = self.reshuffle(w, events)
                if not pile:
                    break
            take = count - len(drawn)
            drawn.extend(pile[:take])
            pile = pile[take:]
        w.draw_pile = pile
        if drawn:
            w.hands[seat] = w.hands[seat] + tuple(drawn)
        events.append(self.drew_event(w, seat, drawn, reason))
        return drawn

    def drew_event(self, w: Work, seat: int, cards: list[int], reason: str) -> Event:
        """Everybody sees who drew how many; only the drawer sees the cards."""
        return {
            "type": "drew",
            "player": seat,
            "count": len(cards),
            "reason": reason,
            "secret": {"to": [seat], "data": {"cards": self.private_refs(w, cards)}},
        }

    def reshuffle(self, w: Work, events: list[Event]) -> tuple[int, ...]:
        """Keep the card in play, shuffle the rest of the discard pile into a new draw
        pile; return it (empty when there is nothing to shuffle)."""
        rest = list(w.discard[:-1])
        if not rest:
            return ()
        w.discard = w.discard[-1:]
        w.rng = prng.shuffle(w.rng, rest)
        w.draw_pile = tuple(rest)
        events.append(event("reshuffled", count=len(rest)))
        return w.draw_pile
