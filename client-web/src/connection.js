// One live table over the websocket of docs/protocol.md section 2: hello/welcome, deltas
// folded into the view as RFC 6902 patches (patch.js), prompts, acks, reconnect with backoff and resume
// from the last seq, re-sync on a gap.
import { follows, patched } from "./patch.js";
import { decode, encode } from "@msgpack/msgpack";

const MAX_DELAY_MS = 10000;

/**
 * Emits (as `CustomEvent`s with `detail`): `status` {state, retryIn}, `welcome`, `delta`
 * {delta, events, view} (one `deltas` frame: its events, and the view after them), `view` (after every change of the view), `prompt`, `table`, `ack`,
 * `clock`, `presence` (the messages; also kept in `this.clock`/`this.presence`),
 * `error` (server error message), `seat_lost`, `chat`, `chat_history` and `chat_removed` (the messages).
 */
export class TableConnection extends EventTarget {
  constructor(tableId, token = null, key = null) {
    super();
    this.tableId = tableId;
    this.token = token;
    this.key = key; // a private table's invite secret
    this.view = null; // folded view, or null before the game starts
    this.seq = 0;
    this.table = null;
    this.seat = null;
    this.prompt = null;
    this.pending = null; // id of the action waiting for its ack
    this.pendingMsg = null;
    this.ws = null;
    this.attempt = 0;
    this.syncing = false;
    this.stopped = false;
    this.state = "connecting";
    this.timer = null;
    this.counter = 0;
    this.syncs = 0; // re-syncs asked for after a gap (shown to tests and debugging)
    this.ackSeq = 0; // the table's seq after our last acknowledged action
    this.helloExtra = {}; // e.g. a spectator's chat key and name (chat.js)
    this._online = () => { if (this.state === "closed") this.reconnectNow(); };
    window.addEventListener("online", this._online);
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  setStatus(state, retryIn = null) {
    this.state = state;
    this.emit("status", { state, retryIn });
  }

  start() {
    this.stopped = false;
    this.connect();
    return this;
  }

  /** Close for good (leaving the page or switching seat). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this._online);
    if (this.ws) this.ws.close(1000);
  }

  /** Reconnect at once, e.g. after taking a seat (new token). */
  reconnectNow(token = this.token) {
    this.token = token;
    clearTimeout(this.timer);
    this.attempt = 0;
    if (this.ws && this.ws.readyState <= 1) {
      this.ws.onclose = null;
      this.ws.close(1000);
    }
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    this.setStatus("connecting");
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    let welcomed = false;
    ws.onopen = () => {
      this.syncing = false;
      const hello = { t: "hello", token: this.token, last_seq: this.view ? this.seq : null, ...this.helloExtra };
      if (this.key) hello.key = this.key;
      this.send(hello);
    };
    ws.onmessage = (m) => {
      let msg;
      try {
        msg = typeof m.data === "string" ? JSON.parse(m.data) : decode(new Uint8Array(m.data));
      } catch {
        return;
      }
      if (msg.t === "welcome") welcomed = true;
      this.handle(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.pending = null;
      if (this.stopped) return;
      if (e.code === 4004) { this.setStatus("gone"); return; }
      // The seat's account is suspended (docs/protocol.md, "Moderation"): no reconnecting until the
      // page is opened again.
      if (e.code === 4403) { this.setStatus("suspended"); return; }
      if (e.code === 1008 && this.token && !welcomed) {
        // The token was refused before any welcome: it holds no seat here any more, so
        // keep watching as a spectator. (A 1008 later, e.g. a socket too slow to keep up,
        // just reconnects with the same token.)
        this.token = null;
        this.emit("seat_lost", {});
      }
      const delay = Math.min(MAX_DELAY_MS, 500 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
      this.attempt += 1;
      this.setStatus("closed", Math.ceil(delay / 1000));
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encode(msg));
    return true;
  }

  /** Send a game action from the prompt; returns its id, or null when not connected. */
  act(action) {
    const id = `${Date.now().toString(36)}-${(this.counter += 1)}-${Math.random().toString(36).slice(2, 8)}`;
    const { seat, ...rest } = action; // the token's seat is used
    // Decided only at the prompt's seq: an outdated click gets `stale`, never a surprise.
    const msg = { t: "action", id, action: rest };
    if (this.prompt) msg.seq = this.prompt.seq;
    if (!this.send(msg)) return null;
    this.pending = id;
    this.pendingMsg = msg;
    return id;
  }

  /** Ask for a fresh full view (after a gap). */
  resync() {
    this.syncs += 1;
    this.syncing = true;
    this.send({ t: "sync" });
  }

  handle(msg) {
    switch (msg.t) {
      case "welcome": {
        this.attempt = 0;
        this.syncing = false;
        this.table = msg.table;
        if (this.token && msg.seat === null) { this.token = null; this.emit("seat_lost", {}); }
        this.seat = msg.seat;
        if (msg.view) {
          this.view = msg.view;
          this.seq = msg.seq;
        } else if (!this.view) {
          this.seq = 0;
        } else if (msg.seq < this.seq) {
          this.resync(); // the server knows less than we do: start over from its view
        }
        if (this.prompt && this.prompt.seq !== msg.seq) this.prompt = null;
        this.setStatus("open");
        this.emit("welcome", msg);
        this.emit("view", { view: this.view, full: true });
        break;
      }
      case "deltas": {
        // One frame per append (an action's events): the events with their seqs and
        // chain heads, and one patch from the view at `prev` to the view at `seq`.
        if (this.syncing) return;
        if (msg.seq <= this.seq) return; // already applied (e.g. two sockets' overlap)
        if (!follows(msg, this.seq)) { this.resync(); return; }
        this.view = patched(this.view, msg.patch);
        this.seq = msg.seq;
        if (this.prompt && this.prompt.seq < this.seq) this.prompt = null;
        this.emit("delta", { delta: msg, events: msg.events, view: this.view });
        this.emit("view", { view: this.view, full: false });
        break;
      }
      case "prompt":
        this.prompt = msg;
        this.pending = null;
        this.emit("prompt", msg);
        break;
      case "table":
        this.table = msg.table;
        this.emit("table", msg.table);
        break;
      case "clock":
      case "presence":
        // The seats' clocks and presence (docs/protocol.md); each carries the server's now.
        this[msg.t] = msg.t === "clock" ? msg.clock : msg;
        this.emit(msg.t, msg);
        break;
      case "ack":
        if (msg.id === this.pending) this.pending = null;
        this.ackSeq = Math.max(this.ackSeq, msg.seq);
        this.emit("ack", msg);
        break;
      case "error":
        if (msg.code === "unavailable" && msg.id && msg.id === this.pending) {
          // Redis did not confirm: nothing was stored; the same id is safe to resend.
          const again = this.pendingMsg;
          setTimeout(() => { if (this.pending === again.id) this.send(again); }, 500);
          return;
        }
        if (!msg.id || msg.id === this.pending) this.pending = null;
        this.emit("error", msg);
        break;
      case "chat":
      case "chat_history":
      case "chat_removed":
        this.emit(msg.t, msg);
        break;
      default:
        break;
    }
  }
}
