// The leaderboard of a game (/leaderboard?game=einauge): people and bots on one ladder,
// provisional ratings marked, from GET /api/leaderboard/<game>.
import { call } from "./api.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { ratingText } from "./profile.js";

/** Mount the leaderboard into `root`; returns a cleanup. */
export function leaderboardPage(root) {
  const game = new URLSearchParams(location.search).get("game") || "einauge";
  let rows = null;
  let error = null;
  window.__einauge = { page: "leaderboard" };

  function render() {
    mount(root, h("section", { class: "panel leaderboard", testid: "leaderboard" },
      h("h1", {}, t("leaderboard"), " · ", gameTitle(game)),
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

  call("GET", `/api/leaderboard/${encodeURIComponent(game)}`)
    .then((r) => { rows = r.players; }, (e) => { error = e.message; rows = []; })
    .then(render);
  loadGameTitles().then(render);
  render();
  return onLangChange(render);
}
