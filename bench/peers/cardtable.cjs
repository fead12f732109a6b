// This service as a system of load.cjs (issue 27): the same Table driver and measurement as
// the peers, speaking the service's own protocol (docs/protocol.md) instead of a client
// library's, so that all three servers are driven by one generator.
//
// - A table: `POST /api/tables` makes a private table without a clock (what bench/load/
//   plays, and what the peers' games are: docs/benchmarks.md, "Which tables the generators
//   play"), its invite key goes with every later request (`X-Table-Key`), each seat is
//   taken with `POST …/join`, and once every socket is open the host starts the game.
// - A socket: `/ws/tables/{id}`, msgpack frames (msgpackr), `hello` with the seat's token
//   (null: a spectator) and the key; the `welcome` ends the opening.
// - The seat prompted (`prompt` with `legal_actions`) sends one of them, picked at random by
//   the table's seeded generator (as bench/load/ does), in an `action` with a fresh id; its
//   `ack` is the accepted action; an `error` is counted by its code and, for `unavailable`,
//   the same id is sent again (the server applies an id at most once), for any other the
//   prompt is answered again after a pause (at most 20 times in a row, then the table stops
//   acting: `table_abandoned`). A `legal_form` prompt (Loot Island's compact one) is not
//   expanded here: counted as the error `legal_form` and left unanswered.
// - Every `deltas` frame is checked against the socket's seq (gaps, duplicates) and is one
//   delivery; its `prev` is the seq of the prompt that the action making it answered, the
//   key under which the Table timed that action. `game_ended` (or an `ended` table summary)
//   ends the table.
// - The game starts once every socket of the table is open (players and spectators; idle
//   sockets open later), and `start` waits until each has the start's frame.
// - At the end (`settle`) the table waits, at most 5 s, for the acks of the actions in
//   flight and until every socket has every acked frame; what a socket still misses then
//   is `missing`. So `totals` (every ack and `deltas` frame of the run, the window or not)
//   equal the server's own counters: cardtable_actions_total{result="accepted"} and
//   cardtable_deliveries_total.
'use strict';

const { Packr } = require('msgpackr');
const WebSocket = require('ws');
const { xoroshiro128plus } = require('pure-rand/generator/xoroshiro128plus');
const { uniformInt } = require('pure-rand/distribution/uniformInt');

const packr = new Packr({ useRecords: false }); // plain msgpack maps, as the server reads
const SETTLE_MS = 5000;
const ACK_RETRIES = 10; // `unavailable`: the same id again, as bench/load/
const MAX_FAILURES = 20;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The system for load.cjs. `url`: the service's http base; `opts.game` the game's name
 * (einauge, keltis: games that list their legal actions), `opts.seed` the run's seed
 * (table n's generator is seeded with seed * 1,000,003 + n), `opts.stats` the run's
 * counters (gaps, duplicates, missing, totals).
 */
function cardtableSystem(url, { game, seed, stats }) {
  let tables = 0;
  const wsBase = url.replace(/^http/, 'ws');

  /** POST `path` for `table` (its key, and `token` as bearer); 429 is retried after a
   *  growing pause (`http:429(retried)`, not an error of the run), any other status >= 400
   *  throws. */
  async function post(table, path, body, token) {
    const headers = { 'content-type': 'application/json' };
    const ct = table.cardtable;
    if (ct && ct.key) headers['x-table-key'] = ct.key;
    if (token) headers.authorization = `Bearer ${token}`;
    for (let attempt = 0; ; attempt++) {
      const r = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
      if (r.status === 429 && attempt < 19) {
        table.error('http:429(retried)');
        await r.arrayBuffer();
        await sleep(50 * (attempt + 1));
        continue;
      }
      if (r.status >= 400) {
        table.error(`http:${r.status}`);
        throw new Error(`POST ${path}: ${r.status} ${(await r.text()).slice(0, 200)}`);
      }
      return r.json();
    }
  }

  /** Send `action` for the prompt `key` on `sock`; resent under the same id after
   *  `unavailable`. */
  function act(table, sock, key, action) {
    const ct = table.cardtable;
    const id = String(ct.nextId++);
    ct.waiting.set(id, { key, action, sock, attempts: 0 });
    sock.send({ t: 'action', id, action });
  }

  function onAck(table, msg) {
    const ct = table.cardtable;
    const w = ct.waiting.get(msg.id);
    if (w === undefined) { table.error('unexpected_ack'); return; }
    ct.waiting.delete(msg.id);
    stats.totals.accepted += 1;
    if (msg.seq > ct.acked) ct.acked = msg.seq;
    ct.failures = 0;
    table.accepted(w.key);
  }

  function onError(table, msg) {
    const ct = table.cardtable;
    const w = msg.id == null ? undefined : ct.waiting.get(msg.id);
    if (w !== undefined && msg.code === 'unavailable' && w.attempts < ACK_RETRIES) {
      // not stored: the same id again (counted as retried, as bench/load/ counts it)
      w.attempts += 1;
      table.error('unavailable(retried)');
      setTimeout(() => w.sock.send({ t: 'action', id: msg.id, action: w.action }),
        50 * w.attempts);
      return;
    }
    table.error(String(msg.code));
    if (w === undefined) return;
    ct.waiting.delete(msg.id);
    ct.failures += 1;
    if (ct.failures > MAX_FAILURES) { table.error('table_abandoned'); return; }
    // an error sends no new prompt: answer the same one again after a pause
    setTimeout(() => table.retry(), 50 * ct.failures);
  }

  /** One socket: `seat` null for a spectator. Resolves with it once welcomed. */
  function open(table, seat) {
    const ct = table.cardtable;
    const spectator = seat === null;
    const token = spectator ? null : ct.tokens[seat];
    const ws = new WebSocket(`${wsBase}/ws/tables/${table.id}`,
      { perMessageDeflate: false, maxPayload: 2 ** 22 });
    const sock = {
      last: 0, // the seq this socket holds
      welcomed: 0, // the seq of its welcome
      alive: true,
      closing: false,
      send: (msg) => { if (ws.readyState === WebSocket.OPEN) ws.send(packr.pack(msg)); },
      close: () => { sock.closing = true; ws.close(1000); },
    };
    return new Promise((resolve, reject) => {
      ws.on('open', () => sock.send({ t: 'hello', token, last_seq: null, key: ct.key }));
      ws.on('error', (e) => { if (!sock.closing) table.error(`socket:${e.code || e.message}`); });
      ws.on('close', (code) => {
        sock.alive = false;
        if (!sock.closing) table.error(`closed:${code}`);
        reject(new Error(`closed ${code} before the welcome`));
      });
      ws.on('message', (data, isBinary) => {
        let msg;
        try {
          msg = isBinary ? packr.unpack(data) : JSON.parse(data.toString());
        } catch (e) {
          table.error(`client:${e.name}`); // a decoding bug must show in the report
          return;
        }
        switch (msg.t) {
          case 'deltas':
            stats.totals.deliveries += 1;
            if (msg.seq <= sock.last) { stats.duplicates += 1; break; }
            if (msg.prev !== sock.last) stats.gaps += 1;
            sock.last = msg.seq;
            table.delivered(spectator, msg.prev);
            if ((msg.events || []).some((e) => e.event && e.event.type === 'game_ended')) {
              ct.finalSeq = msg.seq;
              table.ended();
            }
            break;
          case 'prompt':
            if (msg.seq < sock.last) break; // an old prompt: the table moved on
            if (msg.legal_actions && msg.legal_actions.length) {
              const listed = msg.legal_actions;
              table.prompted(msg.seq,
                () => act(table, sock, msg.seq, listed[uniformInt(ct.rng, 0, listed.length - 1)]));
            } else if (msg.legal_form) {
              table.error('legal_form');
            }
            break;
          case 'ack': onAck(table, msg); break;
          case 'error': onError(table, msg); break;
          case 'welcome': sock.last = sock.welcomed = msg.seq; resolve(sock); break;
          case 'table':
            if (msg.table && msg.table.status === 'ended') {
              if (ct.finalSeq === null) ct.finalSeq = msg.table.seq ?? null;
              table.ended();
            }
            break;
          default: // presence, chat_history, clock: nothing to measure
        }
      });
    });
  }

  return {
    async createTable(table) {
      const n = tables++;
      table.cardtable = {
        key: null, tokens: [], owner: null, rng: xoroshiro128plus(seed * 1000003 + n),
        nextId: 1, waiting: new Map(), acked: 0, finalSeq: null, failures: 0, socks: [],
      };
      const summary = await post(table, '/api/tables', {
        game, seats: 4, options: {}, name: 'load', private: true,
      });
      table.cardtable.key = summary.invite_key;
      table.cardtable.owner = summary.owner_token;
      table.id = summary.id;
      for (let i = 0; i < 4; i++) {
        const joined = await post(table, `/api/tables/${summary.id}/join`, { name: `p${i}` });
        table.cardtable.tokens[joined.seat] = joined.token;
      }
      return summary.id;
    },
    async connect(table, seat) {
      const sock = await open(table, seat);
      table.cardtable.socks.push(sock);
      return sock;
    },
    /** Start the game; resolves once every socket has the start's frame (so a socket
     *  opened later, an idle one, is not in that fan-out), at most 10 s (`start_unseen`). */
    async start(table) {
      const ct = table.cardtable;
      await post(table, `/api/tables/${table.id}/start`, {}, ct.owner);
      const deadline = performance.now() + 10000;
      while (!ct.socks.every((s) => s.last > s.welcomed) && performance.now() < deadline) {
        await sleep(5);
      }
      if (!ct.socks.every((s) => s.last > s.welcomed)) table.error('start_unseen');
    },
    async settle(table) {
      const ct = table.cardtable;
      const deadline = performance.now() + SETTLE_MS;
      const target = () => (ct.finalSeq !== null ? ct.finalSeq : ct.acked);
      const settled = () => ct.waiting.size === 0
        && ct.socks.every((s) => s.last >= target() || !s.alive);
      while (!settled() && performance.now() < deadline) await sleep(20);
      for (const s of ct.socks) if (s.last < target()) stats.missing += target() - s.last;
      if (ct.waiting.size) table.error('ack_missing');
    },
  };
}

module.exports = { cardtableSystem };
