// The playground: one person against bots, through the public API only.
//
// A game is a session (POST /v1/sessions). The page follows it over Server-Sent Events
// (GET /v1/sessions/{id}/stream). EventSource cannot send a seat token, so the page
// follows the stream as a spectator (its events are redacted for spectators) and, on
// each event, re-reads the seat's own view and the events since (GET ?after=) with its
// token.

import { ApiError, call } from './api.js';
import {
  catalogFaces, describeEvent, describeMove, describePending, EVENT_TEXT,
} from './words.js';

const $ = (id) => document.getElementById(id);
/** The game the form opens on. */
const FIRST_VARIANT = 'uno_classic';
const el = (tag, { dataset, ...props } = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  Object.assign(node.dataset, dataset);
  node.append(...children);
  return node;
};

/** Everything the page knows about the game it shows. */
const game = {
  variants: new Map(), // id -> variant summary (GET /v1/variants)
  faces: new Map(), // card code -> {name, color} (the variant's catalog)
  sid: null,
  token: null,
  seat: null,
  seats: [],
  version: null,
  lastSeq: 0, // the last event in the log
  view: null,
  legal: [],
  stream: null,
  retry: 0, // reconnect attempts since the stream last opened
  retryTimer: null,
  refreshing: null,
  stale: false,
  busy: false,
  keepFocus: false,
};

// ---------------------------------------------------------------- status and errors
function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

function showError(err) {
  const box = $('error');
  box.replaceChildren();
  if (!err) {
    box.hidden = true;
    return;
  }
  const p = err instanceof ApiError ? err.problem : { detail: String(err) };
  box.append(
    el('strong', {}, p.title || 'Error'),
    ': ',
    el('span', { className: 'detail' }, p.detail || String(err)),
  );
  if (p.code) box.append(' ', el('code', {}, p.code));
  const fields = p.errors ? Object.entries(p.errors) : [];
  if (fields.length) {
    box.append(el('ul', {}, ...fields.map(([k, v]) => el('li', {}, `${k}: ${JSON.stringify(v)}`))));
  }
  box.dataset.code = p.code || '';
  box.hidden = false;
}

// ---------------------------------------------------------------- words for this game
function cardCodes() {
  // Moves name cards by id; the view says which code each visible id has.
  const codes = new Map();
  const add = (ref) => { if (ref && ref.id !== undefined) codes.set(ref.id, ref.code); };
  const v = game.view;
  if (!v) return codes;
  v.hand.forEach(add);
  add(v.discard_top);
  if (v.pending && v.pending.card) add(v.pending.card);
  for (const slot of v.center_row || []) {
    add(slot.card);
    slot.matched.forEach(add);
  }
  return codes;
}

function context() {
  const codes = cardCodes();
  const name = (code) => (game.faces.get(code) || { name: code }).name;
  return {
    pending: game.view && game.view.pending,
    // A play by a seat that is not to move, with nothing pending: a jump-in.
    outOfTurn: (m) => Boolean(game.view && !game.view.pending
      && game.view.phase === 'play' && m.player !== game.view.current_player),
    card: (c) => {
      if (c && typeof c === 'object') return name(c.code);
      return codes.has(c) ? name(codes.get(c)) : `card ${c}`;
    },
    pendingCard() {
      const p = game.view && game.view.pending;
      return p && p.card ? name(p.card.code) : 'the card';
    },
    seat: (i) => {
      const s = game.seats[i];
      const who = s ? s.name : `Seat ${i}`;
      return i === game.seat ? `${who} (you)` : who;
    },
  };
}

function cardItem(ref) {
  const face = game.faces.get(ref.code) || { name: ref.code, color: 'wild' };
  return el('li', { className: `card c-${face.color}`, title: ref.code }, face.name);
}

// ---------------------------------------------------------------- rendering
function renderSeats(v, ctx) {
  const rows = game.seats.map((s, i) => {
    const tr = el('tr', {},
      el('th', { scope: 'row' }, ctx.seat(i) + (s.bot ? ' (bot)' : '')),
      el('td', { className: 'hand-size' }, String(v.hand_sizes[i])),
      el('td', { className: 'round-score' }, v.round_scores ? String(v.round_scores[i]) : '–'),
      el('td', { className: 'score', dataset: { seat: String(i) } }, String(v.scores[i])));
    if (i === (v.pending ? v.pending.player : v.current_player) && v.phase !== 'game_over') {
      tr.className = 'to-move';
    }
    return tr;
  });
  $('seats').tBodies[0].replaceChildren(...rows);
  $('target').textContent = String(v.target);
}

function renderTurn(v, ctx) {
  const waiting = v.pending ? v.pending.player : v.current_player;
  let text;
  if (v.phase === 'game_over') {
    text = `Game over. Winner${v.winners.length > 1 ? 's' : ''}: ${v.winners.map((s) => ctx.seat(s)).join(', ')}.`;
  } else if (v.phase === 'round_over') {
    text = `Round ${v.round} is over; ${v.round_winner !== null ? ctx.seat(v.round_winner) : 'nobody'} won it.`;
  } else if (v.pending) {
    text = waiting === game.seat ? `Your decision: ${describePending(v.pending)}.`
      : `Waiting for ${ctx.seat(waiting)} to ${describePending(v.pending)}.`;
  } else {
    text = waiting === game.seat ? 'Your turn.' : `${ctx.seat(waiting)} to play.`;
  }
  $('turn').textContent = text;
  const variant = game.variants.get(v.variant);
  const parts = [`${variant ? variant.title : v.variant}, round ${v.round}`, `play goes ${v.direction}`];
  if (v.discard_top) parts.push(`discard pile: ${ctx.card(v.discard_top)}`);
  if (v.active_color) parts.push(`colour in play: ${v.active_color}`);
  parts.push(`draw pile: ${v.draw_pile_size}`);
  if (v.draw_stack) parts.push(`volley: ${v.draw_stack}`);
  $('summary').textContent = `${parts.join('; ')}.`;
}

function renderCards(v, ctx) {
  $('hand').replaceChildren(...v.hand.map(cardItem));
  if (!v.hand.length) $('hand').append(el('li', { className: 'empty' }, 'no cards'));

  const dos = Array.isArray(v.center_row);
  $('center').hidden = !dos;
  if (dos) {
    $('center-row').replaceChildren(...v.center_row.map((slot) => {
      const li = cardItem(slot.card);
      const as = [slot.color, slot.number].filter((x) => x !== null && x !== undefined);
      if (as.length) li.append(` (as ${as.join(' ')})`);
      if (slot.matched.length) li.append(` ← ${slot.matched.map((c) => ctx.card(c)).join(', ')}`);
      return li;
    }));
  }

  const flip = Array.isArray(v.backs);
  $('flip-backs').hidden = !flip;
  if (flip) {
    const other = v.side === 'light' ? 'dark' : 'light';
    $('flip-side').textContent = `The ${v.side} side is in play. Your cards' ${other} side faces `
      + 'the others; you see theirs'
      + (v.draw_top_back ? `, and the draw pile's top card shows ${ctx.card({ code: v.draw_top_back })}.` : '.');
    $('backs').replaceChildren(...v.backs.map((faces, i) => (i === game.seat ? null : el('li', {},
      `${ctx.seat(i)}: `,
      el('ul', { className: 'cards' }, ...faces.map((code) => cardItem({ code }))))))
      .filter(Boolean));
  }
}

/** The legal moves with their words, one per distinct wording: two copies of a card
 * (two red 7s) are one choice, so one button (the first copy's move). */
function distinctMoves(ctx) {
  const seen = new Set();
  const out = [];
  for (const move of game.legal) {
    const label = describeMove(move, ctx);
    if (!seen.has(label)) {
      seen.add(label);
      out.push({ move, label });
    }
  }
  return out;
}

function renderMoves(ctx) {
  const box = $('moves');
  // A keyboard user who pressed a move keeps the focus on the moves (a disabled button
  // loses it while the move is sent).
  const hadFocus = box.contains(document.activeElement) || game.keepFocus;
  const buttons = distinctMoves(ctx).map(({ move, label }, i) => el('button', {
    type: 'button',
    className: `move m-${move.type}`,
    disabled: game.busy,
    onclick: () => sendMove(move),
    dataset: { index: String(i), type: move.type },
  }, label));
  box.replaceChildren(...buttons);
  const v = game.view;
  $('moves-note').textContent = buttons.length ? `${buttons.length} legal move${buttons.length > 1 ? 's' : ''}.`
    : v.phase === 'game_over' ? 'The game is over.' : 'Nothing to do: the others are moving.';
  if (hadFocus && !game.busy) {
    const next = buttons.length ? buttons[0] : v.phase === 'game_over' ? $('download-record') : null;
    if (next) {
      next.focus();
      game.keepFocus = false;
    }
  }
}

function appendLog(events, ctx) {
  const log = $('log');
  for (const ev of events) {
    if (ev.seq <= game.lastSeq) continue;
    game.lastSeq = ev.seq;
    log.append(el('li', { dataset: { seq: String(ev.seq), type: ev.type } }, describeEvent(ev, ctx)));
  }
  log.scrollTop = log.scrollHeight;
}

/** Show an answer of the session API (a SessionState: every call about a seat answers one). */
function show(answer, events = answer.events || []) {
  // An answer about a version already shown changes nothing (the stream's re-reads).
  if (game.version !== null && answer.version <= game.version && !events.some((e) => e.seq > game.lastSeq)) return;
  if (game.version !== null && answer.version < game.version) return; // an older answer
  game.version = answer.version;
  game.view = answer.view;
  game.legal = answer.legal_moves;
  document.body.dataset.version = String(answer.version);
  document.body.dataset.phase = answer.view.phase;
  const ctx = context();
  appendLog(events, ctx);
  renderTurn(game.view, ctx);
  renderSeats(game.view, ctx);
  renderCards(game.view, ctx);
  const over = game.view.phase === 'game_over';
  $('finished').hidden = !over;
  if (over) $('result').textContent = $('turn').textContent;
  renderMoves(ctx);
  if (over) {
    closeStream();
    setStatus('finished', 'Game over: the stream is closed');
  }
}

// ---------------------------------------------------------------- the session
async function refresh() {
  // One re-read at a time; events during it ask for one more.
  if (game.refreshing) {
    game.stale = true;
    return game.refreshing;
  }
  game.refreshing = (async () => {
    do {
      game.stale = false;
      const sid = game.sid;
      try {
        // One call: the seat's view and the events since the last one shown.
        const state = await call('GET', `/v1/sessions/${sid}?after=${game.lastSeq}`, { token: game.token });
        if (sid !== game.sid) return;
        if ($('error').dataset.code === 'network_error') showError(null);
        show(state.data);
      } catch (err) {
        showError(err);
      }
    } while (game.stale);
  })();
  try {
    await game.refreshing;
  } finally {
    game.refreshing = null;
  }
  return undefined;
}

async function sendMove(move) {
  if (game.busy) return;
  game.keepFocus = $('moves').contains(document.activeElement);
  game.busy = true;
  renderMoves(context());
  showError(null);
  try {
    const { data } = await call('POST', `/v1/sessions/${game.sid}/moves`, {
      token: game.token,
      body: { move },
      headers: { 'If-Match': `"${game.version}"` },
    });
    game.busy = false;
    show(data);
    renderMoves(context()); // enabled again, even when a re-read already showed this version
  } catch (err) {
    game.busy = false;
    showError(err);
    if (err.status === 412 || err.status === 428 || err.status === 422) await refresh();
    else renderMoves(context());
  }
}

function closeStream() {
  if (game.stream) game.stream.close();
  game.stream = null;
  clearTimeout(game.retryTimer);
}

function openStream() {
  closeStream();
  // After a reconnect the browser sends Last-Event-ID itself; `after` is for the first.
  const es = new EventSource(`/v1/sessions/${game.sid}/stream?after=${game.lastSeq}`);
  game.stream = es;
  setStatus('connecting', 'Connecting…');
  es.addEventListener('open', () => {
    game.retry = 0;
    setStatus('live', 'Live: following the game');
    refresh(); // whatever happened while the stream was down
  });
  const onEvent = () => refresh();
  for (const type of Object.keys(EVENT_TEXT)) es.addEventListener(type, onEvent);
  es.addEventListener('error', () => {
    if (game.stream !== es) return;
    if (es.readyState === EventSource.CONNECTING) {
      // The stream ended (its time limit) or dropped: the browser reconnects with
      // Last-Event-ID after the server's `retry`.
      setStatus('reconnecting', 'Connection lost: reconnecting…');
      return;
    }
    // Closed for good (the server refused): reconnect ourselves, more slowly each time.
    const wait = Math.min(30, 2 ** game.retry);
    game.retry += 1;
    setStatus('offline', `Connection lost: retrying in ${wait} s`);
    game.retryTimer = setTimeout(() => {
      if (game.stream === es) openStream();
    }, wait * 1000);
  });
}

async function downloadRecord() {
  showError(null);
  try {
    const { data } = await call('GET', `/v1/sessions/${game.sid}/record`, { token: game.token });
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: `${game.view.variant}-${game.sid}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) {
    showError(err);
  }
}

// ---------------------------------------------------------------- the set-up form
function number(raw) {
  // Integers go as numbers; anything else as typed, for the service to refuse.
  const t = raw.trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

function renderOptions() {
  const variant = game.variants.get($('variant').value);
  const box = $('options');
  box.replaceChildren(el('legend', {}, 'Options'));
  if (!variant) return;
  $('players').min = String(variant.players.min);
  $('players').max = String(variant.players.max);
  const players = Number($('players').value);
  if (!(players >= variant.players.min && players <= variant.players.max)) {
    $('players').value = String(variant.players.min);
  }
  $('players-hint').textContent = `${variant.players.min} to ${variant.players.max} for ${variant.title}`;
  for (const [name, spec] of Object.entries(variant.options)) {
    const id = `option-${name}`;
    let input;
    if (typeof spec.default === 'boolean') { // an on/off option (a house rule): a checkbox
      input = el('input', { id, name, type: 'checkbox', checked: spec.default });
    } else if (spec.choices) {
      input = el('select', { id, name }, ...spec.choices.map((c) => el('option', {
        value: c, selected: c === spec.default,
      }, c.replaceAll('_', ' '))));
    } else {
      input = el('input', { id, name, type: 'text', inputMode: 'numeric', value: String(spec.default) });
    }
    input.dataset.option = name;
    input.dataset.kind = typeof spec.default === 'boolean' ? 'flag' : spec.choices ? 'choice' : 'number';
    const hint = spec.choices ? spec.description
      : `${spec.description}; ${spec.minimum} to ${spec.maximum}`;
    box.append(el('div', { className: 'field' },
      el('label', { htmlFor: id }, spec.label),
      input,
      el('small', {}, hint)));
  }
  $('rules-link').replaceChildren(el('a', {
    href: variant.rules_url, target: '_blank', rel: 'noopener',
  }, `The rules of ${variant.title}`));
}

function setupBody() {
  const variant = $('variant').value;
  const count = number($('players').value);
  const me = { name: $('name').value.trim() || 'You' };
  const players = Number.isInteger(count) && count >= 1 && count <= 10
    ? [me, ...Array.from({ length: count - 1 }, (_, i) => ({ name: `Bot ${i + 1}`, bot: $('bot-level').value }))]
    : count;
  const options = {};
  const value = {
    flag: (input) => input.checked,
    number: (input) => number(input.value),
    choice: (input) => input.value,
  };
  for (const input of $('options').querySelectorAll('[data-option]')) {
    options[input.dataset.option] = value[input.dataset.kind](input);
  }
  const body = { variant, players, options };
  if ($('seed').value.trim()) body.seed = number($('seed').value);
  return body;
}

async function start(event) {
  event.preventDefault();
  showError(null);
  $('start').disabled = true;
  try {
    const { data } = await call('POST', '/v1/sessions', { body: setupBody() });
    await enter(data, data.token);
  } catch (err) {
    showError(err);
  } finally {
    $('start').disabled = false;
  }
}

/** How long a quick match waits for people before bots take the empty seats (s). */
const MATCH_WAIT_SECONDS = 20;

/** Quick match: a ticket for the game and seat count chosen, polled until its table is dealt. */
async function quickMatch() {
  showError(null);
  $('quick-match').disabled = true;
  const { variant, players, options } = setupBody();
  const seats = Array.isArray(players) ? players.length : players;
  const body = { variant, seats, options, name: $('name').value.trim() || 'Player', wait_seconds: MATCH_WAIT_SECONDS };
  try {
    let { data: ticket } = await call('POST', '/v1/matches', { body });
    const secret = ticket.secret;
    let token = ticket.token;
    while (ticket.status === 'waiting') {
      $('matching').hidden = false;
      $('matching').textContent = `Looking for players: seat ${ticket.seat + 1} of ${seats} taken, bots at ${new Date(ticket.deadline).toLocaleTimeString()}`;
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
      ({ data: ticket } = await call('GET', `/v1/matches/${encodeURIComponent(ticket.ticket_id)}`, { token: secret }));
      token = token || ticket.token;
    }
    if (ticket.status !== 'matched') throw new Error(`the ticket was ${ticket.status}`);
    const { data } = await call('GET', `/v1/sessions/${encodeURIComponent(ticket.session_id)}`, { token });
    await enter(data, token);
  } catch (err) {
    showError(err);
  } finally {
    $('matching').hidden = true;
    $('quick-match').disabled = false;
  }
}

/** Show the game of a session answer `data`, played with the seat's `token`. */
async function enter(data, token) {
  const catalog = await call('GET', `/v1/variants/${encodeURIComponent(data.variant)}`);
  closeStream();
  Object.assign(game, {
    faces: catalogFaces(catalog.data.catalog),
    sid: data.session_id,
    seat: data.seat,
    seats: data.seats,
    token,
    version: null,
    lastSeq: 0,
    busy: false,
  });
  $('log').replaceChildren();
  $('session-id').textContent = data.session_id;
  $('setup').hidden = true;
  $('game').hidden = false;
  show(data);
  $('game-title').focus();
  if (data.view.phase !== 'game_over') openStream();
}

function newGame() {
  closeStream();
  game.sid = null;
  showError(null);
  setStatus('idle', 'Not connected');
  $('game').hidden = true;
  $('setup').hidden = false;
  $('variant').focus();
}

async function init() {
  $('setup-form').addEventListener('submit', start);
  $('variant').addEventListener('change', renderOptions);
  $('download-record').addEventListener('click', downloadRecord);
  $('new-game').addEventListener('click', newGame);
  $('quick-match').addEventListener('click', quickMatch);
  $('game-title').tabIndex = -1;
  try {
    const { data } = await call('GET', '/v1/variants');
    for (const v of data.variants) game.variants.set(v.id, v);
    $('variant').replaceChildren(...data.variants.map((v) => el('option', {
      value: v.id, selected: v.id === FIRST_VARIANT,
    }, v.title)));
    renderOptions();
    document.body.dataset.ready = 'true';
  } catch (err) {
    showError(err);
  }
}

init();
