// The lobby HTTP API of docs/protocol.md section 1. Every call returns parsed JSON or
// throws an ApiError carrying the server's error code and message. Calls on a private
// table carry its invite secret (X-Table-Key) when this browser knows it.
import { keyFor } from "./store.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// The session's CSRF token (account.js sets it after login or /api/me): every change sent
// with the session cookie carries it (docs/protocol.md, "Sessions").
let csrf = null;
export const setCsrf = (token) => { csrf = token; };

export async function call(method, path, { body, token, table } = {}) {
  const headers = {};
  if (csrf && method !== "GET") headers["X-CSRF-Token"] = csrf;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const key = table ? keyFor(table) : null;
  if (key) headers["X-Table-Key"] = key;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, "network", String(e.message || e));
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || res.statusText);
  }
  return data;
}

const T = (id) => `/api/tables/${encodeURIComponent(id)}`;
/** A call on table `id` (with its invite secret, if known). */
const onTable = (id, method, tail, opts = {}) => call(method, `${T(id)}${tail}`, { ...opts, table: id });

export const api = {
  listTables: (status) => call("GET", status ? `/api/tables?status=${status}` : "/api/tables"),
  createTable: (seats, options, name, isPrivate = false, timeControl = null, rated = false, game = undefined) =>
    call("POST", "/api/tables", { body: { ...(game ? { game } : {}), seats, options, ...(name ? { name } : {}), ...(isPrivate ? { private: true } : {}), ...(timeControl ? { time_control: timeControl } : {}), ...(rated ? { rated: true } : {}) } }),
  ratings: (id) => onTable(id, "GET", "/ratings"),
  getTable: (id) => onTable(id, "GET", ""),
  /** Who plays a seat during the game (server/http/takeover.py), with the caller's seat token. */
  claim: (id, seat, token) => onTable(id, "POST", `/seats/${seat}/claim`, { token, body: {} }),
  resign: (id, token) => onTable(id, "POST", "/resign", { token, body: {} }),
  takeBack: (id, token) => onTable(id, "POST", "/return", { token, body: {} }),
  /** Take a seat; the creator sends its owner token and then sits with it. */
  join: (id, name, seat, token) => onTable(id, "POST", "/join", { token, body: seat === undefined ? { name } : { name, seat } }),
  leave: (id, token) => onTable(id, "POST", "/leave", { token, body: {} }),
  removeBot: (id, seat, token) => onTable(id, "DELETE", `/seats/${seat}/bot`, { token }),
  kick: (id, seat, token) => onTable(id, "POST", `/seats/${seat}/kick`, { token, body: {} }),
  setOptions: (id, token, options) => onTable(id, "PATCH", "/options", { token, body: options }),
  seed: (id, token, playerSeed) => onTable(id, "POST", "/seed", { token, body: { player_seed: playerSeed } }),
  /** Play on from a position of an ended game against bots (docs/protocol.md, "Branch from
   *  here"): `where` is `{seq}` or `{index}`; answers `{table, seat, token, invite}`. */
  branch: (id, where, seat, name, playerSeed) => onTable(id, "POST", "/branch", { body: { ...where, seat, ...(name ? { name } : {}), player_seed: playerSeed } }),
  rematch: (id, token, playerSeed) => onTable(id, "POST", "/rematch", { token, body: { player_seed: playerSeed } }),
  start: (id, token) => onTable(id, "POST", "/start", { token, body: {} }),
  /** History as the bearer's seat sees it (`token`: a seat token; none: a spectator's). */
  view: (id, token) => onTable(id, "GET", "/view", { token }),
  events: (id, from = 0, token) => onTable(id, "GET", `/events?from=${from}`, { token }),
  deltas: (id, from = 0, token) => onTable(id, "GET", `/deltas?from=${from}`, { token }),
  record: (id) => onTable(id, "GET", "/record"),
  /** A finished game's post-game analysis (docs/protocol.md, "Post-game analysis"). */
  analysis: (id) => onTable(id, "GET", "/analysis"),
  replayRecord: (record) => call("POST", "/api/replay", { body: record }),
  /** Game `game`'s card catalogue (its shape is the game's own). */
  cards: (game) => call("GET", `/api/games/${encodeURIComponent(game)}/cards`),
  /** Every game the server offers: name, title, seat range, options schema, bots. */
  games: () => call("GET", "/api/games"),
  /** Bot kinds the server offers, as `[{kind, levels?}]`; a fixed list when it has none. */
  async botKinds() {
    try {
      const d = await call("GET", "/api/bots");
      const kinds = Array.isArray(d) ? d : d && (d.bots || d.kinds);
      if (Array.isArray(kinds) && kinds.length) return kinds.map((k) => (typeof k === "string" ? { kind: k } : k));
    } catch { /* fall through */ }
    return [{ kind: "random" }]; // every server has this one
  },
  /** The host (its token) puts a bot on an empty seat before the start, or hands a
   *  person's seat to a bot during the game. */
  addBot: (id, seat, kind, level, hostToken) =>
    onTable(id, "POST", `/seats/${seat}/bot`, { token: hostToken, body: level ? { kind, level } : { kind } }),
};
