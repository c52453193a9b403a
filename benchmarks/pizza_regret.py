"""Where hard's choices lose points in Pocket Pizza, offline (an analysis, not a bot).

``python benchmarks/pizza_regret.py ROUNDS N [FIRST] [OUT.jsonl]`` plays two-player
rounds of hard against normal (the bench's seeds and seats). At each of hard's
decisions with more than one distinct option it plays each option out N times on the
TRUE state (the analysis peeks; the bot does not): the hands as they are, the draw
pile reshuffled for each playout (the same shuffles for every option), normal for both
seats to the round's end, scored by the round's point difference for hard's seat. One
JSON line per decision: the options' mean differences, hard's choice and the best.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine import Phase, bots  # noqa: E402
from engine.cards import Kind  # noqa: E402
from engine.moves import MoveType as T  # noqa: E402

V = engine.find_variant("uno_pocket_pizza")
cat = V.catalog
KIND, COL, PTS = cat.kind[0], cat.color[0], cat.points[0]
SIDE = ("uno", "catch")


def side_move(state):
    for seat in range(state.num_players):
        for m in engine.legal_moves(state, seat):
            if m.type.value in SIDE:
                return m
    return None


def playout(state, seat, rnd, before, cap=400):
    n = 0
    while state.phase is Phase.PLAY and n < cap:
        n += 1
        m = side_move(state)
        if m is None:
            actor = state.pending.player if state.pending is not None else state.current
            legal = engine.legal_moves(state, actor)
            m = bots.choose("normal", engine.view(state, actor), [], legal, rnd)
        state, _ = V.apply(state, m)
    if state.phase is Phase.PLAY:
        return 0.0
    d = [a - b for a, b in zip(state.scores, before, strict=True)]
    return float(d[seat] - d[1 - seat])


def kname(c):
    k = KIND[c]
    if k is Kind.NUMBER:
        return "num"
    return k.name.lower()


def desc(state, m):
    t = m.type
    if t is T.PLAY:
        k = kname(m.card)
        if KIND[m.card] in (Kind.WILD, Kind.WILD_DIP, Kind.WILD_DRAW_TWO):
            return f"play:{k}"
        same = COL[m.card] is state.active_color
        return f"play:{k}:{'same' if same else 'change'}"
    if t is T.GIVE:
        return f"give:{kname(m.card)}"
    return t.value


def key(state, m):
    code = cat.code[0]
    return (m.type, code[m.card] if m.card is not None else None, m.color)


def decision_kind(state, pend):
    if pend is None:
        return "turn"
    return pend.type.value


def main(rounds, N, start=0, out="pizza_regret.jsonl"):
    f = open(out, "a")  # noqa: SIM115
    t0 = time.time()
    for g in range(start, start + rounds):
        levels = ["hard", "normal"] if g % 2 == 0 else ["normal", "hard"]
        hs = levels.index("hard")
        state, events = engine.start("uno_pocket_pizza", 2, g)
        rnd = random.Random(f"bench:uno_pocket_pizza:2:{g}")
        seen = [engine.redact_all(events, s) for s in range(2)]
        moves = 0
        while state.phase is Phase.PLAY and moves < 3000:
            moves += 1
            m = side_move(state)
            if m is None:
                actor = state.pending.player if state.pending is not None else state.current
                view = engine.view(state, actor)
                legal = engine.legal_moves(state, actor)
                m = bots.choose(levels[actor], view, seen[actor], legal, rnd)
                if actor == hs:
                    offered = set(legal)
                    opts = {}
                    for x in legal:
                        if x.type in (T.UNO, T.CATCH):
                            continue
                        if not x.uno and x._replace(uno=True) in offered:
                            continue
                        opts.setdefault(key(state, x), x)
                    if key(state, m) in opts:
                        opts[key(state, m)] = m
                    if len(opts) > 1:
                        prnd = random.Random(f"po:{g}:{moves}")
                        seeds = [prnd.getrandbits(32) for _ in range(N)]
                        vals = {}
                        for k, x in opts.items():
                            s1, _ = V.apply(state, x)
                            tot = 0.0
                            for sd in seeds:
                                r = random.Random(sd)
                                dp = list(s1.draw_pile)
                                r.shuffle(dp)
                                tot += playout(
                                    s1._replace(draw_pile=tuple(dp)), hs, r, state.scores
                                )
                            vals[k] = tot / N
                        ch = vals[key(state, m)]
                        bk = max(vals, key=vals.get)
                        row = dict(
                            g=g,
                            mv=moves,
                            dk=decision_kind(state, state.pending),
                            hand=len(state.hands[hs]),
                            opp=len(state.hands[1 - hs]),
                            chosen=desc(state, m),
                            cc=cat.code[0][m.card] if m.card is not None else None,
                            cval=ch,
                            best=desc(state, opts[bk]),
                            bc=bk[1],
                            bval=vals[bk],
                            colour_only=(bk[0] is m.type and bk[1] == key(state, m)[1]),
                            opts={
                                desc(state, opts[k])
                                + ":"
                                + str(k[1])
                                + (f"/{k[2].value}" if k[2] else ""): round(v, 1)
                                for k, v in vals.items()
                            },
                            chosen_colour=(m.color.value if m.color else None),
                            active=(state.active_color.value if state.active_color else None),
                            handcards=[cat.code[0][c] for c in state.hands[hs]],
                        )
                        f.write(json.dumps(row) + "\n")
                        f.flush()
            state, events = V.apply(state, m)
            for s in range(2):
                seen[s].extend(engine.redact_all(events, s))
        print(g, round(time.time() - t0), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        int(args[0]),
        int(args[1]),
        int(args[2]) if len(args) > 2 else 0,
        args[3] if len(args) > 3 else "pizza_regret.jsonl",
    )
