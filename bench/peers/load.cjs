// Load generator of the side-by-side comparison (issues 18 and 27), one for all three
// systems: the peers (boardgame.io, Colyseus) and this service (`cardtable`,
// cardtable.cjs). Every table is created through the system's own lobby or matchmaker, 4
// players and --spectators spectators connect (the peers with their own client library,
// this service with its documented protocol), the seat to move acts (the peers: a random
// face-up card; this service: a seeded random one of its prompt's legal actions) at once
// with --rate 0, else after 1/--rate s jittered by ±50%, and a finished game is replaced
// by a new table. The first --warmup seconds are not measured.
//
//   node load.cjs --system bgio|colyseus|cardtable --url http://127.0.0.1:PORT
//       --server-pid PID [--mode play|idle] [--tables 200] [--spectators 0] [--rate 0]
//       [--duration 10] [--warmup 2] [--connections 1000] [--idle-warmup 100] [--settle 2]
//       [--game einauge] [--seed 1]   (the last two: cardtable only)
//
// Prints one JSON object. Server CPU (utime + stime of /proc/PID/stat), bytes written
// (wchar of /proc/PID/io: every byte the server wrote to its sockets) and RSS
// (/proc/PID/status) are read at the start and the end of the measured window.
'use strict';

const fs = require('node:fs');
const { parseArgs } = require('node:util');

const { cardtableSystem } = require('./cardtable.cjs');
const game = require('./game.cjs');

const { values: opt } = parseArgs({
  options: {
    system: { type: 'string' },
    url: { type: 'string' },
    'server-pid': { type: 'string' },
    mode: { type: 'string', default: 'play' },
    tables: { type: 'string', default: '200' },
    spectators: { type: 'string', default: '0' },
    rate: { type: 'string', default: '0' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '1000' },
    'idle-warmup': { type: 'string', default: '100' },
    settle: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '100' },
    'clk-tck': { type: 'string', default: '100' },
    game: { type: 'string', default: 'einauge' },
    seed: { type: 'string', default: '1' },
  },
});
const num = (k) => Number(opt[k]);
const PID = opt['server-pid'];
const CLK_TCK = num('clk-tck');

// ------------------------------------------------------------------ /proc of the server

function procSample() {
  const stat = fs.readFileSync(`/proc/${PID}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
  const cpu = (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime, stime: fields 14, 15
  const io = fs.readFileSync(`/proc/${PID}/io`, 'utf8');
  const wchar = Number(/wchar:\s*(\d+)/.exec(io)[1]);
  const status = fs.readFileSync(`/proc/${PID}/status`, 'utf8');
  const rss = Number(/VmRSS:\s*(\d+)/.exec(status)[1]) * 1024;
  return { cpu, wchar, rss, t: performance.now() };
}

// ------------------------------------------------------------------ the systems

// Each system gives: createTable(table) -> id, and connect(table, seat | null) -> conn with
// conn.close() (and conn.id: the table's id, when the system makes it at the first join);
// its sockets report what they see to the Table (below). Optional: start(table) once every
// socket is open, settle(table) before the sockets close at the end.

function bgioSystem(url) {
  const { Client } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const { PickCards } = require('./bgio_game.cjs');
  const post = async (path, body) => {
    const r = await fetch(url + path, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`POST ${path}: ${r.status}`);
    return r.json();
  };
  return {
    async createTable() {
      return (await post('/games/pick/create', { numPlayers: game.SEATS })).matchID;
    },
    async connect(table, seat) {
      const id = table.id;
      const onState = pickListener(table, seat);
      let credentials;
      if (seat !== null) {
        credentials = (await post(`/games/pick/${id}/join`,
          { playerID: String(seat), playerName: `p${seat}` })).playerCredentials;
      }
      const client = Client({
        game: PickCards, numPlayers: game.SEATS, matchID: id, debug: false,
        playerID: seat === null ? undefined : String(seat), credentials,
        multiplayer: SocketIO({ server: url }),
      });
      await new Promise((resolve) => {
        client.subscribe((s) => {
          if (!s) return;
          onState(s.G.moves, Boolean(s.ctx.gameover));
          resolve();
        });
        client.start();
      });
      return { pick: (slot) => client.moves.pick(slot), close: () => client.stop() };
    },
  };
}

function colyseusSystem(url) {
  const { Client } = require('@colyseus/sdk');
  const client = new Client(url);
  const rooms = new Map(); // table id -> seat 0's room, until the table is closed
  return {
    async createTable() {
      return null; // the matchmaker creates the room when seat 0 asks for it
    },
    async connect(table, seat) {
      const id = table.id;
      const onState = pickListener(table, seat);
      const options = seat === null ? {} : { seat };
      const room = seat === 0 && id === null
        ? await client.create('pick', options)
        : await client.joinById(id, options);
      await new Promise((resolve) => {
        room.onStateChange((s) => {
          onState(s.moves, s.over);
          resolve();
        });
      });
      return {
        id: room.roomId,
        pick: (slot) => room.send('pick', slot),
        close: () => room.leave().catch(() => {}),
      };
    },
  };
}

// ------------------------------------------------------------------ bookkeeping

const stats = {
  recording: false,
  accepted: 0,
  deliveries: 0,
  skipped: 0,
  errors: {},
  tablesStarted: 0,
  setupFailed: 0,
  tablesEnded: 0,
  // this service's frames carry seqs: each socket's stream is checked (cardtable.cjs)
  gaps: 0,
  duplicates: 0,
  missing: 0,
  totals: { accepted: 0, deliveries: 0 }, // the whole run, window or not (cardtable)
  playerDelivery: [],
  spectatorDelivery: [],
  lastSpectator: [],
  actionLatency: [],
};
const error = (what) => { stats.errors[what] = (stats.errors[what] || 0) + 1; };
/** Errors of the run: every code counted but the retried ones (`…(retried)`: a 429 of the
 *  lobby or an `unavailable` resent, which the protocol allows). */
const errorCount = () => Object.entries(stats.errors)
  .filter(([k]) => !k.endsWith('(retried)')).reduce((a, [, v]) => a + v, 0);

function summarize(values) {
  const v = Float64Array.from(values).sort();
  const q = (p) => (v.length ? Number(v[Math.min(v.length - 1, Math.floor(p * v.length))].toFixed(3)) : null);
  return { n: v.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: v.length ? Number(v[v.length - 1].toFixed(3)) : null };
}

class Gate {
  constructor(n) { this.free = n; this.queue = []; }
  async run(fn) {
    if (this.free === 0) await new Promise((r) => this.queue.push(r));
    else this.free -= 1;
    try { return await fn(); } finally {
      const next = this.queue.shift();
      if (next) next(); else this.free += 1;
    }
  }
}

// ------------------------------------------------------------------ one table

/** The pick game's listener for one socket (both peers): `onState(moves, over)` for every
 *  state the socket gets, turned into the Table's events. A move's key is its number. */
function pickListener(table, seat) {
  const last = { moves: 0 };
  return (moves, over) => {
    for (let k = last.moves + 1; k <= moves; k++) {
      table.delivered(seat === null, k);
      if (k < moves) stats.skipped += 1;
    }
    if (moves > last.moves) last.moves = moves;
    if (seat === null) return;
    if (seat === game.seatToMove(moves - 1) && moves > table.moves) {
      // the mover's own socket shows its move applied: accepted
      for (let k = table.moves + 1; k <= moves; k++) table.accepted(k);
      table.moves = moves;
    }
    if (over) { table.ended(); return; }
    if (seat === game.seatToMove(moves)) {
      table.prompted(moves + 1,
        () => table.conns[seat].pick(Math.floor(Math.random() * game.FACE_UP)));
    }
  };
}

/**
 * One table of a run, whatever the system. A system's sockets report to it:
 * `delivered(spectator, key)` for every state change a socket receives, `accepted(key)`
 * when the system confirmed an action, `prompted(key, act)` when a seat may act (`act()`
 * sends the action), `ended()` at the game's end. `key` names one action at this table
 * (the pick game: the move's number; this service: the seq of the prompt it answers, which
 * is the `prev` of the `deltas` frame it makes), so a receipt is timed from its action.
 */
class Table {
  constructor(system, spectators, rate) {
    this.system = system;
    this.nSpectators = spectators;
    this.rate = rate;
    this.id = null;
    this.conns = [];
    this.sentAt = new Map(); // key -> send time (ms)
    this.seenBy = new Map(); // key -> spectators that have it
    this.moves = 0; // the pick game: moves the mover's socket saw
    this.prompt = null; // the latest { key, act }
    this.pendingKey = -1;
    this.driving = false;
    this.over = false;
    this.done = null;
  }

  delivered(isSpectator, key) {
    if (!stats.recording) return;
    stats.deliveries += 1;
    const t = this.sentAt.get(key);
    if (t === undefined) return;
    const now = performance.now();
    (isSpectator ? stats.spectatorDelivery : stats.playerDelivery).push(now - t);
    if (isSpectator) {
      const n = (this.seenBy.get(key) || 0) + 1;
      this.seenBy.set(key, n);
      if (n === this.nSpectators) { stats.lastSpectator.push(now - t); this.seenBy.delete(key); }
    }
  }

  accepted(key) {
    const t = this.sentAt.get(key);
    if (stats.recording && t !== undefined) {
      stats.accepted += 1;
      stats.actionLatency.push(performance.now() - t);
    }
  }

  prompted(key, act) {
    if (this.prompt === null || this.prompt.key !== key) this.prompt = { key, act };
    if (this.driving) this.schedule();
  }

  /** Act on the latest prompt again (after an error refused the action sent for it). */
  retry() {
    this.pendingKey = -1;
    if (this.driving) this.schedule();
  }

  ended() {
    if (this.over) return;
    this.over = true;
    if (this.done) this.done();
  }

  error(what) { error(what); }

  schedule() {
    const p = this.prompt;
    if (p === null || this.over || this.pendingKey >= p.key) return;
    this.pendingKey = p.key;
    const act = () => {
      if (!this.driving) return;
      this.sentAt.set(p.key, performance.now());
      p.act();
    };
    if (this.rate > 0) setTimeout(act, (1000 / this.rate) * (0.5 + Math.random()));
    else setImmediate(act);
  }

  async setup(gate) {
    this.id = await this.system.createTable(this);
    for (let seat = 0; seat < game.SEATS; seat++) {
      const conn = await this.system.connect(this, seat);
      if (this.id === null) this.id = conn.id;
      this.conns.push(conn);
    }
    await Promise.all(Array.from({ length: this.nSpectators }, () => gate.run(async () => {
      this.conns.push(await this.system.connect(this, null));
    })));
    if (this.system.start) await this.system.start(this);
    stats.tablesStarted += 1;
  }

  /** Play until the game is over or `stopAt` (ms); resolves then. */
  async drive(stopAt) {
    this.driving = true;
    const ended = new Promise((r) => { this.done = r; });
    const timer = new Promise((r) => setTimeout(r, Math.max(0, stopAt - performance.now())));
    if (!this.over) this.schedule();
    await Promise.race([ended, timer]);
    this.driving = false;
    if (this.over) stats.tablesEnded += 1;
    if (this.system.settle) await this.system.settle(this);
    for (const c of this.conns) c.close();
  }
}

// ------------------------------------------------------------------ runs

async function play(system) {
  const tables = num('tables');
  const gate = new Gate(num('concurrency'));
  const spawnGate = new Gate(num('concurrency'));
  let stopAt = Infinity;
  let release;
  const started = new Promise((r) => { release = r; });
  const running = new Set();
  const lifecycle = async (first) => {
    const t = new Table(system, num('spectators'), num('rate'));
    try {
      await spawnGate.run(() => t.setup(gate));
    } catch (e) {
      error(`setup:${e.message}`);
      stats.setupFailed += 1;
      for (const c of t.conns) c.close();
      return;
    }
    if (first) await started;
    await t.drive(stopAt);
    if (t.over && performance.now() < stopAt - 1000) spawn(false);
  };
  const spawn = (first) => {
    const p = lifecycle(first);
    running.add(p);
    p.finally(() => running.delete(p));
  };
  const t0 = performance.now();
  for (let i = 0; i < tables; i++) spawn(true);
  while (stats.tablesStarted + stats.setupFailed < tables) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const setupS = (performance.now() - t0) / 1000;
  stopAt = performance.now() + 1000 * (num('warmup') + num('duration'));
  release();
  await new Promise((r) => setTimeout(r, 1000 * num('warmup')));
  const before = procSample();
  const cpu0 = process.cpuUsage();
  stats.recording = true;
  await new Promise((r) => setTimeout(r, Math.max(0, stopAt - performance.now())));
  stats.recording = false;
  const after = procSample();
  const myCpu = process.cpuUsage(cpu0);
  // the tables settle (cardtable: up to 5 s for the last acks and frames) and close
  await Promise.race([Promise.all([...running]), new Promise((r) => setTimeout(r, 10000))]);
  const window = (after.t - before.t) / 1000;
  const cpu = after.cpu - before.cpu;
  const wrote = after.wchar - before.wchar;
  return {
    setup_s: Number(setupS.toFixed(2)),
    window_s: Number(window.toFixed(3)),
    tables_started: stats.tablesStarted,
    tables_ended: stats.tablesEnded,
    accepted_actions: stats.accepted,
    actions_per_s: Number((stats.accepted / window).toFixed(1)),
    action_latency_ms: summarize(stats.actionLatency),
    delivery_latency_ms: {
      players: summarize(stats.playerDelivery),
      spectators: summarize(stats.spectatorDelivery),
      last_spectator: summarize(stats.lastSpectator),
    },
    deliveries: stats.deliveries,
    skipped: stats.skipped,
    gaps: stats.gaps,
    duplicates: stats.duplicates,
    missing: stats.missing,
    totals: stats.totals,
    errors: errorCount(),
    errors_by_code: stats.errors,
    server: {
      pid: Number(PID),
      cpu_s: Number(cpu.toFixed(3)),
      cpu_us_per_action: stats.accepted ? Number((1e6 * cpu / stats.accepted).toFixed(1)) : null,
      cpu_us_per_delivery: stats.deliveries ? Number((1e6 * cpu / stats.deliveries).toFixed(2)) : null,
      core_share: Number((cpu / window).toFixed(3)),
      bytes_written: wrote,
      bytes_per_delivery: stats.deliveries ? Number((wrote / stats.deliveries).toFixed(1)) : null,
      rss_mib_end: Number((after.rss / 2 ** 20).toFixed(1)),
    },
    generator: { core_share: Number(((myCpu.user + myCpu.system) / 1e6 / window).toFixed(3)) },
  };
}

async function idle(system) {
  const gate = new Gate(num('concurrency'));
  const t = new Table(system, 0, 0);
  await t.setup(gate);
  const open = async (n) => {
    const conns = [];
    let failed = 0;
    await Promise.all(Array.from({ length: n }, () => gate.run(async () => {
      try { conns.push(await system.connect(t, null)); } catch (e) {
        failed += 1; error(`open:${e.message}`);
      }
    })));
    return { conns, failed };
  };
  const settle = () => new Promise((r) => setTimeout(r, 1000 * num('settle')));
  const warm = await open(num('idle-warmup'));
  await settle();
  const before = procSample();
  const k = await open(num('connections'));
  await settle();
  const after = procSample();
  for (const c of [...warm.conns, ...k.conns, ...t.conns]) c.close();
  const opened = k.conns.length;
  return {
    opened,
    failed: k.failed,
    errors: errorCount(),
    errors_by_code: stats.errors,
    server: {
      pid: Number(PID),
      rss_mib_before: Number((before.rss / 2 ** 20).toFixed(1)),
      rss_mib_after: Number((after.rss / 2 ** 20).toFixed(1)),
      rss_kib_per_connection: opened ? Number(((after.rss - before.rss) / 1024 / opened).toFixed(2)) : null,
    },
  };
}

async function main() {
  const system = opt.system === 'bgio' ? bgioSystem(opt.url)
    : opt.system === 'colyseus' ? colyseusSystem(opt.url)
      : opt.system === 'cardtable'
        ? cardtableSystem(opt.url, { game: opt.game, seed: num('seed'), stats }) : null;
  if (!system) throw new Error('--system bgio|colyseus|cardtable');
  const result = opt.mode === 'idle' ? await idle(system) : await play(system);
  process.stdout.write(JSON.stringify({ system: opt.system, mode: opt.mode, config: opt, ...result }) + '\n');
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(2); });
