// A small integrator's program over the types openapi-typescript generates from
// openapi.yaml (generated/api.d.ts). `tsc --strict --noEmit` must accept it; every
// `@ts-expect-error` line must be refused, or the compile fails (the types are too loose).
import type { components, operations } from "../generated/api";

type Schemas = components["schemas"];
type Move = Schemas["Move"];
type Event = Schemas["Event"];
type Problem = Schemas["Problem"];

// ---------------------------------------------------------------- moves narrow by type
export function describeMove(move: Move): string {
  switch (move.type) {
    case "play":
      return `seat ${move.player} plays ${move.card}` + (move.color ? ` as ${move.color}` : "");
    case "choose_color":
      return `seat ${move.player} names ${move.color}`;
    case "catch":
    case "choose_target":
      return `seat ${move.player} names seat ${move.target}`;
    case "match": {
      const onto = typeof move.target === "object" && move.target !== null ? move.target.card : "?";
      return `seat ${move.player} matches ${move.cards?.length ?? 0} card(s) onto ${onto}`;
    }
    case "give":
    case "place":
      return `seat ${move.player}: ${move.type} ${move.card}`;
    default:
      return `seat ${move.player}: ${move.type}`;
  }
}

// @ts-expect-error a card is an id, not a code
export const playByCode: Move = { type: "play", player: 0, card: "R7" };
// @ts-expect-error a draw has no colour to name
export const drawWithColor: Schemas["MoveDraw"] = { type: "draw", player: 0, color: "red" };

// ---------------------------------------------------------------- events narrow by type
export function describeEvent(event: Event): string {
  switch (event.type) {
    case "played":
      return `${event.player} played ${event.card.code}`;
    case "drew":
      // `cards` only for the drawer: optional, so it must be checked.
      return `${event.player} drew ${event.count}` + (event.cards ? `: ${event.cards.length}` : "");
    case "round_over":
      return `round to ${event.winner}, scores ${event.scores.join("/")}`;
    case "game_over":
      return `winners ${event.winners.join(", ")}`;
    case "flipped":
      return `flipped to ${event.side} by ${event.player ?? "the turned-up card"}`;
    case "matched":
      return `${event.match} match on ${event.target.card.code} (${event.number})`;
    default:
      return event.type;
  }
}

// ---------------------------------------------------------------- Problem.code is a union
type RuleCode = "not_your_turn" | "does_not_match" | "color_required" | "card_not_in_hand";
const ruleCodes: readonly RuleCode[] = ["not_your_turn", "does_not_match", "color_required", "card_not_in_hand"];

export function isRuleCode(code: Problem["code"]): code is RuleCode {
  return (ruleCodes as readonly string[]).includes(code);
}
export const known: Problem["code"] = "version_mismatch";
export const narrowed: RuleCode | undefined = isRuleCode(known) ? known : undefined;
// @ts-expect-error not a code the service returns
export const unknownCode: Problem["code"] = "no_such_code";

// ---------------------------------------------------------------- typed options
export const flip: Schemas["CreateGameRequest"] = {
  variant: "uno_flip",
  players: 3,
  options: { target: 300, scoring: "alternative", challenge_rule: "any_playable" },
};
export const dosOptions: Schemas["DosOptions"] = { target: 100 };
// @ts-expect-error DOS has no challenge rule
export const dosWithChallenge: Schemas["DosOptions"] = { challenge_rule: "active_color" };
// @ts-expect-error not a scoring choice
export const badScoring: Schemas["UnoFlipOptions"] = { scoring: "golf" };
export const houseRules: Schemas["CreateGameRequest"] = {
  variant: "uno_classic",
  players: 4,
  options: {
    stacking: "up", seven_zero: true, jump_in: true, draw_to_match: true, forced_play: true,
    uno_penalty: 4,
  },
};
// @ts-expect-error not a stacking choice
export const badStacking: Schemas["UnoClassicOptions"] = { stacking: "all" };
// @ts-expect-error an on/off house rule is a boolean
export const stringFlag: Schemas["UnoClassicOptions"] = { jump_in: "true" };
// @ts-expect-error the UNO penalty is a number
export const stringPenalty: Schemas["UnoClassicOptions"] = { uno_penalty: "4" };

// ---------------------------------------------------------------- the house rules' answers
export function describeHouseRules(view: Schemas["View"]): string {
  const pending = view.pending;
  const penalty = pending?.type === "penalty" ? ` (penalty ${pending.draw_stack})` : "";
  return `${JSON.stringify(view.house_rules ?? {})}, stack ${view.draw_stack ?? 0}${penalty}`;
}
export function describeExchange(event: Event): string | undefined {
  switch (event.type) {
    case "swapped":
      return `${event.player} swapped with ${event.target}: ${event.hand_sizes.join("/")}`;
    case "hands_passed":
      return `hands passed ${event.direction}: ${event.hand_sizes.join("/")}`;
    case "jumped_in":
      return `${event.player} jumped in on ${event.target}'s turn`;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------- a session move
type MoveOp = operations["applySessionMove"];
type MoveBody = MoveOp["requestBody"]["content"]["application/json"];
type MoveHeaders = MoveOp["parameters"]["header"];
type MoveAnswer = MoveOp["responses"][200]["content"]["application/json"];
type MoveRefused = MoveOp["responses"][412]["content"]["application/problem+json"];

export async function sendSessionMove(
  base: string,
  sessionId: string,
  token: string,
  etag: Schemas["SessionEtag"], // the state's `etag` (its ETag without the quotes)
  move: Schemas["SessionMove"],
): Promise<MoveAnswer | MoveRefused> {
  const headers: MoveHeaders = { "If-Match": `"${etag}"` };
  const body: MoveBody = { move };
  const resp = await fetch(`${base}/v1/sessions/${sessionId}/moves`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (resp.status === 412) {
    const problem = (await resp.json()) as MoveRefused;
    return problem; // problem.current_etag: the ETag to retry with
  }
  const answer = (await resp.json()) as MoveAnswer;
  for (const event of answer.events) describeEvent(event);
  return answer;
}

// ---------------------------------------------------------------- game records
type GameRecord = Schemas["GameRecord"];
type RecordAnswer = operations["getSessionRecord"]["responses"][200]["content"]["application/json"];
type ReplayBody = operations["replayGame"]["requestBody"]["content"]["application/json"];
type ReplayAnswer = operations["replayGame"]["responses"][200]["content"]["application/json"];
type ReplayRefused = operations["replayGame"]["responses"][422]["content"]["application/problem+json"];

export async function downloadAndVerify(
  base: string,
  sessionId: string,
): Promise<ReplayAnswer | ReplayRefused> {
  const got = await fetch(`${base}/v1/sessions/${sessionId}/record`);
  const record = (await got.json()) as RecordAnswer;
  // A seat's copy of a running game leaves out what it may not see (`hidden`): a
  // record's move is a sent move's shape, not always a listed one.
  for (const entry of record.moves) console.log(entry.by, entry.move.type, entry.hidden ?? []);
  const body: ReplayBody = record;
  const resp = await fetch(`${base}/v1/games/replay`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (resp.status === 422) {
    const problem = (await resp.json()) as ReplayRefused;
    return problem; // problem.index: the first bad move
  }
  const answer = (await resp.json()) as ReplayAnswer;
  for (const event of answer.events) describeEvent(event);
  return answer;
}
// A record longer than REPLAY_PAGE_MOVES goes in pages (docs/records.md): the same
// setup, the next moves, and the resume token the page before answered. The rounds
// and the result left out here are not checked (a page states the rounds that end
// within it, the last page the result).
export function nextPage(record: GameRecord, answer: ReplayAnswer, size: number): ReplayBody {
  const from = answer.moves_verified;
  const page: ReplayBody = {
    ...record,
    moves: record.moves.slice(from, from + size),
    resume: answer.resume,
  };
  delete page.rounds;
  delete page.result;
  return page;
}
export const moveBy: GameRecord["moves"][number]["by"] = "clock";
// @ts-expect-error a record's seed is a decimal string, not a number
export const numericSeed: GameRecord["seed"] = 42;

// ---------------------------------------------------------------- the event stream
export function parseFrame(text: string): Schemas["SseFrame"] | undefined {
  const lines = new Map<string, string>();
  for (const line of text.split("\n")) {
    const at = line.indexOf(": ");
    if (at > 0) lines.set(line.slice(0, at), line.slice(at + 2));
  }
  const id = lines.get("id"), event = lines.get("event"), data = lines.get("data");
  if (id === undefined || event === undefined || data === undefined) return undefined;
  const parsed = JSON.parse(data) as Event;
  return event === parsed.type ? { id: Number(id), event: parsed.type, data: parsed } : undefined;
}

export const sessionDraw: Schemas["SessionMove"] = { type: "draw" };
// @ts-expect-error If-Match is required on a session move
export const noIfMatch: MoveHeaders = {};

// ---------------------------------------------------------------- multiplayer sessions
type JoinOp = operations["joinSession"];
type JoinBody = JoinOp["requestBody"]["content"]["application/json"];
type Joined = JoinOp["responses"][200]["content"]["application/json"];
type Lobby = operations["listSessions"]["responses"][200]["content"]["application/json"];

export async function joinFromTheLobby(base: string, name: string): Promise<Joined | undefined> {
  const page = (await (await fetch(`${base}/v1/sessions?status=waiting&variant=uno_classic`)).json()) as Lobby;
  const entry = page.sessions.find((s) => s.open_seats > 0);
  if (entry === undefined) return undefined;
  const body: JoinBody = { name };
  const resp = await fetch(`${base}/v1/sessions/${entry.session_id}/join`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return resp.status === 200 ? ((await resp.json()) as Joined) : undefined;
}

export function describeSeatEvent(event: Event): string | undefined {
  switch (event.type) {
    case "joined":
      return `${event.name} took seat ${event.player}`;
    case "left":
      return `${event.name} left seat ${event.player} (${event.replaced_by})`;
    case "rematch":
      return `the next game is ${event.session_id}`;
    default:
      return undefined;
  }
}

export const openTable: Schemas["SessionCreate"] = {
  variant: "uno_classic",
  players: [{ name: "Ann" }, { open: true }, { open: true }],
  public: true,
  spectators: "code",
};
export const waitingView: Schemas["SessionState"]["view"] = null;
// @ts-expect-error not a spectator mode
export const badSpectators: Schemas["SessionCreate"]["spectators"] = "friends";
// @ts-expect-error a join needs a name
export const nameless: JoinBody = { code: "x" };
