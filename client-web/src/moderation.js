// The moderation page (/moderation; docs/operations.md, "Moderation"): the queue of open
// reports and fair-play flags, each with its context (the table, the seat, the chat lines
// around a reported message as they were when it was filed), and the actions on the
// reported account: mute or suspend for some minutes, force a rename, or dismiss. Each
// action resolves the report on the server and lands in the audit log; the server decides
// who may do what and its refusal is shown as it words it.
import { call } from "./api.js";
import { currentAccount } from "./account.js";
import { h, mount } from "./dom.js";
import { dateTimeText, onLangChange, t } from "./i18n.js";
import "./i18n-accounts.js";
import "./i18n-moderation.js";

const A = "/api/admin";
const enc = encodeURIComponent;
const when = (s) => dateTimeText(s);

/** Mount the moderation page into `root`; returns a cleanup. */
export function moderationPage(root) {
  window.__cardtable = { page: "moderation" };
  const me = currentAccount();
  const st = { reports: null, error: null, done: null, minutes: {}, renames: {} };

  async function load(show = true) {
    try {
      st.reports = (await call("GET", `${A}/reports?limit=200`)).reports;
    } catch (e) {
      st.error = e.message;
      st.reports = [];
    }
    if (show) render();
  }

  async function act(method, path, body) {
    st.error = null;
    st.done = null;
    try {
      const r = await call(method, path, { body });
      st.done = r.audit ? `${r.audit.action} · ${r.audit.detail && r.audit.detail.username ? r.audit.detail.username : r.audit.target}` : null;
    } catch (e) {
      st.error = e.message;
    }
    await load(false);
    render();
  }

  const minutesOf = (id) => Number(st.minutes[id] || 60);

  /** The action buttons for account `name` of report `r`. */
  function actions(r, name) {
    const key = `${r.id}-${name}`;
    return h("div", { class: "row mod-actions" },
      h("label", {}, t("mod_minutes"), " ", h("input", { type: "number", min: 1, max: 43200, class: "small", testid: `mod-minutes-${key}`,
        value: st.minutes[r.id] || "60", oninput: (e) => { st.minutes[r.id] = e.target.value; } })),
      h("button", { type: "button", class: "small", testid: `mod-mute-${key}`,
        onclick: () => act("POST", `${A}/accounts/${enc(name)}/mute`, { minutes: minutesOf(r.id), report: r.id }) }, t("mod_mute")),
      h("button", { type: "button", class: "small danger", testid: `mod-suspend-${key}`,
        onclick: () => act("POST", `${A}/accounts/${enc(name)}/suspend`, { minutes: minutesOf(r.id), report: r.id }) }, t("mod_suspend")),
      h("input", { class: "small", testid: `mod-rename-to-${key}`, placeholder: t("mod_new_name"), "aria-label": `${t("mod_new_name")}: ${name}`, value: st.renames[key] || "",
        oninput: (e) => { st.renames[key] = e.target.value; } }),
      h("button", { type: "button", class: "ghost small", testid: `mod-rename-${key}`,
        onclick: () => act("POST", `${A}/accounts/${enc(name)}/rename`, { username: st.renames[key] || "", report: r.id }) }, t("mod_rename")));
  }

  function chatLines(r) {
    if (!r.chat || !r.chat.length) return null;
    return h("div", {}, h("h3", {}, t("mod_chat")),
      h("ol", { class: "chat-log mod-chat", testid: `mod-chat-${r.id}` }, r.chat.map((m) => h("li", {
        class: `chat-msg${m.id === r.message ? " reported" : ""}`, testid: m.id === r.message ? "mod-chat-reported" : "mod-chat-line" },
      h("b", {}, (m.from && m.from.name) || "?"), " ", m.text !== undefined ? m.text : m.quick))));
  }

  function item(r) {
    const now = r.target_now || {};
    const table = r.table ? [t("mod_table"), " ", h("a", { href: `/table/${enc(r.table)}`, "data-link": true, testid: `mod-table-${r.id}` }, r.table),
      r.game ? ` (${r.game})` : "", r.seat !== undefined ? ` · ${t("mod_seat", { n: r.seat + 1 })}` : ""] : null;
    const accounts = r.kind === "fairplay" ? (r.accounts || []).map((a) => a.username) : [now.username || r.target_name];
    return h("li", { class: "panel mod-report", testid: `mod-report-${r.id}`, dataset: { target: r.target_name || "" } },
      h("p", {}, h("b", {}, r.kind === "fairplay" ? t("mod_flag") : t("mod_reported_by", { by: r.reporter_name, name: r.target_name })),
        " · ", when(r.at)),
      r.kind === "report" ? h("p", { testid: `mod-reason-${r.id}` }, t("mod_reason", { reason: t(`report_reason_${r.reason}`) }),
        r.text ? [" — ", h("q", {}, r.text)] : null) : null,
      now.muted_until ? h("p", { class: "badge", testid: `mod-muted-${r.id}` }, t("mod_muted_until", { until: when(now.muted_until) })) : null,
      now.suspended_until ? h("p", { class: "badge", testid: `mod-suspended-${r.id}` }, t("mod_suspended_until", { until: when(now.suspended_until) })) : null,
      table ? h("p", {}, table) : null,
      chatLines(r),
      accounts.map((name) => h("div", {}, r.kind === "fairplay" ? h("b", {}, name) : null, actions(r, name))),
      h("button", { type: "button", class: "ghost small", testid: `mod-dismiss-${r.id}`, onclick: () => act("POST", `${A}/reports/${enc(r.id)}/dismiss`, {}) }, t("mod_dismiss")));
  }

  function render() {
    if (!me || !me.roles || !me.roles.length) {
      mount(root, h("section", { class: "panel", testid: "moderation" }, h("h1", {}, t("mod_title")),
        h("p", { testid: "moderation-denied" }, t("admin_denied"))));
      return;
    }
    mount(root, h("section", { class: "moderation", testid: "moderation" },
      h("h1", {}, t("mod_title")),
      st.error ? h("p", { class: "error", testid: "mod-error" }, st.error) : null,
      st.done ? h("p", { testid: "mod-done" }, t("mod_done", { what: st.done })) : null,
      h("h2", {}, t("mod_queue")),
      st.reports === null ? h("p", {}, t("loading"))
        : !st.reports.length ? h("p", { class: "empty", testid: "mod-empty" }, t("mod_empty"))
          : h("ul", { class: "mod-queue", testid: "mod-queue" }, st.reports.map(item))));
  }

  render();
  if (me && me.roles && me.roles.length) load();
  return onLangChange(render);
}
