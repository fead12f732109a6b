// The administration page (/admin; docs/operations.md, "Administration"): find accounts
// and ban, unban, rename, delete them or grant and revoke roles; clear a login lockout;
// remove a chat message; abort an open table or void a running game; the audit log. The server decides who may
// do what (an admin everything, a moderator finding, bans of accounts without a role,
// chat removal and the log); a refusal is shown as the server words it.
import { call } from "./api.js";
import { currentAccount } from "./account.js";
import { h, mount } from "./dom.js";
import { dateTimeText, onLangChange, t } from "./i18n.js";
import "./i18n-accounts.js";

const A = "/api/admin";
const enc = encodeURIComponent;

/** Mount the administration page into `root`; returns a cleanup. */
export function adminPage(root) {
  window.__cardtable = { page: "admin" };
  const me = currentAccount();
  const state = { q: "", accounts: null, audit: null, error: null, done: null, renames: {}, deleting: null,
    unlockName: "", unlockAddress: "", chatTable: "", chatMessage: "", abortTable: "" };

  const field = (key, testid, label) => h("label", {}, label, " ",
    h("input", { testid, value: state[key], oninput: (e) => { state[key] = e.target.value; } }));

  async function act(method, path, body) {
    state.error = null;
    state.done = null;
    try {
      const r = await call(method, path, body === undefined ? {} : { body });
      state.done = r.audit ? `${r.audit.action} · ${r.audit.target}` : null;
    } catch (e) {
      state.error = e.message;
    }
    state.deleting = null;
    await Promise.all([find(false), loadAudit(false)]);
    render();
  }

  async function find(show = true) {
    try {
      state.accounts = (await call("GET", `${A}/accounts?q=${enc(state.q)}`)).accounts;
    } catch (e) {
      state.error = e.message;
      state.accounts = [];
    }
    if (show) render();
  }

  async function loadAudit(show = true) {
    try {
      state.audit = (await call("GET", `${A}/audit?count=50`)).entries;
    } catch (e) {
      state.audit = [];
    }
    if (show) render();
  }

  function roleButton(a, role) {
    const has = a.roles.includes(role);
    return h("button", { type: "button", class: "ghost small", testid: `${has ? "revoke" : "grant"}-${role}-${a.username}`,
      onclick: () => act(has ? "DELETE" : "PUT", `${A}/accounts/${enc(a.username)}/roles/${role}`) },
    t(has ? "admin_revoke" : "admin_grant", { role }));
  }

  function row(a) {
    const name = a.username;
    return h("tr", { testid: `admin-row-${name}` },
      h("td", {}, name, a.bot ? [" ", h("span", { class: "badge" }, t("bot_account"))] : null),
      h("td", { testid: `admin-roles-${name}` }, a.roles.join(", ")),
      h("td", { testid: `admin-banned-${name}` }, a.banned ? t("admin_banned", { reason: a.banned }) : ""),
      h("td", { class: "admin-actions" },
        a.banned
          ? h("button", { type: "button", class: "small", testid: `unban-${name}`,
            onclick: () => act("POST", `${A}/accounts/${enc(name)}/unban`) }, t("admin_unban"))
          : h("button", { type: "button", class: "small", testid: `ban-${name}`,
            onclick: () => act("POST", `${A}/accounts/${enc(name)}/ban`, { reason: "" }) }, t("admin_ban")),
        roleButton(a, "moderator"), roleButton(a, "admin"),
        h("input", { class: "small", testid: `rename-to-${name}`, placeholder: t("admin_new_name"), value: state.renames[name] || "",
          oninput: (e) => { state.renames[name] = e.target.value; } }),
        h("button", { type: "button", class: "ghost small", testid: `rename-${name}`,
          onclick: () => act("POST", `${A}/accounts/${enc(name)}/rename`, { username: state.renames[name] || "" }) },
        t("admin_rename")),
        state.deleting === name
          ? h("button", { type: "button", class: "small danger", testid: `delete-confirm-${name}`,
            onclick: () => act("DELETE", `${A}/accounts/${enc(name)}`) }, t("admin_delete_confirm"))
          : h("button", { type: "button", class: "ghost small", testid: `delete-${name}`,
            onclick: () => { state.deleting = name; render(); } }, t("admin_delete"))));
  }

  function render() {
    if (!me || !me.roles || !me.roles.length) {
      mount(root, h("section", { class: "panel", testid: "admin" }, h("h1", {}, t("admin")),
        h("p", { testid: "admin-denied" }, t("admin_denied"))));
      return;
    }
    mount(root, h("section", { class: "panel admin", testid: "admin" },
      h("h1", {}, t("admin")),
      state.error ? h("p", { class: "error", testid: "admin-error" }, state.error) : null,
      state.done ? h("p", { testid: "admin-done" }, t("admin_done", { what: state.done })) : null,
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); find(); } },
        field("q", "admin-query", t("admin_find")),
        h("button", { type: "submit", testid: "admin-search" }, t("admin_search"))),
      state.accounts === null ? null : !state.accounts.length ? h("p", { class: "empty" }, t("admin_none"))
        : h("table", { class: "games" },
          h("thead", {}, h("tr", {}, [t("username"), t("admin_roles"), t("admin_ban_state"), ""].map((x) => h("th", {}, x)))),
          h("tbody", {}, state.accounts.map(row))),
      h("h2", {}, t("admin_lockout")),
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault();
        act("POST", `${A}/unlock`, { ...(state.unlockName ? { username: state.unlockName } : {}),
          ...(state.unlockAddress ? { address: state.unlockAddress } : {}) }); } },
      field("unlockName", "unlock-name", t("username")), field("unlockAddress", "unlock-address", t("admin_address")),
      h("button", { type: "submit", testid: "unlock" }, t("admin_unlock"))),
      h("h2", {}, t("admin_tables")),
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault();
        act("DELETE", `${A}/tables/${enc(state.chatTable)}/chat/${enc(state.chatMessage)}`); } },
      field("chatTable", "chat-table", t("game_table")), field("chatMessage", "chat-message", t("admin_message")),
      h("button", { type: "submit", testid: "remove-chat" }, t("admin_remove_chat"))),
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); act("POST", `${A}/tables/${enc(state.abortTable)}/abort`); } },
        field("abortTable", "abort-table", t("game_table")),
        h("button", { type: "submit", testid: "abort" }, t("admin_abort")),
        h("button", { type: "button", testid: "void",
          onclick: () => act("POST", `${A}/tables/${enc(state.abortTable)}/void`) }, t("admin_void"))),
      h("h2", {}, t("admin_audit")),
      !state.audit ? h("p", {}, t("loading")) : h("table", { class: "games", testid: "audit" },
        h("tbody", {}, state.audit.map((e) => h("tr", { testid: `audit-${e.id}` },
          h("td", {}, dateTimeText(e.at)), h("td", {}, e.actor),
          h("td", { class: "audit-action" }, e.action), h("td", {}, e.target),
          h("td", {}, JSON.stringify(e.detail))))))));
  }

  render();
  if (me && me.roles && me.roles.length) {
    find();
    loadAudit();
  }
  return onLangChange(render);
}
