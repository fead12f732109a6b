// An account's statistics on its profile and on "My games": per game the games, wins, win
// rate, average and best score and the rating over time (a small SVG chart), head-to-head,
// and the game history with its filters (GET /api/players/<name>/statistics and /history,
// docs/protocol.md §1 "Statistics").
import { call } from "./api.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { gameNames, gameTitle, loadGameTitles } from "./gametitles.js";
import { dateText, finishedHead, finishedRow } from "./gamerows.js";
import "./i18n-statistics.js";

const W = 320, H = 90, PAD = 4;

/** The rating curve as an SVG line with its first and last values (an image with a
 *  text alternative: the values in order). */
export function ratingChart(points, game) {
  if (points.length < 1) return h("p", { class: "empty" }, t("st_no_rating"));
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values), hi = Math.max(...values);
  const x = (i) => PAD + (points.length === 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (points.length - 1));
  const y = (v) => (hi === lo ? H / 2 : PAD + ((hi - v) * (H - 2 * PAD)) / (hi - lo));
  const path = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const label = t("st_chart_label", { game: gameTitle(game), from: values[0], to: values[values.length - 1], n: values.length });
  const svg = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${label.replace(/"/g, "&quot;")}">`
    + `<polyline fill="none" stroke="currentColor" stroke-width="2" points="${path}"/>`
    + values.map((v, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5"><title>${v}</title></circle>`).join("")
    + "</svg>";
  return h("figure", { class: "rating-chart", testid: `rating-chart-${game}` },
    h("div", { html: svg }),
    h("figcaption", { class: "meta" }, t("st_chart_caption", { from: values[0], to: values[values.length - 1],
      since: dateText(points[0].at) })));
}

function perGame(stats) {
  const games = Object.entries(stats.games);
  if (!games.length) return h("p", { class: "empty" }, t("no_games"));
  return [
    h("table", { class: "stats", testid: "stats-table" },
      h("thead", {}, h("tr", {}, [t("st_game"), t("st_played"), t("st_won"), t("st_win_rate"), t("st_average"), t("st_best")].map((x) => h("th", {}, x)))),
      h("tbody", {}, games.map(([g, s]) => h("tr", { testid: `stats-${g}` },
        h("th", {}, gameTitle(g)),
        h("td", { testid: `stats-played-${g}` }, s.played),
        h("td", { testid: `stats-won-${g}` }, s.won),
        h("td", {}, s.played ? `${Math.round(100 * s.win_rate)} %` : "–"),
        h("td", {}, s.average_score ?? "–"),
        h("td", {}, s.best_score ?? "–"))))),
    games.filter(([, s]) => s.rating.length).map(([g, s]) => [h("h3", {}, t("st_rating_of", { game: gameTitle(g) })), ratingChart(s.rating, g)]),
  ];
}

function headToHead(stats) {
  if (!stats.head_to_head.length) return null;
  return [h("h3", {}, t("st_head_to_head")),
    h("table", { class: "stats", testid: "head-to-head" },
      h("thead", {}, h("tr", {}, [t("st_opponent"), t("st_played"), t("st_ahead"), t("st_behind"), t("st_level")].map((x) => h("th", {}, x)))),
      h("tbody", {}, stats.head_to_head.slice(0, 20).map((o) => h("tr", { testid: `h2h-${o.name}` },
        h("th", {}, o.kind === "account" ? h("a", { href: `/players/${encodeURIComponent(o.name)}`, "data-link": true }, o.name) : o.name,
          o.kind === "bot" ? [" ", h("span", { class: "badge" }, t("bot"))] : null),
        h("td", {}, o.games), h("td", { testid: `h2h-ahead-${o.name}` }, o.ahead), h("td", {}, o.behind), h("td", {}, o.level)))))];
}

/** The statistics section of `name`'s profile: mounts into a new section it returns. */
export function statisticsSection(name) {
  const section = h("section", { class: "panel", testid: "profile-statistics" }, h("p", {}, t("loading")));
  call("GET", `/api/players/${encodeURIComponent(name)}/statistics`).then(
    (stats) => mount(section, h("h2", {}, t("st_title")), perGame(stats), headToHead(stats)),
    (e) => mount(section, h("p", { class: "error" }, e.message)));
  return section;
}

/** The searchable game history of `name` (its own private games too when it is the
 *  session's account): filters by game, result, opponent and text, 50 rows a page. */
export function historySection(name) {
  const q = { game: "", result: "", opponent: "", q: "", offset: 0 };
  const list = h("div", { testid: "history-list" });
  let timer = null;
  function load() {
    const params = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== "" && v !== 0).map(([k, v]) => [k, String(v)]));
    call("GET", `/api/players/${encodeURIComponent(name)}/history?${params}`).then((r) => {
      const pages = [q.offset > 0 ? h("button", { class: "ghost small", testid: "history-newer", onclick: () => { q.offset = Math.max(0, q.offset - 50); load(); } }, t("st_newer")) : null,
        q.offset + r.games.length < r.total ? h("button", { class: "ghost small", testid: "history-older", onclick: () => { q.offset += 50; load(); } }, t("st_older")) : null];
      mount(list, h("p", { class: "meta", testid: "history-total" }, t("st_found", { n: r.total })),
        r.games.length ? h("table", { class: "games" }, finishedHead(), h("tbody", {}, r.games.map(finishedRow))) : h("p", { class: "empty" }, t("no_games")),
        pages);
    }, (e) => mount(list, h("p", { class: "error", testid: "history-error" }, e.message)));
  }
  const set = (key) => (ev) => {
    q[key] = ev.target.value.trim();
    q.offset = 0;
    clearTimeout(timer);
    timer = setTimeout(load, key === "game" || key === "result" ? 0 : 300);  // typing: once it pauses
  };
  const field = (label, control) => h("label", { class: "field" }, h("span", {}, label), control);
  const games = h("select", { testid: "history-game", onchange: set("game") });
  const fillGames = () => mount(games, h("option", { value: "" }, t("st_all")),
    gameNames().map((g) => h("option", { value: g, selected: q.game === g }, gameTitle(g))));
  fillGames();
  loadGameTitles().then(fillGames);  // the names come from the server
  const form = h("form", { class: "history-filters", role: "search", onsubmit: (ev) => ev.preventDefault() },
    field(t("st_game"), games),
    field(t("result"), h("select", { testid: "history-result", onchange: set("result") },
      h("option", { value: "" }, t("st_all")), h("option", { value: "won" }, t("st_won_filter")), h("option", { value: "lost" }, t("st_lost_filter")))),
    field(t("st_opponent"), h("input", { type: "text", maxlength: 64, testid: "history-opponent", oninput: set("opponent") })),
    field(t("st_search"), h("input", { type: "search", maxlength: 64, testid: "history-search", oninput: set("q") })));
  load();
  return h("section", { class: "panel", testid: "history" }, h("h2", {}, t("st_history")), form, list);
}
