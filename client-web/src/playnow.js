// "Play now" (quick pairing, docs/protocol.md §7): a panel of the lobby with one button per
// game and the number of people waiting for it. A click makes a seek (POST /api/seeks);
// the page then waits on the seek's socket (/ws/seeks/<id>) and, told it is paired, keeps
// the seat token like any seat of this browser and opens the table.
import { currentAccount } from "./account.js";
import { call } from "./api.js";
import { h, mount } from "./dom.js";
import { errorText } from "./errors.js";
import { LANGS, t } from "./i18n.js";
import { playerName, saveSeat } from "./store.js";

Object.assign(LANGS.en, {
  play_now: "Play now",
  play_now_title: "Play now against people",
  play_now_hint: "You are seated at a new table with whoever else waits for the same game.",
  play_now_waiting: (p) => `${p.n} waiting`,
  play_now_bots: "Fill empty seats with bots after",
  play_now_never: "never",
  play_now_rated: "Rated",
  play_now_looking: (p) => `Looking for players for ${p.game}…`,
  play_now_cancel: "Cancel",
  play_now_ended: (p) => `The search ended (${p.status}).`,
});
Object.assign(LANGS.de, {
  play_now: "Jetzt spielen",
  play_now_title: "Jetzt gegen Menschen spielen",
  play_now_hint: "Du kommst an einen neuen Tisch mit allen, die auf dasselbe Spiel warten.",
  play_now_waiting: (p) => (p.n === 1 ? "1 wartet" : `${p.n} warten`),
  play_now_bots: "Leere Plätze mit Bots füllen nach",
  play_now_never: "nie",
  play_now_rated: "Gewertet",
  play_now_looking: (p) => `Suche Mitspieler für ${p.game}…`,
  play_now_cancel: "Abbrechen",
  play_now_ended: (p) => `Die Suche ist beendet (${p.status}).`,
});

const ERRORS = {
  en: {
    seek_open: () => "You already wait for a game of this kind.",
    seek_paired: () => "You were just seated at a table.",
    seek_ended: () => "This search has already ended.",
    no_seek: () => "This search no longer exists.",
    account_needed: () => "Log in to play rated games.",
  },
  de: {
    seek_open: () => "Du wartest schon auf ein Spiel dieser Art.",
    seek_paired: () => "Du hast gerade einen Platz an einem Tisch bekommen.",
    seek_ended: () => "Diese Suche ist schon beendet.",
    no_seek: () => "Diese Suche gibt es nicht mehr.",
    account_needed: () => "Melde dich an, um gewertet zu spielen.",
  },
};

const BOT_WAITS = [null, 10, 30, 60, 120];
const RETRY_MS = 1000;

/** The "Play now" panel: `games()` gives the offered games (GET /api/games), `go(path)`
 *  navigates. Returns `{el, render, refresh, stop}`. */
export function playNowPanel(games, go) {
  const st = { pools: {}, seek: null, error: null, seats: {}, botsAfter: null, rated: false };
  const el = h("section", { class: "panel playnow", testid: "play-now" });
  let ws = null;
  let retry = null;

  function render() {
    const list = games() || [];
    if (st.seek) {
      const g = list.find((x) => x.name === st.seek.game);
      mount(el, h("h2", {}, t("play_now_title")),
        h("p", { testid: "seek-status", role: "status" }, t("play_now_looking", { game: g ? g.title : st.seek.game })),
        h("button", { type: "button", class: "ghost", testid: "seek-cancel", onclick: cancel }, t("play_now_cancel")));
      return;
    }
    const botSel = h("select", { id: "pn-bots", testid: "bots-after-select", onchange: () => { st.botsAfter = botSel.value ? Number(botSel.value) : null; } },
      BOT_WAITS.map((s) => h("option", { value: s === null ? "" : s, selected: s === st.botsAfter }, s === null ? t("play_now_never") : `${s} s`)));
    mount(el, h("h2", {}, t("play_now_title")), h("p", { class: "meta" }, t("play_now_hint")),
      st.error ? h("p", { class: "error", role: "alert", testid: "seek-error" }, st.error) : null,
      h("ul", { class: "trows" }, list.map((g) => {
        const seats = [];
        for (let n = g.min_players; n <= g.max_players; n++) seats.push(n);
        const seatSel = h("select", { testid: `seek-seats-${g.name}`, "aria-label": t("seats"), onchange: () => { st.seats[g.name] = Number(seatSel.value); } },
          seats.map((n) => h("option", { value: n, selected: n === (st.seats[g.name] || g.min_players) }, n)));
        return h("li", { class: "trow" },
          h("div", { class: "tinfo" }, h("b", {}, g.title), " ",
            h("span", { class: "meta", testid: `pool-${g.name}` }, t("play_now_waiting", { n: st.pools[g.name] || 0 }))),
          seatSel,
          h("button", { type: "button", class: "primary", testid: `play-now-${g.name}`, onclick: () => seek(g) }, t("play_now")));
      })),
      h("div", { class: "field" }, h("label", { for: "pn-bots" }, t("play_now_bots")), botSel),
      currentAccount() ? h("div", { class: "field check" },
        h("input", { type: "checkbox", id: "pn-rated", testid: "seek-rated", checked: st.rated, onchange: (e) => { st.rated = e.target.checked; } }),
        h("label", { for: "pn-rated" }, t("play_now_rated"))) : null);
  }

  async function refresh() {
    try {
      st.pools = (await call("GET", "/api/seeks")).pools;
    } catch { /* the counts wait for the next refresh */ }
    render();
  }

  async function seek(g) {
    st.error = null;
    const body = { game: g.name, seats: st.seats[g.name] || g.min_players, rated: st.rated,
      time_control: { kind: "live", preset: "normal" } };
    if (st.botsAfter !== null) body.bots_after = st.botsAfter;
    if (!currentAccount() && playerName()) body.name = playerName();
    try {
      st.seek = await call("POST", "/api/seeks", { body });
      watch();
    } catch (e) {
      st.error = errorText(e.code, { message: e.message }, ERRORS);
    }
    render();
  }

  function watch() {
    const s = st.seek;
    if (!s) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws/seeks/${encodeURIComponent(s.id)}`);
    ws.onopen = () => ws.send(JSON.stringify({ t: "hello", token: s.seek_token }));
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.t !== "seek" || !st.seek || msg.id !== st.seek.id) return;
      if (msg.status === "paired") {
        const name = currentAccount() ? currentAccount().username : (playerName() || "Guest");
        saveSeat(msg.table, { seat: msg.seat, token: msg.token, name });
        st.seek = null;
        go(`/table/${msg.table}`);
      } else if (msg.status !== "waiting") {
        st.seek = null;
        st.error = t("play_now_ended", { status: msg.status });
        render();
      }
    };
    // A lost socket (not the server's final close) is opened again: it also keeps the
    // seek alive (CARDTABLE_SEEK_IDLE).
    ws.onclose = () => { if (st.seek === s) retry = setTimeout(watch, RETRY_MS); };
  }

  async function cancel() {
    const s = st.seek;
    if (!s) return;
    try {
      await call("DELETE", `/api/seeks/${encodeURIComponent(s.id)}`, { token: s.seek_token });
      st.seek = null;
      if (ws) ws.close(1000);
    } catch (e) {
      // Paired meanwhile: the socket's frame takes the page to the table.
      st.error = errorText(e.code, { message: e.message }, ERRORS);
    }
    render();
  }

  function stop() {
    clearTimeout(retry);
    if (st.seek && ws) {
      const s = st.seek;
      st.seek = null; // leaving the lobby gives the search up
      ws.close(1000);
      call("DELETE", `/api/seeks/${encodeURIComponent(s.id)}`, { token: s.seek_token }).catch(() => {});
    }
  }

  return { el, render, refresh, stop };
}
