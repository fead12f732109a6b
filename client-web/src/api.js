// The lobby HTTP API of docs/protocol.md section 1. Every call returns parsed JSON or
// throws an ApiError carrying the server's error code and message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
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

export const api = {
  listTables: (status) => call("GET", status ? `/api/tables?status=${status}` : "/api/tables"),
  createTable: (seats, options, name) =>
    call("POST", "/api/tables", { body: { game: "einauge", seats, options, ...(name ? { name } : {}) } }),
  getTable: (id) => call("GET", T(id)),
  join: (id, name, seat) => call("POST", `${T(id)}/join`, { body: seat === undefined ? { name } : { name, seat } }),
  leave: (id, token) => call("POST", `${T(id)}/leave`, { token, body: {} }),
  removeBot: (id, seat) => call("DELETE", `${T(id)}/seats/${seat}/bot`),
  seed: (id, token, playerSeed) => call("POST", `${T(id)}/seed`, { token, body: { player_seed: playerSeed } }),
  start: (id, token) => call("POST", `${T(id)}/start`, { token, body: {} }),
  view: (id) => call("GET", `${T(id)}/view`),
  events: (id, from = 0) => call("GET", `${T(id)}/events?from=${from}`),
  deltas: (id, from = 0) => call("GET", `${T(id)}/deltas?from=${from}`),
  record: (id) => call("GET", `${T(id)}/record`),
  replayRecord: (record) => call("POST", "/api/replay", { body: record }),
  cards: () => call("GET", "/api/games/einauge/cards"),
  /** Bot kinds the server offers, as `[{kind, levels?}]`; a fixed list when it has none. */
  async botKinds() {
    try {
      const d = await call("GET", "/api/bots");
      const kinds = Array.isArray(d) ? d : d && (d.bots || d.kinds);
      if (Array.isArray(kinds) && kinds.length) return kinds.map((k) => (typeof k === "string" ? { kind: k } : k));
    } catch { /* fall through */ }
    return [{ kind: "random" }]; // every server has this one
  },
  /** An empty seat gets a bot before the start; with the owner token, a person's seat is
   *  handed to a bot during the game. */
  addBot: (id, seat, kind, level, ownerToken) =>
    call("POST", `${T(id)}/seats/${seat}/bot`, { token: ownerToken, body: level ? { kind, level } : { kind } }),
};
