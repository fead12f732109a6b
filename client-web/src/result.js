// The result panel at the top of an ended table: who won, every player's total (ranked),
// and the rematch (offer, accept, or watch it). The full breakdown is the game module's `renderScore`.
import { analysisButton, luckChart, summaryLines } from "./analysis.js";
import { h } from "./dom.js";
import { listWords, t } from "./i18n.js";

/**
 * `view`: an ended view with `result` (CONTRACT section 3); `ctx`: `summary` (the table
 * summary, `rematch` once offered), `mySeat` (null for a spectator or a handed-over seat),
 * `onRematch()`, `busy` (a rematch request in flight), `tableId` and `analysis` (the
 * bots' analysis once loaded, `onAnalysis(a)` keeps it: analysis.js), and for a rated
 * table `ratings` (per seat `{change?: {before, after}}` or null) and `verdict`
 * (`counted`, `aborted`, `capped`: GET /api/tables/<id>/ratings) once the result is
 * settled.
 */
export function renderResult(view, ctx) {
  const res = view && view.result;
  if (!res) return null;
  const names = (view.players || []).map((p) => p.name);
  // A resigned seat cannot win (docs/rules.md, "Resigning"): the bot that played it on
  // may have won the game, the seat's person did not. The summary marks those seats.
  const seats = (ctx.summary && ctx.summary.seats) || [];
  const winners = (res.winners || []).filter((s) => !(seats[s] && seats[s].resigned));
  // A player without a total (eliminated, in a game that eliminates) is ranked last and shown with a dash.
  const total = (s) => (typeof s.total === "number" ? s.total : -Infinity);
  const ranked = [...res.scores].sort((a, b) => total(b) - total(a) || a.seat - b.seat);
  const w = winners.map((s) => names[s] ?? `#${s + 1}`);
  const offered = ctx.summary && ctx.summary.rematch;
  let action = null;
  if (ctx.mySeat !== null && ctx.mySeat !== undefined) {
    action = h("button", { type: "button", class: "primary big", testid: "rematch", disabled: !!ctx.busy, onclick: ctx.onRematch },
      offered ? t("rematch_accept") : t("rematch"));
  } else if (offered) {
    action = h("a", { class: "button", href: `/table/${offered}`, "data-link": true, testid: "watch-rematch" }, t("rematch_watch"));
  }
  return h("section", { class: "panel result-panel", testid: "result", "aria-labelledby": "result-title" },
    h("h2", { id: "result-title", testid: "result-winners" },
      w.length ? ["♛ ", t("winners_are", { names: listWords(w), n: w.length })] : t("no_winner")),
    h("ol", { class: "result-list" }, ranked.map((s) => h("li", {
      class: winners.includes(s.seat) ? "winner" : "", testid: `result-${s.seat}`, dataset: { total: s.total },
    }, h("span", { class: "result-name" }, winners.includes(s.seat) ? "♛ " : "", names[s.seat] ?? `#${s.seat + 1}`),
    h("b", { class: "result-total", testid: `result-total-${s.seat}` }, s.total ?? "–"),
    h("span", { class: "result-unit" }, t("total_unit")),
    change(ctx, s.seat)))),
    ctx.verdict === "aborted" || ctx.verdict === "capped"
      ? h("p", { class: "hint", testid: "rating-verdict" }, t(`rating_verdict_${ctx.verdict}`)) : null,
    ctx.analysis ? h("ul", { class: "analysis-summary", testid: "analysis-summary" }, summaryLines(ctx.analysis, names)) : null,
    ctx.analysis ? luckChart(ctx.analysis, names) : null,
    h("div", { class: "result-actions" },
      offered ? h("span", { class: "hint", testid: "rematch-offer" }, t("rematch_offered")) : null,
      !ctx.analysis && ctx.tableId && ctx.onAnalysis ? analysisButton(ctx.tableId, ctx.onAnalysis) : null,
      action));
}

/** A rated seat's rating change ("rating 1500 → 1532 (+32)"), or null. */
function change(ctx, seat) {
  const r = ctx.verdict === "counted" && ctx.ratings ? ctx.ratings[seat] : null;
  return r && r.change ? h("span", { class: "result-rating", testid: `result-rating-${seat}` }, " · ", t("rating_after", r.change)) : null;
}
