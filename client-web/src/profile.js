// A player's profile (/players/<name>): ratings per game (provisional marked), from GET
// /api/players/<name>; its statistics and searchable game history (statistics.js); its
// tournaments.
import { call } from "./api.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { dateText } from "./gamerows.js";
import { loadTournamentList } from "./tournaments.js";
import { historySection, statisticsSection } from "./statistics.js";
import { reportButton } from "./report.js";
import { socialButtons } from "./friends.js";

/** "1532" or "1532?" (provisional). */
export const ratingText = (r) => `${r.rating}${r.provisional ? "?" : ""}`;

/** Mount the profile of `name` into `root`; returns a cleanup. */
export function profilePage(root, name) {
  let p = null;
  let error = null;
  window.__cardtable = { page: "profile" };

  function render() {
    if (error) return mount(root, h("section", { class: "panel" }, h("h1", {}, name), h("p", { class: "error", testid: "profile-error" }, error)));
    if (!p) return mount(root, h("p", {}, t("loading")));
    const games = Object.entries(p.ratings);
    mount(root, h("div", { class: "profile", testid: "profile" },
      h("section", { class: "panel" },
        h("h1", { testid: "profile-name" }, p.username, p.bot ? [" ", h("span", { class: "badge" }, t("bot_account"))] : null,
          p.bot ? null : [" ", reportButton(p.username, {}, "report-profile")]),
        h("p", { class: "meta" }, t("member_since", { date: dateText(p.created_at) })),
        social,
        p.left ? h("p", { class: "meta", testid: "profile-left" }, t("left_record", p.left)) : null,
        h("h2", {}, t("ratings")),
        games.length ? h("table", { class: "ratings" }, h("tbody", {}, games.map(([g, r]) => h("tr", { testid: `rating-${g}` },
          h("th", {}, gameTitle(g)),
          h("td", { testid: `rating-value-${g}` }, h("b", {}, ratingText(r))),
          h("td", {}, t("games_n", { n: r.games }), r.provisional ? [" · ", h("span", { class: "badge provisional" }, t("provisional"))] : null),
          h("td", {}, h("a", { href: `/leaderboard?game=${g}`, "data-link": true }, t("leaderboard")))))))
          : h("p", { class: "empty" }, t("no_ratings"))),
      extra, tournaments));
  }
  // Built once per language (each loads its own data): a render must not refetch them.
  let extra = [statisticsSection(name), historySection(name)];
  const tournaments = h("section", { class: "panel", testid: "profile-tournaments" });
  const social = socialButtons(name); // kept across redraws (it loads its own state)
  loadTournamentList(tournaments, `/api/tournaments?status=all&player=${encodeURIComponent(name)}`);

  call("GET", `/api/players/${encodeURIComponent(name)}`)
    .then((r) => { p = r; }, (e) => { error = e.code === "no_player" ? t("no_player") : e.message; })
    .then(render);
  loadGameTitles().then(render);
  render();
  return onLangChange(() => { extra = [statisticsSection(name), historySection(name)]; render(); });
}
