// Reporting a player to the moderators (docs/protocol.md, "Moderation"): a small dialog
// with a reason from the server's fixed list and an optional text, opened from a seat of
// the table page, a chat message or a profile. Accounts only: the button shows only to a
// logged-in account, for another account (a guest's seat names no account). The server
// checks everything again; its refusal (already reported, too many reports) is shown.
import { call } from "./api.js";
import { currentAccount } from "./account.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import "./i18n-moderation.js";

export const REASONS = ["abuse", "cheating", "spam", "name", "stalling", "other"];

/** True when the page's account may report `name` (logged in, not itself). */
export function mayReport(name) {
  const me = currentAccount();
  return !!(me && name && me.username !== name);
}

/** Open the report dialog for account `target`; `context`: {table, seat?, message?};
 *  `quote`: the reported chat message's text as shown, quoted above the reason. */
export function openReport(target, context = {}, quote = null) {
  const host = h("div", { class: "report-host" });
  document.body.appendChild(host);
  const st = { reason: "abuse", text: "", error: null, done: false, busy: false };
  const close = () => host.remove();

  async function submit(e) {
    e.preventDefault();
    if (st.busy) return;
    st.busy = true;
    st.error = null;
    try {
      await call("POST", "/api/reports", { body: { target, reason: st.reason, text: st.text, ...context } });
      st.done = true;
    } catch (err) {
      st.error = t(`report_err_${err.code}`) === `report_err_${err.code}` ? err.message : t(`report_err_${err.code}`);
    }
    st.busy = false;
    render();
  }

  function render() {
    const body = st.done
      ? [h("p", { testid: "report-done" }, t("report_done", { name: target })),
        h("div", { class: "confirm-buttons" }, h("button", { type: "button", class: "primary", testid: "report-close", onclick: close }, t("report_close")))]
      : [h("h2", { id: "report-title" }, t("report_title", { name: target })),
        quote ? h("blockquote", { class: "report-quote", testid: "report-quote" }, quote) : null,
        h("label", {}, t("report_reason"), " ",
          h("select", { testid: "report-reason", onchange: (e) => { st.reason = e.target.value; } },
            REASONS.map((r) => h("option", { value: r, selected: r === st.reason }, t(`report_reason_${r}`))))),
        h("label", {}, t("report_text"), " ",
          h("textarea", { testid: "report-text", maxlength: 500, rows: 3, oninput: (e) => { st.text = e.target.value; } }, st.text)),
        st.error ? h("p", { class: "error", role: "alert", testid: "report-error" }, st.error) : null,
        h("div", { class: "confirm-buttons" },
          h("button", { type: "submit", class: "primary", testid: "report-send" }, t("report_send")),
          h("button", { type: "button", class: "ghost", testid: "report-cancel", onclick: close }, t("cancel")))];
    mount(host, h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget) close(); },
      onkeydown: (e) => { if (e.key === "Escape") close(); } },
    h("form", { class: "dialog report", role: "dialog", "aria-modal": "true", "aria-labelledby": "report-title", testid: "report-dialog", onsubmit: submit }, body)));
    const first = host.querySelector("select, button");
    if (first && !st.error) first.focus();
  }
  render();
}

/** A small "Report" button for account `target` (null when this page may not report it);
 *  `quote` as for `openReport`. */
export function reportButton(target, context, testid, quote = null) {
  if (!mayReport(target)) return null;
  return h("button", { type: "button", class: "ghost tiny", testid, title: t("report"), "aria-label": `${t("report")}: ${target}`,
    onclick: () => openReport(target, context, quote) }, t("report"));
}
