// Einauge's row choice: a ship bought or won may join a color row or lie alone (RULES
// "Ships"), so one click on its button can mean several legal actions. This dialog lists
// them with what each row would pay, as the prompt's details say; the table page only
// hosts it (ctx.openDialog / ctx.closeDialog) and knows nothing of rows.
import { h } from "../../dom.js";
import { listWords, t } from "../../i18n.js";
import { colorName } from "./texts.js";
import { rulesHref } from "../../rulesnav.js";

/** "pays 2 sabres and 3 ducats" from a row's prompt detail (`{payout: {sabres, ducats,
 *  jewels}}`); "" when the detail has no payout. */
export function payoutText(d) {
  if (!d || !d.payout) return "";
  const parts = [];
  if (d.payout.sabres) parts.push(t("sabre_s", { n: d.payout.sabres }));
  if (d.payout.ducats) parts.push(t("ducat_s", { n: d.payout.ducats }));
  if (d.payout.jewels) parts.push(t("jewel_s", { n: d.payout.jewels }));
  return t("pays", { what: parts.length ? listWords(parts) : t("nothing") });
}

/**
 * The dialog element for `card`'s `actions` (legal actions differing only in `row`: a
 * color or "alone"). `detailOf`: Map action -> prompt detail (actions.js). `onAction(a)`
 * sends the chosen one, `onCancel()` closes without a move. Testids: `row-choice`,
 * `row-opt-<row>`, `row-pay-<row>` (its `data-payout` the server's payout), `row-rules`,
 * `row-cancel`.
 */
export function rowChoiceDialog(card, actions, detailOf, { onAction, onCancel }) {
  const opts = actions.map((a) => {
    const d = detailOf.get(a);
    return h("button", { type: "button", class: "primary row-opt", testid: `row-opt-${a.row}`, onclick: () => onAction(a) },
      h("b", {}, a.row === "alone" ? t("row_alone") : t("row_color", { color: colorName(a.row) })),
      d ? h("span", { class: "row-pay", testid: `row-pay-${a.row}`, dataset: { payout: JSON.stringify(d.payout) } }, payoutText(d)) : null,
      d && d.chests ? h("span", { class: "row-pay" }, t("row_chests", { n: d.chests })) : null);
  });
  const first = detailOf.get(actions[0]);
  const cost = first && first.cost
    ? h("p", { class: "hint" }, first.cost.ducats !== undefined ? t("cost_ducats", { n: first.cost.ducats }) : t("cost_sabres", { n: first.cost.sabres }))
    : null;
  return h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "row-choice-title", testid: "row-choice" },
    h("h2", { id: "row-choice-title" }, t("choose_row", { card })),
    cost,
    h("div", { class: "row-opts" }, opts),
    h("a", { href: `${rulesHref("einauge")}#ships`, target: "_blank", rel: "noopener", class: "hint", testid: "row-rules" }, t("rules_hint")),
    h("button", { type: "button", class: "ghost", testid: "row-cancel", onclick: onCancel }, t("cancel")));
}

/** The board's `ctx.onChoose(card, actions)` for a table page offering `ctx.openDialog`
 *  (a view without it, the replay's, has no actions to choose among). */
export function chooseRow(card, actions, ctx) {
  const detailOf = (ctx.actions && ctx.actions.detailOf) || new Map();
  ctx.openDialog(rowChoiceDialog(card, actions, detailOf, { onAction: ctx.onAction, onCancel: ctx.closeDialog }));
}
