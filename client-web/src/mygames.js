// My games (/my-games): the account's running games (whose turn, time left, continue on
// this device), tables waiting to start, and finished games (players, result, date,
// replay), from GET /api/me/games.
import { tableName } from "./tablename.js";
import { call } from "./api.js";
import { adoptSeat, currentAccount, onSessionChange } from "./account.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { playerList, turnText } from "./gamerows.js";
import { historySection, statisticsSection } from "./statistics.js";
import { friendsList } from "./friends.js";

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

  // The running part is rebuilt at every refresh; the finished part (the account's
  // searchable history, its private games too, with its statistics) is built once per
  // account and language and stays in the page, so a refresh does not take the focus
  // out of its search fields.
  const live = h("div");
  const finished = h("div", { testid: "finished-games" });
  const friends = h("div", { testid: "friends" });
  const page = h("div", { class: "my-games" }, h("h1", {}, t("my_games")), live, friends, finished);
  let reloadFriends = null;
  let shownFor = null;

  function render() {
    const account = currentAccount();
    if (!account) {
      shownFor = null;
      return mount(root, h("section", { class: "panel" }, h("h1", {}, t("my_games")),
        h("p", {}, t("need_login")), h("a", { class: "button primary", href: "/account", "data-link": true }, t("log_in"))));
    }
    if (root.firstChild !== page) mount(root, page);
    if (shownFor !== account.username) {
      shownFor = account.username;
      mount(finished, statisticsSection(shownFor), historySection(shownFor));
      reloadFriends = friendsList(friends);
    }
    const games = data ? [...data.running, ...data.open] : [];
    mount(live, error ? h("p", { class: "error", role: "alert" }, error) : null,
      h("section", { class: "panel", testid: "running-games" }, h("h2", {}, t("running_games")),
        !data ? h("p", {}, t("loading")) : games.length ? h("ul", { class: "trows" }, games.map(liveRow)) : h("p", { class: "empty" }, t("no_games"))));
  }

  async function refresh() {
    if (!currentAccount()) return render();
    try { data = await call("GET", "/api/me/games"); error = null; } catch (e) { error = e.message; }
    const fresh = shownFor === (currentAccount() || {}).username;
    render();
    if (fresh && reloadFriends) reloadFriends();  // a new account's list loads in render
  }

  render();
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  const offLang = onLangChange(() => {
    page.firstChild.textContent = t("my_games");
    shownFor = null;
    render();
  });
  const offSession = onSessionChange(refresh);
  return () => { clearInterval(timer); offLang(); offSession(); };
}
