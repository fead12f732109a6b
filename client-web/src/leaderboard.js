// The leaderboard of a game (/leaderboard?game=<name>; none: the server's default game's): people and bots on one ladder,
// provisional ratings marked, from GET /api/leaderboard/<game>; a switch between the
// games the server offers (GET /api/games) keeps the address's `?game=`.
import { api, call } from "./api.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { defaultGame, gameNames } from "./games/index.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { ratingText } from "./profile.js";

/** Mount the leaderboard into `root`; returns a cleanup. */
export function leaderboardPage(root) {
  let game = new URLSearchParams(location.search).get("game") || defaultGame() || gameNames()[0];
  let games = null; // [{name, title}] once loaded
  let rows = null;
  let error = null;
  let asked = 0; // the latest request: an older answer arriving late is dropped
  window.__cardtable = { page: "leaderboard" };

  function choose(name) {
    if (name === game) return;
    game = name;
    const url = new URL(location.href);
    url.searchParams.set("game", name);
    history.replaceState(null, "", url.pathname + url.search);
    load();
  }

  function switcher() {
    if (!games || games.length < 2) return null;
    return h("div", { class: "lb-games", role: "group", "aria-label": t("game"), testid: "lb-games" },
      games.map((g) => h("button", {
        type: "button", class: `ghost small${g.name === game ? " on" : ""}`, testid: `lb-game-${g.name}`,
        "aria-pressed": g.name === game ? "true" : "false", onclick: () => choose(g.name),
      }, gameTitle(g.name))));
  }

  function render() {
    mount(root, h("section", { class: "panel leaderboard", testid: "leaderboard" },
      h("h1", {}, t("leaderboard"), " · ", h("span", { testid: "lb-title" }, gameTitle(game))),
      switcher(),
      error ? h("p", { class: "error" }, error) : null,
      !rows ? h("p", {}, t("loading")) : !rows.length ? h("p", { class: "empty" }, t("no_ratings"))
        : h("table", { class: "games" },
          h("thead", {}, h("tr", {}, [t("rank"), t("player"), t("rating"), t("rated_games")].map((x) => h("th", {}, x)))),
          h("tbody", {}, rows.map((r) => h("tr", { testid: `lb-${r.username}` },
            h("td", {}, r.rank),
            h("td", {}, h("a", { href: `/players/${encodeURIComponent(r.username)}`, "data-link": true }, r.username),
              r.bot ? [" ", h("span", { class: "badge" }, t("bot_account"))] : null),
            h("td", { testid: `lb-rating-${r.username}` }, h("b", {}, ratingText(r)),
              r.provisional ? [" ", h("span", { class: "badge provisional" }, t("provisional"))] : null),
            h("td", {}, r.games)))))));
  }

  function load() {
    const mine = ++asked;
    rows = null;
    error = null;
    render();
    call("GET", `/api/leaderboard/${encodeURIComponent(game)}`)
      .then((r) => { if (mine === asked) rows = r.players; }, (e) => { if (mine === asked) { error = e.message; rows = []; } })
      .then(render);
  }

  load();
  loadGameTitles().then(render);
  api.games().then((d) => { games = d.games; render(); }).catch(() => {});
  return onLangChange(render);
}
