"""The end of rounds and games: round points, totals, winners, the score report."""

from __future__ import annotations

from typing import Any

from .drawing import Drawing
from .events import Event, event
from .state import Phase, State, Work

# Enum members as module constants: on Python 3.11 every ``Phase.X`` is a descriptor call.
ROUND_OVER, GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER


class Scoring(Drawing):
    """Scoring a round, ending the game, the score report."""

    def finish_round(self, w: Work, winner: int, events: list[Event]) -> None:
        """Score the round won by ``winner``; end the game if the target is reached."""
        round_scores = self.round_points(w, winner)
        w.scores = tuple(a + b for a, b in zip(w.scores, round_scores, strict=True))
        w.round_scores = round_scores
        w.round_winner = winner
        w.pending = None
        w.exposed = ()
        w.phase = ROUND_OVER
        events.append(
            event(
                "round_over",
                winner=winner,
                round_scores=list(round_scores),
                scores=list(w.scores),
                hands=self.hand_refs(w),
            )
        )
        winners = self.game_winners(w.scores, w.option("target", self.target))
        if winners:
            w.phase = GAME_OVER
            w.winners = winners
            events.append(event("game_over", winners=list(winners), scores=list(w.scores)))

    def hand_refs(self, w: Work) -> list[list[dict[str, Any]]]:
        """Every hand, face up (``public_ref`` of each card), for the round's end."""
        if self._custom_refs:
            ref = self.public_ref
            return [[ref(w, c) for c in h] for h in w.hands]
        codes = self.catalog.code[w.side]
        return [[{"id": c, "code": codes[c]} for c in h] for h in w.hands]  # public_ref

    def hand_points(self, s: State | Work, seat: int) -> int:
        points = self.catalog.points[s.side]
        return sum([points[c] for c in s.hands[seat]])

    def round_points(self, w: Work, winner: int) -> tuple[int, ...]:
        """Default: the player who went out scores every card left in the other hands."""
        total = sum(self.hand_points(w, s) for s in range(w.num_players) if s != winner)
        return tuple(total if s == winner else 0 for s in range(w.num_players))

    def game_winners(self, totals: tuple[int, ...], target: int) -> tuple[int, ...]:
        """The winners once a total reaches ``target`` (ties shared), else ``()``."""
        if max(totals) < target:
            return ()
        best = min(totals) if self.winner_rule == "lowest" else max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def score(self, state: State) -> dict[str, Any]:
        return {
            "round": state.round,
            "phase": state.phase.value,
            "round_winner": state.round_winner,
            "round_scores": list(state.round_scores) if state.round_scores is not None else None,
            "scores": list(state.scores),
            "hand_points": [self.hand_points(state, s) for s in range(state.num_players)],
            "target": state.option("target", self.target),
            "winner_rule": self.winner_rule,
            "winners": list(state.winners),
            "game_over": state.phase is Phase.GAME_OVER,
        }
