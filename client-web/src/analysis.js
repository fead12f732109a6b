// The post-game analysis of a finished table (GET /api/tables/{id}/analysis): beside each
// move of the replay its mark, loss and the best move found, and a summary per player for
// the end screen. It is fetched only when asked for (a button): the bots take a while, and
// the server answers 202 until it is ready.
import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** An action in a few words: its type and values, the seat left out ("buy brown-6"). */
export function actionText(action) {
  return Object.entries(action).filter(([k]) => k !== "seat")
    .map(([, v]) => (Array.isArray(v) ? v.join(",") : String(v))).join(" ");
}

/** `{seq: decision}` of an analysis answer, for the log's events. */
export function bySeq(analysis) {
  const out = {};
  for (const d of (analysis && analysis.decisions) || []) out[d.seq] = d;
  return out;
}

/** The note beside a judged move: its mark, its loss and the best move (none at loss 0);
 *  `testid` names it (default `analysis-<index>`: the log's note). */
export function moveNote(d, testid = null) {
  if (!d || d.forced || !(d.loss > 0)) return null;
  return h("span", { class: `analysis-note${d.mark ? ` mark-${d.mark}` : ""}`, testid: testid || `analysis-${d.index}`, dataset: { mark: d.mark || "", loss: d.loss } },
    d.mark ? h("b", {}, t(`mark_${d.mark}`), " ") : null,
    t("analysis_loss", { n: d.loss.toFixed(1) }), " · ", t("analysis_best", { move: actionText(d.best) }));
}

/** One line per player: decisions and marks, average loss, and luck in plain words. */
export function summaryLines(analysis, names) {
  if (!analysis) return [];
  return analysis.summary.map((s) => {
    const name = names[s.seat] ?? `#${s.seat + 1}`;
    const n = Math.abs(s.luck).toFixed(1);
    const luck = s.luck >= 1 ? t("luck_good", { name, n }) : s.luck <= -1 ? t("luck_bad", { name, n }) : t("luck_even", { name });
    return h("li", { testid: `analysis-summary-${s.seat}` },
      t("analysis_summary", { name, n: s.decisions, i: s.inaccuracies, m: s.mistakes, b: s.blunders, avg: s.average_loss.toFixed(2) }), " ", luck);
  });
}

const BAR = 120;  // px for the largest amount either way

/** Luck against skill as a small chart: per player a bar for the luck of the draws (right:
 *  points gained, left: lost) and one for the points its decisions lost (always left),
 *  on one scale; each bar says its number in words for a screen reader. */
export function luckChart(analysis, names) {
  if (!analysis || !analysis.summary.length) return null;
  const rows = analysis.summary.map((s) => ({ seat: s.seat, luck: s.luck, loss: s.loss ?? s.average_loss * s.decisions }));
  const most = Math.max(1, ...rows.flatMap((r) => [Math.abs(r.luck), r.loss]));
  const bar = (value, kind, label) => {
    const w = Math.round((Math.abs(value) / most) * BAR);
    return h("div", { class: `luck-bar ${kind}`, role: "img", "aria-label": label },
      // Left of the axis for a negative amount, right of it for a positive one.
      h("span", { class: value < 0 ? "neg" : "pos", style: `margin-left:${value < 0 ? BAR - w : BAR}px;width:${w}px`, dataset: { value: value.toFixed(1) } }),
      h("small", { "aria-hidden": "true" }, `${value > 0 ? "+" : ""}${value.toFixed(1)}`));
  };
  return h("figure", { class: "luck-chart", testid: "luck-chart" },
    h("figcaption", {}, t("luck_chart_title")),
    rows.map((r) => {
      const name = names[r.seat] ?? `#${r.seat + 1}`;
      return h("div", { class: "luck-row", testid: `luck-row-${r.seat}` },
        h("span", { class: "luck-name" }, name),
        bar(r.luck, "luck", t("luck_chart_luck", { name, n: r.luck.toFixed(1) })),
        bar(-r.loss, "skill", t("luck_chart_loss", { name, n: r.loss.toFixed(1) })));
    }),
    h("p", { class: "hint" }, t("luck_chart_legend")));
}

/** A button that loads table `id`'s analysis and calls `done(analysis)`; while it loads
 *  it says so, and a refusal (rate limit, not ended) is shown in its place. */
export function analysisButton(id, done) {
  const status = h("span", { class: "hint", role: "status", testid: "analysis-status" });
  const button = h("button", { type: "button", class: "ghost", testid: "analysis-load", onclick: async () => {
    button.disabled = true;
    status.textContent = t("analysis_loading");
    try {
      let a = await api.analysis(id);
      // 202 {status: "computing"}: the bots are at it; ask again as the server says (2 s).
      while (a && a.status === "computing") {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        a = await api.analysis(id);
      }
      status.textContent = "";
      done(a);
    } catch (e) {
      status.textContent = e.message;
      button.disabled = false;
    }
  } }, t("analysis_show"));
  return h("span", { class: "analysis-load" }, button, " ", status);
}
