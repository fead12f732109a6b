// Load generator for the peers of issue 18 (boardgame.io, Colyseus), driving them the way
// bench/load/ drives Einauge: every table is created through the system's own lobby or
// matchmaker, 4 players and --spectators spectators connect with the system's own client
// library, the seat to move picks a random face-up card (at once with --rate 0, else
// --rate moves/s per table, each interval jittered by ±50%), and a finished game is
// replaced by a new table. The first --warmup seconds are not measured.
//
//   node load.cjs --system bgio|colyseus --url http://127.0.0.1:PORT --server-pid PID
//       [--mode play|idle] [--tables 200] [--spectators 0] [--rate 0] [--duration 10]
//       [--warmup 2] [--connections 1000] [--idle-warmup 100] [--settle 2]
//
// Prints one JSON object. Server CPU (utime + stime of /proc/PID/stat), bytes written
// (wchar of /proc/PID/io: every byte the server wrote to its sockets) and RSS
// (/proc/PID/status) are read at the start and the end of the measured window.
'use strict';

const fs = require('node:fs');
const { parseArgs } = require('node:util');

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

// ------------------------------------------------------------------ the two systems

// Each system gives: createTable() -> id, and connect(id, seat | null, onState) -> conn
// with conn.pick(slot) and conn.close(); onState(moves, over) is called on every state.

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
    async connect(id, seat, onState) {
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
    async connect(id, seat, onState) {
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
  tablesEnded: 0,
  playerDelivery: [],
  spectatorDelivery: [],
  lastSpectator: [],
  actionLatency: [],
};
const error = (what) => { stats.errors[what] = (stats.errors[what] || 0) + 1; };

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

class Table {
  constructor(system, spectators, rate) {
    this.system = system;
    this.nSpectators = spectators;
    this.rate = rate;
    this.id = null;
    this.conns = [];
    this.sentAt = new Map(); // move number -> send time (ms)
    this.seenBy = new Map(); // move number -> spectators that have it
    this.moves = 0; // moves the mover's socket saw
    this.pendingMove = -1;
    this.driving = false;
    this.over = false;
    this.done = null;
  }

  onState(seat, isSpectator, last, moves, over) {
    const now = performance.now();
    for (let k = last.moves + 1; k <= moves; k++) {
      if (stats.recording) {
        stats.deliveries += 1;
        const t = this.sentAt.get(k);
        if (t !== undefined) {
          (isSpectator ? stats.spectatorDelivery : stats.playerDelivery).push(now - t);
          if (isSpectator) {
            const n = (this.seenBy.get(k) || 0) + 1;
            this.seenBy.set(k, n);
            if (n === this.nSpectators) { stats.lastSpectator.push(now - t); this.seenBy.delete(k); }
          }
        }
      }
      if (k < moves) stats.skipped += 1;
    }
    if (moves > last.moves) last.moves = moves;
    if (seat === null) return;
    if (seat === game.seatToMove(moves - 1) && moves > this.moves) {
      // the mover's own socket shows its move applied: accepted
      for (let k = this.moves + 1; k <= moves; k++) {
        const t = this.sentAt.get(k);
        if (stats.recording && t !== undefined) { stats.accepted += 1; stats.actionLatency.push(now - t); }
      }
      this.moves = moves;
    }
    if (over && !this.over) { this.over = true; if (this.done) this.done(); return; }
    if (this.driving && !over && seat === game.seatToMove(moves)) this.schedule(seat, moves);
  }

  schedule(seat, moves) {
    if (this.pendingMove >= moves) return;
    this.pendingMove = moves;
    const act = () => {
      if (!this.driving) return;
      this.sentAt.set(moves + 1, performance.now());
      this.conns[seat].pick(Math.floor(Math.random() * game.FACE_UP));
    };
    if (this.rate > 0) setTimeout(act, (1000 / this.rate) * (0.5 + Math.random()));
    else setImmediate(act);
  }

  async setup(gate) {
    this.id = await this.system.createTable();
    for (let seat = 0; seat < game.SEATS; seat++) {
      const last = { moves: 0 };
      const conn = await this.system.connect(this.id, seat,
        (m, o) => this.onState(seat, false, last, m, o));
      if (this.id === null) this.id = conn.id;
      this.conns.push(conn);
    }
    await Promise.all(Array.from({ length: this.nSpectators }, () => gate.run(async () => {
      const last = { moves: 0 };
      this.conns.push(await this.system.connect(this.id, null,
        (m, o) => this.onState(null, true, last, m, o)));
    })));
    stats.tablesStarted += 1;
  }

  /** Play until the game is over or `stopAt` (ms); resolves then. */
  async drive(stopAt) {
    this.driving = true;
    const ended = new Promise((r) => { this.done = r; });
    const timer = new Promise((r) => setTimeout(r, Math.max(0, stopAt - performance.now())));
    this.schedule(game.seatToMove(this.moves), this.moves);
    await Promise.race([ended, timer]);
    this.driving = false;
    if (this.over) stats.tablesEnded += 1;
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
  while (stats.tablesStarted + Object.keys(stats.errors).length < tables
         && stats.tablesStarted < tables) {
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
  await Promise.race([Promise.all([...running]), new Promise((r) => setTimeout(r, 5000))]);
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
    errors: Object.values(stats.errors).reduce((a, b) => a + b, 0),
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
      try { conns.push(await system.connect(t.id, null, () => {})); } catch (e) {
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
    errors: k.failed + warm.failed,
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
    : opt.system === 'colyseus' ? colyseusSystem(opt.url) : null;
  if (!system) throw new Error('--system bgio|colyseus');
  const result = opt.mode === 'idle' ? await idle(system) : await play(system);
  process.stdout.write(JSON.stringify({ system: opt.system, mode: opt.mode, config: opt, ...result }) + '\n');
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(2); });
