// Moves, decisions and events in words. Card names come from the variant's catalog
// (GET /v1/variants/{variant}); the tables below have one entry per move type, pending
// decision and event type of the API (a test compares them with openapi.yaml).

const title = (s) => s.split('_').map((w) => (w === 'dos' ? 'DOS' : w[0].toUpperCase() + w.slice(1))).join(' ');

/** A face of the catalog in words: "red 7", "blue Skip", "Wild Draw Four". */
export function faceName(face) {
  const what = face.kind === 'number' ? String(face.value) : title(face.kind);
  return face.color ? `${face.color} ${what}` : what;
}

/** Every face of a catalog by its code: {name, color}. */
export function catalogFaces(catalog) {
  const faces = new Map();
  for (const card of catalog) {
    for (const face of card.light ? [card.light, card.dark] : [card]) {
      faces.set(face.code, { name: faceName(face), color: face.color || 'wild' });
    }
  }
  return faces;
}

const list = (items) => (items.length < 2 ? items.join('')
  : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The words of one DOS match part: the card, and what a wild stands for. */
function part(p, ctx) {
  const as = [p.color, p.number].filter((x) => x !== undefined && x !== null);
  return ctx.card(p.card) + (as.length ? ` as ${as.join(' ')}` : '');
}

// ---------------------------------------------------------------- moves
export const MOVE_TEXT = {
  play: (m, ctx) => {
    let s = `${ctx.outOfTurn && ctx.outOfTurn(m) ? 'Jump in: play' : 'Play'} ${ctx.card(m.card)}`;
    if (m.chain && m.chain.length) s += `, then ${list(m.chain.map((c) => ctx.card(c)))}`;
    if (m.color) s += `, choose ${m.color}`;
    if (m.target !== undefined) s += `, aim at ${ctx.seat(m.target)}`;
    if (m.uno) s += ', and say UNO';
    return s;
  },
  draw: (m, ctx) => {
    const p = ctx.pending;
    if (p && p.type === 'volley') return `Draw ${plural(p.draw_stack, 'card')}`;
    if (p && p.type === 'penalty') return `Take the penalty: draw ${plural(p.draw_stack, 'card')}`;
    return 'Draw';
  },
  pass: () => 'Keep the drawn card and pass',
  choose_color: (m) => `Choose ${m.color}`,
  choose_target: (m, ctx) => `Aim at ${ctx.seat(m.target)}`,
  challenge: () => 'Challenge the wild draw card',
  accept: () => 'Accept the wild draw card',
  uno: () => 'Say UNO',
  catch: (m, ctx) => `Catch ${ctx.seat(m.target)} (did not say UNO)`,
  give: (m, ctx) => `Give ${ctx.card(m.card)}`
    + (ctx.pending && ctx.pending.to !== undefined ? ` to ${ctx.seat(ctx.pending.to)}` : ''),
  draft_keep: (m, ctx) => `Keep ${ctx.pendingCard()}`,
  draft_discard: (m, ctx) => `Discard ${ctx.pendingCard()}`,
  match: (m, ctx) => `Match ${part(m.target, ctx)} with ${list(m.cards.map((c) => part(c, ctx)))}`,
  place: (m, ctx) => `Place ${ctx.card(m.card)} in the center row`,
  end_turn: () => 'End the turn',
  next_round: () => 'Deal the next round',
};

export function describeMove(move, ctx) {
  const text = MOVE_TEXT[move.type];
  return text ? text(move, ctx) : title(move.type);
}

// ---------------------------------------------------------------- decisions
export const PENDING_TEXT = {
  bonus_place: 'place the bonus cards in the center row',
  challenge: 'challenge or accept the wild draw card',
  choose_color: 'name a colour',
  choose_target: 'name a seat for the turned-up card',
  draft: 'keep or discard the card just drawn',
  drawn: 'match with the card just drawn, or place a card',
  forced_run: 'continue the run or draw',
  give: 'give a card',
  matching: 'match more, or end the turn',
  penalty: 'stack a draw card on the penalty, take it, or challenge a Wild Draw Four',
  play_drawn: 'play the card just drawn, or keep it',
  volley: 'play on the Draw Two volley, or draw',
};

export function describePending(pending) {
  return PENDING_TEXT[pending.type] || title(pending.type);
}

// ---------------------------------------------------------------- events
const cards = (refs, ctx) => list(refs.map((c) => ctx.card(c)));

export const EVENT_TEXT = {
  accepted: (e, ctx) => `${ctx.seat(e.player)} accepted the wild draw card`,
  caught: (e, ctx) => `${ctx.seat(e.player)} caught ${ctx.seat(e.target)} not saying UNO`,
  center_row_dealt: (e, ctx) => `The center row: ${cards(e.cards, ctx)}`,
  center_row_refilled: (e, ctx) => `The center row was refilled with ${cards(e.cards, ctx)}`,
  challenged: (e, ctx) => `${ctx.seat(e.player)} challenged ${ctx.seat(e.target)}: `
    + (e.guilty ? 'guilty' : 'not guilty')
    + (e.hand ? ` (hand: ${cards(e.hand, ctx)})` : ''),
  color_chosen: (e, ctx) => `${ctx.seat(e.player)} chose ${e.color}`,
  dealer_cut: (e, ctx) => `Cut for dealer: ${list(e.cards.map((c) => `${ctx.seat(c.player)} ${ctx.card(c.card)}`))}; ${ctx.seat(e.winner)} deals`,
  draft_burned: (e, ctx) => `${ctx.card(e.card)} was burned in ${ctx.seat(e.player)}'s draft`,
  draft_discarded: (e, ctx) => `${ctx.seat(e.player)} discarded ${ctx.card(e.card)} in the draft`,
  draft_drew: (e, ctx) => `${ctx.seat(e.player)} drew ${e.card ? ctx.card(e.card) : 'a card'} in the draft`,
  draft_kept: (e, ctx) => `${ctx.seat(e.player)} kept the card`,
  draft_over: (e) => `The draft is over (${plural(e.under_draw_pile, 'card')} under the draw pile)`,
  drew: (e, ctx) => `${ctx.seat(e.player)} drew ${plural(e.count, 'card')}`
    + (e.reason && e.reason !== 'draw' ? ` (${e.reason.replaceAll('_', ' ')})` : '')
    + (e.cards && e.cards.length ? `: ${cards(e.cards, ctx)}` : ''),
  flipped: (e, ctx) => `Flip! The ${e.side} side is in play; the top card is ${ctx.card(e.top)}`,
  game_over: (e, ctx) => `Game over: ${list(e.winners.map((s) => ctx.seat(s)))} won (scores ${e.scores.join(', ')})`,
  gave: (e, ctx) => `${ctx.seat(e.player)} gave ${e.card ? ctx.card(e.card) : 'a card'} to ${ctx.seat(e.target)}`,
  hands_passed: (e, ctx) => `${ctx.seat(e.player)} played a 0: every hand passed on ${e.direction}`
    + ` (now ${e.hand_sizes.join(', ')} cards)`,
  jumped_in: (e, ctx) => `${ctx.seat(e.player)} jumped in: ${ctx.seat(e.target)} loses the turn`,
  matched: (e, ctx) => `${ctx.seat(e.player)} made a ${e.match} match on ${part(e.target, ctx)} with ${list(e.cards.map((c) => part(c, ctx)))}`
    + (e.color_bonus ? ' (colour bonus)' : ''),
  passed: (e, ctx) => `${ctx.seat(e.player)} kept the drawn card`,
  placed: (e, ctx) => `${ctx.seat(e.player)} placed ${ctx.card(e.card)} in the center row`,
  played: (e, ctx) => `${ctx.seat(e.player)} played ${ctx.card(e.card)}`
    + (e.color ? ` and chose ${e.color}` : '')
    + (e.target !== undefined ? ` at ${ctx.seat(e.target)}` : ''),
  reshuffled: (e) => `The discard pile was shuffled into a new draw pile (${plural(e.count, 'card')})`,
  returned_to_deck: (e, ctx) => `${ctx.card(e.card)} went back into the deck`,
  reversed: (e) => `Play goes ${e.direction} now`,
  round_over: (e, ctx) => `${ctx.seat(e.winner)} won the round (round points ${e.round_scores.join(', ')}; totals ${e.scores.join(', ')})`,
  round_started: (e, ctx) => `Round ${e.round}: ${ctx.seat(e.dealer)} deals`,
  skipped: (e, ctx) => {
    if (e.players) return `${list(e.players.map((s) => ctx.seat(s)))} are skipped`;
    return e.player !== undefined ? `${ctx.seat(e.player)} is skipped` : 'A turn is skipped';
  },
  swapped: (e, ctx) => `${ctx.seat(e.player)} swapped hands with ${ctx.seat(e.target)}`
    + (e.hand_sizes ? ` (now ${e.hand_sizes.join(' and ')} cards)` : ''),
  target_chosen: (e, ctx) => `${ctx.seat(e.player)} named ${ctx.seat(e.target)}`,
  turn_ended: (e, ctx) => `${ctx.seat(e.player)} ended the turn`
    + (e.discarded.length ? ` (discarded ${cards(e.discarded, ctx)})` : ''),
  turned_up: (e, ctx) => `Turned up: ${ctx.card(e.card)}`,
  uno: (e, ctx) => `${ctx.seat(e.player)} said UNO`,
  // Session events (the service's, not the game's).
  joined: (e) => `${e.name} took seat ${e.player + 1}`,
  started: () => 'Every seat is taken: the game starts',
  left: (e) => `${e.name} left seat ${e.player + 1}` + (e.replaced_by === 'bot' ? '; a bot plays it' : ''),
  rematch: () => 'A rematch was made',
  timeout: (e, ctx) => `${ctx.seat(e.player)} ran out of time: the clock played ${plural(e.moves, 'move')}`,
  bot_took_seat: (e, ctx) => `A bot plays for ${ctx.seat(e.player)} from now on`,
  seat_returned: (e, ctx) => `${ctx.seat(e.player)} is back and plays again`,
};

export function describeEvent(event, ctx) {
  const text = EVENT_TEXT[event.type];
  return text ? text(event, ctx) : title(event.type);
}
