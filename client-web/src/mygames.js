// My games (/my-games): the account's running games (whose turn, time left, continue on
// this device), tables waiting to start, and finished games (players, result, date,
// replay), from GET /api/me/games.
import { tableName } from "./tablename.js";
import { call } from "./api.js";
import { adoptSeat, currentAccount, onSessionChange } from "./account.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { finishedHead, finishedRow, playerList, turnText } from "./gamerows.js";

const REFRESH_MS = 5000;

/** Mount /my-games into `root`; returns a cleanup. */
export function myGamesPage(root, go) {
  let data = null;
  let error = null;
  window.__cardtable = { page: "my-games" };

  async function open(id) {
    await adoptSeat(id); // the seat token moves to this device (a fresh browser, say)
    go(`/table/${id}`);
  }

  function liveRow(s) {
    return h("li", { class: `trow st-${s.status}${s.my_turn ? " my-turn" : ""}`, testid: `game-${s.id}` },
      h("div", { class: "tinfo" },
        h("div", {}, h("b", {}, tableName(s)), " ", s.rated ? h("span", { class: "badge rated" }, t("rated")) : null,
          s.status === "open" ? h("span", { class: "badge st-open", testid: `waiting-start-${s.id}` }, t("waiting_to_start")) : null),
        h("div", { class: "meta" }, playerList(s)),
        s.status === "running" ? h("div", { class: "meta", testid: `turn-${s.id}` }, turnText(s)) : null),
      h("button", { type: "button", class: s.my_turn ? "primary" : "", testid: `continue-${s.id}`, onclick: () => open(s.id) }, t("continue_game")));
  }

  function render() {
    if (!currentAccount()) {
      return mount(root, h("section", { class: "panel" }, h("h1", {}, t("my_games")),
        h("p", {}, t("need_login")), h("a", { class: "button primary", href: "/account", "data-link": true }, t("log_in"))));
    }
    const live = data ? [...data.running, ...data.open] : [];
    mount(root, h("div", { class: "my-games" },
      h("h1", {}, t("my_games")),
      error ? h("p", { class: "error", role: "alert" }, error) : null,
      h("section", { class: "panel", testid: "running-games" }, h("h2", {}, t("running_games")),
        !data ? h("p", {}, t("loading")) : live.length ? h("ul", { class: "trows" }, live.map(liveRow)) : h("p", { class: "empty" }, t("no_games"))),
      h("section", { class: "panel", testid: "finished-games" }, h("h2", {}, t("finished_games")),
        data && data.finished.length ? h("table", { class: "games" }, finishedHead(), h("tbody", {}, data.finished.map(finishedRow)))
          : h("p", { class: "empty" }, data ? t("no_games") : t("loading")))));
  }

  async function refresh() {
    if (!currentAccount()) return render();
    try { data = await call("GET", "/api/me/games"); error = null; } catch (e) { error = e.message; }
    render();
  }

  render();
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  const offLang = onLangChange(render);
  const offSession = onSessionChange(refresh);
  return () => { clearInterval(timer); offLang(); offSession(); };
}
