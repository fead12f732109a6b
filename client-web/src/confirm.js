// A confirmation in the page's own dialog, never the browser's built-in one: it speaks the
// page's language, is styled and focusable like the rest of the page, can be tested, and
// does not block the page's script (deltas keep arriving while it is open). The table page
// hosts it (its `openDialog`), as it hosts a game's choices.
import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * The dialog element asking `question`; `yes` the label of the confirming button. `onYes()`
 * runs on confirming, `onCancel()` on declining. Testids: `confirm-dialog`, `confirm-text`,
 * `confirm-yes`, `confirm-cancel`.
 */
export function confirmDialog(question, yes, { onYes, onCancel }) {
  return h("div", { class: "dialog confirm", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "confirm-text", testid: "confirm-dialog" },
    h("p", { id: "confirm-text", testid: "confirm-text" }, question),
    h("div", { class: "confirm-buttons" },
      h("button", { type: "button", class: "primary", testid: "confirm-yes", onclick: onYes }, yes),
      h("button", { type: "button", class: "ghost", testid: "confirm-cancel", onclick: onCancel }, t("cancel"))));
}
