// The account page's part for programs (docs/bot-api.md): personal API tokens (create,
// shown once; list; revoke) and the one-way turn of the account into a bot account.
// Mounted by account.js; every call goes with the page's session and CSRF token.
import { ApiError, call } from "./api.js";
import { confirmDialog } from "./confirm.js";
import { h, mount } from "./dom.js";
import { dateTimeText, t } from "./i18n.js";
import "./i18n-bot-api.js";

const when = (s) => (s ? dateTimeText(s) : t("tok_never"));

/** The panel for account `a` (`{username, bot, …}`). `errText(e)` words an ApiError;
 *  `changed(account)` is called with the account after its conversion to a bot. */
export function apiTokensPanel(a, errText, changed) {
  const st = { tokens: null, shown: null, error: null, confirmBot: false, revoking: null };
  const section = h("section", { class: "panel", testid: "api-tokens" });
  const fail = (e) => { st.error = e instanceof ApiError ? errText(e) : String(e); draw(); };

  async function load() {
    try { st.tokens = (await call("GET", "/api/account/tokens")).tokens; } catch (e) { fail(e); return; }
    draw();
  }

  function tokenForm() {
    const form = h("form", { class: "field-row", testid: "token-form", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      try {
        const made = await call("POST", "/api/account/tokens", { body: { name: data.get("name") || "", scope: data.get("scope") } });
        // The only time the token's text exists outside the program that uses it.
        st.shown = made; st.error = null;
        await load();
      } catch (err) { fail(err); }
    } },
    h("label", { for: "tok-name" }, t("tok_name")),
    h("input", { id: "tok-name", name: "name", required: true, maxlength: 40, testid: "token-name" }),
    h("select", { name: "scope", testid: "token-scope", "aria-label": t("tok_scope") },
      h("option", { value: "play" }, t("tok_scope_play")),
      h("option", { value: "read" }, t("tok_scope_read"))),
    h("button", { type: "submit", class: "primary", testid: "create-token" }, t("tok_create")));
    return form;
  }

  function tokenList() {
    if (st.tokens === null) return h("p", {}, "…");
    if (!st.tokens.length) return h("p", { class: "hint", testid: "no-tokens" }, t("tok_none"));
    return h("table", { class: "tokens", testid: "token-list" },
      h("thead", {}, h("tr", {}, h("th", {}, t("tok_name")), h("th", {}, t("tok_scope")),
        h("th", {}, t("tok_created")), h("th", {}, t("tok_last_used")), h("th", {}, ""))),
      h("tbody", {}, ...st.tokens.map((tok) => h("tr", { testid: "token-row" },
        h("td", { testid: "token-row-name" }, tok.name),
        h("td", {}, tok.scope === "play" ? t("tok_scope_play") : t("tok_scope_read")),
        h("td", {}, when(tok.created_at)), h("td", {}, when(tok.last_used)),
        h("td", {}, h("button", { type: "button", class: "danger", testid: "revoke-token", onclick: () => { st.revoking = tok; draw(); } },
          t("tok_revoke")))))));
  }

  // Revoking cannot be undone (the program using the token stops at once): asked first.
  function revokeQuestion() {
    const tok = st.revoking;
    if (!tok) return null;
    const el = confirmDialog(t("tok_revoke_q", { name: tok.name }), t("tok_revoke"), {
      onYes: async () => {
        st.revoking = null;
        try {
          await call("DELETE", `/api/account/tokens/${encodeURIComponent(tok.id)}`);
          if (st.shown && st.shown.id === tok.id) st.shown = null;
          await load();
        } catch (e) { fail(e); }
      },
      onCancel: () => { st.revoking = null; draw(); },
    });
    queueMicrotask(() => { const c = el.querySelector("[data-testid=confirm-cancel]"); if (c) c.focus(); });
    return el;
  }

  function botPart() {
    if (a.bot) return h("p", { class: "notice", testid: "is-bot-account" }, t("bot_is_bot"));
    if (!st.confirmBot) {
      return h("button", { type: "button", testid: "bot-convert", onclick: () => { st.confirmBot = true; draw(); } }, t("bot_convert"));
    }
    const form = h("form", { class: "danger", testid: "bot-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const r = await call("POST", "/api/account/bot", { body: { password: new FormData(form).get("password") || "" } });
        a.bot = true; st.confirmBot = false; st.error = null;
        changed(r.account);
        draw();
      } catch (err) { fail(err); }
    } },
    h("p", { class: "warning", role: "alert", testid: "bot-warning" }, t("bot_warning")),
    h("div", { class: "field" }, h("label", { for: "b-pw" }, t("password")),
      h("input", { id: "b-pw", name: "password", type: "password", required: true, autocomplete: "current-password", testid: "bot-password" })),
    h("button", { type: "submit", class: "danger", testid: "bot-confirm" }, t("bot_confirm")),
    h("button", { type: "button", class: "ghost", testid: "bot-cancel", onclick: () => { st.confirmBot = false; draw(); } }, t("bot_cancel")));
    return form;
  }

  function draw() {
    mount(section,  // (mount leaves out the null parts: replaceChildren wrote "null")
      h("h2", {}, t("tok_title")),
      h("p", { class: "hint" }, t("tok_hint")),
      st.error ? h("p", { class: "error", role: "alert", testid: "token-error" }, st.error) : null,
      st.shown ? h("div", { class: "notice", role: "status", testid: "token-shown" },
        h("p", {}, t("tok_shown_once", { name: st.shown.name })),
        h("code", { testid: "token-text" }, st.shown.token)) : null,
      tokenList(), revokeQuestion(), tokenForm(),
      h("h3", {}, t("bot_title")), botPart());
  }

  draw();
  load();
  return section;
}
