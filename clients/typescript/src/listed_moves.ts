// Answers are exact: a listed move carries every field its type always has, so a client
// reads it without a null check, and sends it back as it is. `tsc --strict` must accept
// this file; each `@ts-expect-error` line must be refused (the types would be too loose).
import type { components, operations } from "../generated/api";

type Schemas = components["schemas"];
type Listed = operations["listSessionLegalMoves"]["responses"][200]["content"]["application/json"];
type SessionMoveBody = operations["applySessionMove"]["requestBody"]["content"]["application/json"];
type StatelessMoveBody = operations["applyMove"]["requestBody"]["content"]["application/json"];

export function firstPlayedCard(listed: Listed): number | undefined {
  for (const legalPlay of listed.moves) {
    if (legalPlay.type === "play") {
      const card: number = legalPlay.card;
      return card;
    }
  }
  return undefined;
}

export function chosenColor(move: Schemas["MoveChooseColor"]): Schemas["Color"] {
  return move.color;
}

export function matchedOnto(move: Schemas["MoveMatch"]): number {
  return move.target.card + move.cards.length;
}

// A listed move goes back as it is, to a session and to the stateless API.
export function sendBack(listed: Listed, state: Schemas["State"]): [SessionMoveBody, StatelessMoveBody] {
  const move = listed.moves[0]!;
  return [{ move }, { state, move }];
}

// A hand card has its id; only the cut for dealer may show a face alone.
export const handCardId = (card: Schemas["CardRef"]): number => card.id;
export const cutFace: Schemas["CutCardRef"] = { code: "R7/P3" };
// @ts-expect-error a hand card without its id
export const idless: Schemas["CardRef"] = { code: "R7" };
// @ts-expect-error a listed play always names its card
export const cardless: Schemas["MovePlay"] = { type: "play", player: 0 };
// A move sent to a session may leave `player` out (the token's seat).
export const draw: SessionMoveBody = { move: { type: "draw" } };
