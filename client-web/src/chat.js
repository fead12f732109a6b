// The table chat (docs/protocol.md section 2, "Chat"): the players' and the spectators'
// channels as the server lets this viewer read them, quick messages shown in the reader's
// language, and muting a participant in this browser's view only. Every message is text:
// it is put into the page with text nodes, never parsed as markup.
import { h, mount, randomHex } from "./dom.js";
import { t } from "./i18n.js";
import { KEY, playerName } from "./store.js";
import { reportButton } from "./report.js";

export const QUICK = ["hello", "good_luck", "your_turn", "thanks", "well_played", "gg"];
export const MAX_TEXT = 200;
const KEEP = 200; // messages kept per channel in the page

function stored(key, fallback) {
  try { return JSON.parse(localStorage.getItem(KEY + key)) ?? fallback; } catch { return fallback; }
}
function store(key, value) {
  try { localStorage.setItem(KEY + key, JSON.stringify(value)); } catch { /* private mode */ }
}

/** This browser's private spectator key (its public chat id is derived from it). */
export function viewerKey() {
  let k = stored("viewer", null);
  if (!k) { k = randomHex(24); store("viewer", k); }
  return k;
}

/** What `hello` carries for the chat: the viewer key and the saved name. */
export const chatHello = () => ({ viewer: viewerKey(), name: playerName() || null });

/**
 * The chat panel of table `tableId` on `conn` (a TableConnection). `seatNames()` gives the
 * names to show for seats; `quiet()` is true where the note on who reads the chat tells
 * nothing (a tutorial table: the learner and a bot). Returns `{el, render}`; it listens to
 * `conn` itself.
 */
export function chatPanel(tableId, conn, seatNames, { quiet = () => false } = {}) {
  const st = {
    channels: new Map(), // channel -> [message] (oldest first)
    readable: ["players"],
    you: null,
    tab: null,
    muted: new Set(stored(`mute.${tableId}`, [])),
    error: "",
  };
  const el = h("section", { class: "panel chat-panel", testid: "chat", "aria-label": t("chat") });
  const input = h("input", { type: "text", maxlength: MAX_TEXT, testid: "chat-input", autocomplete: "off", "aria-label": t("chat_say") });
  const own = () => (conn.seat === null || conn.seat === undefined ? "spectators" : "players");
  const list = (ch) => st.channels.get(ch) || [];

  function add(ch, msg) {
    const msgs = list(ch);
    if (msgs.some((m) => m.id === msg.id)) return false;
    msgs.push(msg);
    if (msgs.length > KEEP) msgs.splice(0, msgs.length - KEEP);
    st.channels.set(ch, msgs);
    return true;
  }

  conn.addEventListener("chat_history", (e) => {
    const { channels, you } = e.detail;
    st.you = you;
    // Live messages that came before the history and are not in it are newer: keep them.
    const next = new Map();
    for (const [ch, msgs] of Object.entries(channels)) {
      const ids = new Set(msgs.map((m) => m.id));
      next.set(ch, [...msgs, ...list(ch).filter((m) => !ids.has(m.id))]);
    }
    st.channels = next;
    st.readable = Object.keys(channels);
    if (!st.readable.includes(st.tab)) st.tab = own();
    render();
  });
  conn.addEventListener("chat", (e) => {
    const msg = e.detail;
    if (!st.readable.includes(msg.channel)) st.readable = [...st.readable, msg.channel];
    if (add(msg.channel, msg)) render(msg.channel === (st.tab || own()));
  });
  // A moderator removed a message: its text leaves the page at once, as a reload shows it.
  conn.addEventListener("chat_removed", (e) => {
    const { id, channel } = e.detail;
    const msgs = list(channel);
    const i = msgs.findIndex((m) => m.id === id);
    if (i < 0) return;
    const { quick: _quick, ...kept } = msgs[i];
    msgs[i] = { ...kept, text: e.detail.text, removed: true };
    render(false);
  });
  conn.addEventListener("error", (e) => {
    const m = e.detail;
    if (!m.code || !m.code.startsWith("chat_")) return;
    st.error = m.code === "chat_rate_limited" ? t("chat_rate_limited") : m.code === "chat_too_long" ? t("chat_too_long", { n: MAX_TEXT })
      : m.code === "chat_muted" ? t("chat_muted_text") : m.message;
    render();
  });

  const send = (msg) => {
    st.error = "";
    if (!conn.send({ t: "chat", ...msg })) st.error = t("conn_connecting");
    render();
  };
  function submit(e) {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (text.length > MAX_TEXT) { st.error = t("chat_too_long", { n: MAX_TEXT }); render(); return; }
    send({ text });
    input.value = "";
  }

  function senderName(from) {
    if (from.role === "player") return (seatNames()[from.seat]) || from.name || t("seat_n", { n: from.seat + 1 });
    // The whole public id (8 hex digits, server/play/chat.py): a part of it could be two
    // spectators' alike.
    const tag = `#${from.id}`;
    return from.name ? `${from.name} ${tag}` : `${t("spectator")} ${tag}`;
  }
  function setMuted(key, on) {
    if (on) st.muted.add(key); else st.muted.delete(key);
    store(`mute.${tableId}`, [...st.muted]);
    render();
  }

  function message(m) {
    const key = m.from.key;
    const mine = key === st.you;
    const text = m.removed ? t("chat_removed") : m.quick ? t(`quick_${m.quick}`) : m.text;
    return h("li", { class: `chat-msg${mine ? " mine" : ""}${m.quick ? " quick" : ""}${m.removed ? " removed" : ""}`, testid: "chat-msg", dataset: { id: m.id, from: key } },
      h("b", { class: "chat-from" }, senderName(m.from)), " ",
      h("span", { class: "chat-text", testid: "chat-text" }, text),
      mine ? null : h("button", { type: "button", class: "ghost tiny", testid: `mute-${key}`, title: t("chat_mute"), "aria-label": `${t("chat_mute")}: ${senderName(m.from)}`, onclick: () => setMuted(key, true) }, t("chat_mute")),
      mine ? null : reportOf(m, text));
  }
  /** The report button of a player's message whose seat an account holds (report.js). */
  function reportOf(m, text) {
    if (m.from.role !== "player" || m.removed) return null;
    const seat = conn.table && conn.table.seats && conn.table.seats[m.from.seat];
    if (!seat || !seat.account) return null;
    return reportButton(seat.name, { table: tableId, message: m.id }, `report-msg-${m.id}`, text);
  }

  const log = h("ol", { class: "chat-log", testid: "chat-log", "aria-live": "polite" });
  const form = h("form", { class: "chat-form", onsubmit: submit }, input, h("button", { type: "submit", testid: "chat-send" }, t("chat_send")));

  // A fixed skeleton: re-rendering must not take the focus from the input.
  const head = h("h2", {});
  const tabs = h("div", { class: "chat-tabs", role: "tablist" });
  const note = h("p", { class: "hint", testid: "chat-note" });
  const quick = h("div", { class: "quick", role: "group" });
  const readonly = h("p", { class: "hint", testid: "chat-readonly" });
  const err = h("p", { class: "chat-error", role: "alert", testid: "chat-error" });
  const mutedEl = h("p", { class: "chat-muted", testid: "chat-muted" });
  mount(el, head, tabs, note, log, quick, form, readonly, err, mutedEl);

  function render(stick = true) {
    const tab = st.readable.includes(st.tab) ? st.tab : own();
    st.tab = tab;
    const both = st.readable.length > 1;
    const writable = tab === own();
    const names = new Map();
    const shown = list(tab).filter((m) => {
      if (st.muted.has(m.from.key)) { names.set(m.from.key, senderName(m.from)); return false; }
      return true;
    });
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    mount(log, shown.map(message));
    if (stick && atEnd) log.scrollTop = log.scrollHeight;
    el.setAttribute("aria-label", t("chat"));
    head.textContent = t("chat");
    tabs.hidden = !both;
    mount(tabs, both ? st.readable.map((ch) => h("button", {
      type: "button", role: "tab", class: `ghost small${ch === tab ? " on" : ""}`, testid: `chat-tab-${ch}`,
      "aria-selected": ch === tab ? "true" : "false", onclick: () => { st.tab = ch; render(); },
    }, t(`chat_${ch}`))) : null);
    note.hidden = both || quiet();
    note.textContent = own() === "players" ? t("chat_players_only") : t("chat_spectators");
    quick.hidden = !writable;
    quick.setAttribute("aria-label", t("chat_quick"));
    mount(quick, QUICK.map((q) => h("button", {
      type: "button", class: "ghost small", testid: `quick-${q}`, onclick: () => send({ quick: q }),
    }, t(`quick_${q}`))));
    form.hidden = !writable;
    input.setAttribute("aria-label", t("chat_say"));
    input.placeholder = own() === "players" ? t("chat_placeholder_players") : t("chat_placeholder_spectators");
    form.querySelector("button").textContent = t("chat_send");
    readonly.hidden = writable;
    readonly.textContent = t("chat_readonly");
    err.hidden = !st.error;
    err.textContent = st.error;
    const muted = [...st.muted];
    mutedEl.hidden = !muted.length;
    mount(mutedEl, muted.length ? [`${t("chat_muted")}: `, muted.map((k) => h("button", {
      type: "button", class: "ghost tiny", testid: `unmute-${k}`, onclick: () => setMuted(k, false),
    }, `${names.get(k) || k} ✕`))] : null);
  }

  // After the end a player may read the spectators' channel too: fetch it once.
  let askedAtEnd = false;
  conn.addEventListener("view", () => {
    if (askedAtEnd || !conn.view || conn.view.phase !== "ended" || own() !== "players") return;
    if (st.readable.includes("spectators")) return;
    askedAtEnd = conn.send({ t: "chat_history" });
  });

  render();
  return { el, render };
}
