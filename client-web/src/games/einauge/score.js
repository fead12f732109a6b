// The final score breakdown (the view's `result`, CONTRACT section 3), as a table.
import { h } from "../../dom.js";
import { listWords, t } from "../../i18n.js";
import { colorName } from "./texts.js";
import { COLOR_GLYPH, icons } from "../../icons.js";
import { rulesHref } from "../../rulesnav.js";

/** Table of `view.result`: holdings, conversions, chest awards per color, bonus, total. */
export function renderScore(view) {
  const res = view.result;
  if (!res) return null;
  const names = (view.players || []).map((p) => p.name);
  const colors = view.colors || [];
  const winners = res.winners || [];
  const head = h("tr", {},
    h("th", { scope: "col" }, t("player")),
    // The total right after the name: on a phone it is in view without scrolling.
    h("th", { scope: "col" }, t("total")),
    h("th", { scope: "col" }, t("sabres")),
    h("th", { scope: "col" }, t("ducats")),
    h("th", { scope: "col" }, t("jewels")),
    h("th", { scope: "col", title: t("ducats_from_sabres_title") }, t("ducats_from_sabres")),
    h("th", { scope: "col", title: t("jewels_from_ducats_title") }, t("jewels_from_ducats")),
    colors.map((c) => h("th", { scope: "col", class: `chest-col c-${c}`, title: `${t("chest_awards")}: ${colorName(c)}` },
      h("span", { class: "glyph", "aria-hidden": "true" }, COLOR_GLYPH[c]), colorName(c))),
    h("th", { scope: "col" }, t("color_bonus_col")));
  const body = res.scores.map((s) => h("tr", { class: winners.includes(s.seat) ? "winner" : "", testid: `score-row-${s.seat}` },
    h("th", { scope: "row" }, winners.includes(s.seat) ? "♛ " : "", names[s.seat] ?? `#${s.seat + 1}`),
    h("td", { class: "total", testid: `score-total-${s.seat}` }, s.total),
    h("td", {}, s.sabres),
    h("td", {}, s.ducats),
    h("td", {}, s.jewels),
    h("td", {}, s.ducats_from_sabres),
    h("td", {}, s.jewels_from_ducats),
    // Each award with the chests it was ranked on (the view's per-player chest counts), so
    // a player can see why: "7 · 3 chests" beside a rival's "4 · 2 chests".
    colors.map((c) => {
      const held = ((view.players[s.seat] || {}).chests || {})[c] || 0;
      const award = (s.chest_awards || {})[c] || 0;
      return h("td", { class: "chest-col", testid: `chest-award-${s.seat}-${c}`, dataset: { chests: held, award },
        title: t("chest_cell_title", { n: held, color: colorName(c), award }) },
      award || "–", held ? h("small", { class: "held", "aria-label": t("chest_s", { n: held }) }, " · ", held, h("span", { html: icons.chest(t("chests")) })) : null);
    }),
    // The bonus beside the rows it counts (the view's color rows of that player).
    h("td", { testid: `color-bonus-${s.seat}` }, s.color_bonus,
      view.options && view.options.color_bonus ? h("small", { class: "held" }, ` · ${t("rows_n", { n: Object.keys((view.players[s.seat] || {}).rows || {}).length })}`) : null)));
  const w = winners.map((s) => names[s] ?? `#${s + 1}`);
  return h("section", { class: "panel score-panel", testid: "score" },
    h("h2", {}, t("scoring")),
    h("p", { class: "winners", testid: "winners" }, "♛ ", t("winners_are", { names: listWords(w), n: w.length }),
      " ", h("a", { class: "hint", href: `${rulesHref("einauge")}#scoring`, target: "_blank", rel: "noopener", testid: "score-rules" }, t("score_how"))),
    h("div", { class: "table-scroll" },
      h("table", { class: "score-table", testid: "score-table" },
        h("caption", { class: "sr-only" }, t("scoring")),
        h("thead", {}, head),
        h("tbody", {}, body))));
}
