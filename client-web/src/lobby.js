// The lobby (/): open and running tables, creating a table, links to seat, watch, replay.
import { tableName } from "./tablename.js";
import { currentAccount } from "./account.js";
import { api } from "./api.js";
import { resultText } from "./gamerows.js";
import { h, mount } from "./dom.js";
import { currentLang, listWords, onLangChange, t } from "./i18n.js";
import { gameTitle } from "./gametitles.js";
import { timeControlText } from "./clock.js";
import { seatName } from "./names.js";
import { gameModule, gameNames, hasGameModule } from "./games/index.js";
import { rulesHref, setRulesGame } from "./rulesnav.js";
import { learnHref } from "./tutorial.js";
import { kebab, optionFields, optionsText, readOptions } from "./options.js";
import { playNowPanel } from "./playnow.js";
import { saveKey, saveOwner, seatFor } from "./store.js";
import { loadTournamentList } from "./tournaments.js";

const REFRESH_MS = 5000;
// The time controls offered (server/play/clock.py); the figures shown come from the presets.
const S = 1000;
const TIME_CONTROLS = [
  ["none", { kind: "none" }],
  ["fast", { kind: "live", preset: "fast", per_move: 15 * S, reserve: 60 * S }],
  ["normal", { kind: "live", preset: "normal", per_move: 30 * S, reserve: 180 * S }],
  ["slow", { kind: "live", preset: "slow", per_move: 60 * S, reserve: 600 * S }],
  ["async1", { kind: "async", days: 1 }],
  ["async2", { kind: "async", days: 2 }],
  ["async3", { kind: "async", days: 3 }],
];
/** The body's `time_control` for a choice: only what the server asks for. */
const askedControl = (value) => {
  const tc = Object.fromEntries(TIME_CONTROLS)[value] || { kind: "none" };
  return tc.kind === "live" ? { kind: "live", preset: tc.preset } : tc.kind === "async" ? { kind: "async", days: tc.days } : { kind: "none" };
};

/** The hero's line: the registered games by their titles (the server's names for people). */
const tagline = () => t("tagline", { games: listWords(gameNames().map(gameTitle)) });

/** Mount the lobby into `root`; `go(path)` navigates inside the app. Returns a cleanup. */
export function lobbyPage(root, go) {
  // `games`: GET /api/games (seat range, options schema); `game`: the one chosen to create.
  const st = { tables: null, ended: [], error: null, busy: false, games: null, game: null, seats: 4, clockChosen: false };
  const chosen = () => (st.games || []).find((g) => g.name === st.game) || null;
  const schemaOf = (name) => ((st.games || []).find((g) => g.name === name) || {}).options_schema || null;
  window.__cardtable = { page: "lobby" };
  const list = h("div", { class: "tables", testid: "table-list", "aria-live": "polite" });
  const form = h("form", { class: "panel create", testid: "create-form", onsubmit: (e) => { e.preventDefault(); create(); } });

  function renderForm() {
    const g = chosen();
    if (!g) { mount(form, h("h2", {}, t("create_table")), h("p", {}, st.error || t("loading"))); return; }
    const name = form.querySelector("#t-name");
    const seats = [];
    for (let n = g.min_players; n <= g.max_players; n++) seats.push(n);
    const gameSel = h("select", { id: "t-game", name: "game", testid: "game-select", onchange: () => { st.game = gameSel.value; renderForm(); renderHowTo(); } },
      st.games.map((x) => h("option", { value: x.name, selected: x.name === g.name }, x.title)));
    const seatSel = h("select", { id: "t-seats", name: "seats", testid: "seats-select", onchange: () => { st.seats = Number(seatSel.value); } },
      seats.map((n) => h("option", { value: n, selected: n === Math.min(Math.max(st.seats, g.min_players), g.max_players) }, n)));
    mount(form,
      h("h2", {}, t("create_table")),
      st.games.length > 1 ? h("div", { class: "field" }, h("label", { for: "t-game" }, t("game")), gameSel) : null,
      h("div", { class: "field" }, h("label", { for: "t-name" }, t("table_name")),
        h("input", { id: "t-name", name: "name", maxlength: 64, testid: "table-name", value: name ? name.value : "" })),
      h("div", { class: "field" }, h("label", { for: "t-seats" }, t("seats")), seatSel),
      optionFields(g.options_schema, null, null, (key, spec) => ({
        id: `t-opt-${kebab(key)}`, testid: spec.type === "boolean" ? kebab(key) : spec.enum ? `${kebab(key)}-select` : `${kebab(key)}-input` }), g.name),
      h("div", { class: "field" }, h("label", { for: "t-clock" }, t("time_control")),
        h("select", { id: "t-clock", name: "time_control", testid: "time-control-select", "aria-describedby": "t-clock-hint", onchange: () => { st.clockChosen = true; } },
          TIME_CONTROLS.map(([value, tc]) => h("option", { value, selected: value === "normal" }, timeControlText(tc)))),
        // Why "No clock" is offered only with "Private" (privacyChanged), where the choice is.
        h("small", { class: "hint", id: "t-clock-hint", testid: "clock-hint" }, t("tc_none_hint"))),
      h("div", { class: "field check" },
        h("input", { type: "checkbox", id: "t-private", name: "private", testid: "private-table", onchange: privacyChanged }),
        h("label", { for: "t-private" }, t("private_table"))),
      currentAccount() ? h("div", { class: "field check" },
        h("input", { type: "checkbox", id: "t-rated", name: "rated", testid: "rated-table" }),
        h("label", { for: "t-rated" }, t("rated_table"))) : null,
      h("button", { type: "submit", class: "primary big", testid: "create-table", disabled: st.busy }, t("create")));
    privacyChanged();
  }

  // Only a private (invite-link) table may go without a clock, and it is never rated
  // (docs/protocol.md §5, "A table without a clock is for friends").
  function privacyChanged() {
    const priv = form.querySelector("#t-private");
    const clock = form.querySelector("#t-clock");
    const rated = form.querySelector("#t-rated");
    if (!priv || !clock) return;
    const none = clock.querySelector('option[value="none"]');
    none.disabled = !priv.checked;
    // Unless a clock was chosen: the server's default of each kind of table (a private
    // one has none, docs/protocol.md §1 `POST /api/tables`).
    if (!priv.checked && clock.value === "none") clock.value = "normal";
    else if (!st.clockChosen) clock.value = priv.checked ? "none" : "normal";
    if (rated) {
      rated.disabled = priv.checked;
      if (priv.checked) rated.checked = false;
    }
  }

  async function create() {
    const data = new FormData(form);
    st.busy = true;
    try {
      const g = chosen();
      const s = await api.createTable(Number(data.get("seats")), readOptions(g.options_schema, data),
        (data.get("name") || "").trim() || undefined, data.get("private") === "on",
        askedControl(data.get("time_control")), data.get("rated") === "on", g.name);
      if (s.owner_token) saveOwner(s.id, s.owner_token);
      if (s.invite_key) saveKey(s.id, s.invite_key);
      go(s.invite_key ? `/table/${s.id}#k=${s.invite_key}` : `/table/${s.id}`);
    } catch (e) {
      st.error = e.message;
      renderList();
    } finally {
      st.busy = false;
    }
  }

  function tableRow(s) {
    const taken = s.seats.filter((x) => x.kind).length;
    const names = s.seats.map((x) => seatName(x.name, x.seat, x)).filter(Boolean).join(", ");
    const action = s.status === "open"
      ? h("a", { class: "button primary", href: `/table/${s.id}`, "data-link": true, testid: `join-${s.id}` }, t("join_table"))
      : s.status === "running"
        ? h("a", { class: "button", href: `/table/${s.id}`, "data-link": true, testid: `watch-${s.id}` }, t("watch"))
        : h("a", { class: "button ghost", href: `/replay/${s.id}`, "data-link": true, testid: `replay-${s.id}` }, t("replay"));
    // A resigned seat is the bot's for good: nothing to go back to (watch instead).
    const held = s.status !== "ended" && seatFor(s.id);
    const mine = held && !(s.seats[held.seat] && s.seats[held.seat].resigned) ? held : null;
    const act = mine ? h("a", { class: "button primary", href: `/table/${s.id}`, "data-link": true, testid: `return-${s.id}` }, t("return_to_seat")) : action;
    // With several games offered the details line names the row's game, unless the name
    // does already (one made from the game and the id: the title read twice in one row).
    // The name stays as every page shows it.
    const name = tableName(s);
    const game = st.games && st.games.length > 1 && name === tableName(s, { withGame: false })
      ? ((st.games.find((x) => x.name === s.game) || {}).title) || s.game : "";
    return h("li", { class: `trow st-${s.status}`, testid: `table-row-${s.id}`, dataset: { id: s.id, status: s.status } },
      h("div", { class: "tinfo" },
        h("div", {}, h("b", {}, name), " ", h("span", { class: `badge st-${s.status}` }, t(`status_${s.status}`)),
          s.rated ? [" ", h("span", { class: "badge rated" }, t("rated"))] : null),
        h("div", { class: "meta", testid: `details-${s.id}` }, t("players_n", { taken, seats: s.seats.length }), names ? ` · ${names}` : "",
          game ? ` · ${game}` : "",
          optionsText(schemaOf(s.game), s.options, s.game) ? ` · ${optionsText(schemaOf(s.game), s.options, s.game)}` : "",
          h("span", { testid: `tc-${s.id}` }, ` · ${timeControlText(s.time_control)}`)),
        mine ? h("div", { class: "meta mine" }, t("your_seat", { n: mine.seat + 1 })) : null,
        s.status === "ended" && s.winners ? h("div", { class: "meta result", testid: `lobby-result-${s.id}` }, resultText(s)) : null),
      act);
  }

  function renderList() {
    const items = st.tables === null ? h("p", {}, t("loading"))
      : st.tables.length === 0 ? h("p", { class: "empty", testid: "no-tables" }, t("no_tables"))
        : h("ul", { class: "trows" }, st.tables.map(tableRow));
    const ended = st.ended.length
      ? [h("h3", {}, t("finished_tables")), h("ul", { class: "trows" }, st.ended.slice(0, 10).map(tableRow))] : null;
    mount(list,
      h("div", { class: "list-head" }, h("h2", {}, t("tables")),
        h("button", { type: "button", class: "ghost", testid: "refresh", onclick: refresh }, "⟳ ", t("refresh"))),
      st.error ? h("p", { class: "error", role: "alert" }, st.error) : null,
      items, ended,
      h("p", { class: "replay-file-link" }, h("a", { href: "/replay", "data-link": true, testid: "open-replay-file" }, t("replay_open_file"))));
  }

  async function refresh() {
    try {
      const [live, ended] = await Promise.all([api.listTables(), api.listTables("ended").catch(() => ({ tables: [] }))]);
      // Two reads: a game that ended between them is in both; "ended" is final, so it wins.
      const over = new Set(ended.tables.map((x) => x.id));
      st.tables = live.tables.filter((x) => !over.has(x.id));
      st.ended = ended.tables;
      st.error = null;
    } catch (e) {
      st.error = e.message;
      st.tables ||= [];
    }
    renderList();
  }

  const playNow = playNowPanel(() => st.games, go); // quick pairing (playnow.js)
  const howTo = h("section", { class: "panel howto" });
  const tournaments = h("section", { class: "panel", testid: "lobby-tournaments" });
  // How to play the game chosen in the form (its rules document's `howto`), linking its rules.
  function renderHowTo() {
    const g = chosen();
    setRulesGame(g ? g.name : null);
    if (!g) { mount(howTo, h("h2", {}, t("howto_title")), h("p", {}, t("loading"))); return; }
    const game = gameModule(g.name);
    const steps = [t("howto_1", { min: g.min_players, max: g.max_players }), t("howto_2"),
      ...game.rules.doc(currentLang(), null).howto];
    mount(howTo, h("h2", {}, t("howto_title")), h("ol", { testid: "howto-steps", dataset: { game: game.name } }, steps.map((x) => h("li", {}, x))),
      h("p", {}, h("a", { class: "button", href: rulesHref(game.name), "data-link": true, testid: "lobby-rules" },
        st.games.length > 1 ? t("rules_full_of", { game: g.title }) : t("rules_full"))),
      // A tutorial of each game (tutorial.js): a short first game with a coach.
      h("h3", {}, t("tut_learn_title")), h("p", { class: "hint" }, t("tut_learn_hint")),
      h("ul", { class: "learn-links", testid: "lobby-learn" }, st.games.filter((x) => gameModule(x.name).lesson).map((x) =>
        h("li", {}, h("a", { href: learnHref(x.name), "data-link": true, testid: `learn-${x.name}` }, t("tut_learn_of", { game: x.title }))))));
  }

  function renderAll() { renderForm(); renderList(); renderHowTo(); playNow.render(); }

  mount(root, h("div", { class: "lobby" },
    h("section", { class: "hero" }, h("h1", {}, t("title")), h("p", {}, tagline())),
    h("div", { class: "lobby-grid" }, list, h("div", { class: "lobby-side" }, playNow.el, form, tournaments, howTo))));
  renderAll();
  loadTournamentList(tournaments, "/api/tournaments?status=open");
  api.games().then((d) => {
    st.games = d.games.filter((g) => hasGameModule(g.name)); // a board to show it with
    // The server's default game (CARDTABLE_DEFAULT_GAME) first, else the first offered.
    const preferred = st.games.find((g) => g.name === d.default) || st.games[0];
    st.game = preferred ? preferred.name : null;
    renderAll();
  })
    .catch((e) => { st.error = e.message; renderForm(); });
  refresh();
  playNow.refresh();
  const timer = setInterval(() => { refresh(); playNow.refresh(); }, REFRESH_MS);
  const offLang = onLangChange(() => {
    const hero = root.querySelector(".hero");
    if (hero) mount(hero, h("h1", {}, t("title")), h("p", {}, tagline()));
    renderAll();
  });
  return () => { clearInterval(timer); offLang(); playNow.stop(); };
}
