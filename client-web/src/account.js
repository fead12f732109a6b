// The session (who is logged in, its CSRF token and settings), the account page
// (/account: sign up, log in, settings, API tokens and the bot account, log out, delete),
// and the turn notification of live games (a browser notification and an optional sound,
// per the account's settings).
import { ApiError, call, setCsrf } from "./api.js";
import { apiTokensPanel } from "./apitokens.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import "./i18n-accounts.js";
import { heldTokens, saveOwner, saveSeat } from "./store.js";

let session = null; // {account, csrf} or null
const listeners = new Set();

/** The logged-in account (`{username, settings, ...}`) or null. */
export const currentAccount = () => (session ? session.account : null);

/** Call `fn` whenever the session changes; returns an unsubscribe function. */
export function onSessionChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function setSession(s) {
  session = s;
  setCsrf(s ? s.csrf : null);
  for (const fn of listeners) fn();
}

/** Ask the server who this browser is (the session cookie is HttpOnly). */
export async function loadSession() {
  try {
    const me = await call("GET", "/api/me"); // a guest: {account: null, csrf: null}
    setSession(me && me.account ? me : null);
  } catch {
    setSession(null);
  }
  return currentAccount();
}

/** Put the seat (and creator token) the account holds at `tableId` into this browser, so
 *  the table page plays it; false when the account holds nothing there. */
export async function adoptSeat(tableId) {
  try {
    const held = await call("GET", `/api/me/tables/${encodeURIComponent(tableId)}`);
    if (held.seat !== null && held.token) saveSeat(tableId, { seat: held.seat, token: held.token, name: currentAccount().username });
    if (held.owner_token) saveOwner(tableId, held.owner_token);
    return true;
  } catch {
    return false;
  }
}

// ---- your turn (live games) ----------------------------------------------------------
let audio = null;
function beep() {
  try {
    audio ||= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch { /* no audio */ }
}

/** Ask once for the permission to notify (browsers allow it only on a click): when an
 *  account that wants browser notifications takes a seat and the browser has not been
 *  asked yet. The browser remembers the answer. */
export function askNotifyOnce() {
  const a = currentAccount();
  if (a && a.settings.notify_browser && "Notification" in window && Notification.permission === "default") {
    Notification.requestPermission().catch(() => {});
  }
}

/** It has just become this browser's turn at table `name`: tell the player as the
 *  account's settings ask (only while the page is not in front). Returns what was done. */
export function tellTurn(name) {
  const a = currentAccount();
  if (!a) return [];
  const done = [];
  const away = document.hidden || !document.hasFocus();
  if (a.settings.notify_browser && away && "Notification" in window && Notification.permission === "granted") {
    try { new Notification(t("your_turn_notice"), { body: t("your_turn_at", { name }), tag: "cardtable-turn" }); done.push("notification"); } catch { /* blocked */ }
  }
  if (a.settings.notify_sound) { beep(); done.push("sound"); }
  return done;
}

// ---- passkeys (WebAuthn) -------------------------------------------------------------
/** True when this browser can use passkeys with the JSON forms of WebAuthn options. */
export const passkeysSupported = () => !!(window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON);

/** Create a passkey for the logged-in account (the browser asks the authenticator). */
export async function addPasskey() {
  const begun = await call("POST", "/api/me/passkeys/begin", { body: {} });
  const cred = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(begun.options) });
  return call("POST", "/api/me/passkeys", { body: { ticket: begun.ticket, credential: cred.toJSON() } });
}

/** Log in with a passkey of this service; keeps this browser's guest seats too. */
export async function logInWithPasskey() {
  const begun = await call("POST", "/api/account/passkey/begin", { body: {} });
  const cred = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(begun.options) });
  const r = await call("POST", "/api/account/passkey/login", { body: { ticket: begun.ticket, credential: cred.toJSON(), seats: heldTokens() } });
  setSession({ account: r.account, csrf: r.csrf });
  return r.account;
}

// ---- the account page ----------------------------------------------------------------
const errText = (e) => {
  const key = `err_${e.code}`;
  const v = t(key);
  return v === key ? e.message : v;
};

/** Mount /account into `root`; `go(path)` navigates. Returns a cleanup. */
export function accountPage(root, go) {
  const st = { mode: "login", error: null, notice: null, busy: false };
  window.__cardtable = { page: "account" };

  async function submit(form, kind) {
    const data = new FormData(form);
    st.busy = true; st.error = null;
    try {
      const body = { username: (data.get("username") || "").trim(), password: data.get("password") || "", seats: heldTokens() };
      if (kind === "signup" && data.get("email")) body.email = data.get("email").trim();
      const r = await call("POST", kind === "signup" ? "/api/account/signup" : "/api/account/login", { body });
      setSession({ account: r.account, csrf: r.csrf });
      go("/my-games");
      return;
    } catch (e) {
      st.error = e instanceof ApiError ? errText(e) : String(e);
    } finally {
      st.busy = false;
    }
    render();
  }

  function authForms() {
    const login = st.mode === "login";
    const form = h("form", { class: "panel auth", testid: login ? "login-form" : "signup-form", onsubmit: (e) => { e.preventDefault(); submit(form, login ? "login" : "signup"); } },
      h("h2", {}, login ? t("log_in") : t("sign_up")),
      h("div", { class: "field" }, h("label", { for: "a-user" }, t("username")),
        h("input", { id: "a-user", name: "username", required: true, autocomplete: "username", maxlength: 20, testid: "username" })),
      h("div", { class: "field" }, h("label", { for: "a-pw" }, t("password")),
        h("input", { id: "a-pw", name: "password", type: "password", required: true, minlength: login ? null : 8, autocomplete: login ? "current-password" : "new-password", testid: "password" })),
      login ? null : h("div", { class: "field" }, h("label", { for: "a-mail" }, t("email_optional")),
        h("input", { id: "a-mail", name: "email", type: "email", autocomplete: "email", testid: "email" })),
      st.error ? h("p", { class: "error", role: "alert", testid: "auth-error" }, st.error) : null,
      h("button", { type: "submit", class: "primary big", disabled: st.busy, testid: login ? "log-in" : "sign-up" }, login ? t("log_in") : t("sign_up")),
      login && passkeysSupported() ? h("button", { type: "button", class: "big", testid: "passkey-log-in", onclick: async () => {
        try { await logInWithPasskey(); go("/my-games"); } catch (e) { st.error = e instanceof ApiError ? errText(e) : t("passkey_failed"); render(); }
      } }, t("passkey_log_in")) : null,
      login ? h("p", {}, h("button", { type: "button", class: "linkish", testid: "forgot-password", onclick: async () => {
        const username = (new FormData(form).get("username") || "").trim();
        try { await call("POST", "/api/account/password-reset", { body: { username } }); st.error = t("reset_sent"); } catch (e) { st.error = e instanceof ApiError ? errText(e) : String(e); }
        render();
      } }, t("forgot_password"))) : null,
      h("p", {}, h("button", { type: "button", class: "linkish", testid: login ? "to-signup" : "to-login", onclick: () => { st.mode = login ? "signup" : "login"; st.error = null; render(); } },
        login ? t("no_account") : t("have_account"))));
    return h("div", { class: "account" }, form, h("p", { class: "hint" }, t("guest_note")));
  }

  function settingsForm(a) {
    const box = (key) => h("div", { class: "field check" },
      h("input", { type: "checkbox", id: `s-${key}`, name: key, checked: a.settings[key], testid: `set-${key}` }),
      h("label", { for: `s-${key}` }, t(`set_${key}`)));
    const form = h("form", { class: "panel", testid: "settings-form", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const change = { email: (data.get("email") || "").trim() };
      for (const k of ["email_turn", "email_end", "email_invite", "notify_browser", "notify_sound"]) change[k] = data.get(k) === "on";
      // Permission is asked once, when the player turns browser notifications on.
      if (change.notify_browser && "Notification" in window && Notification.permission === "default") {
        try { await Notification.requestPermission(); } catch { /* refused */ }
      }
      try {
        const r = await call("PATCH", "/api/me/settings", { body: change });
        setSession({ ...session, account: r.account });
        st.notice = t("saved"); st.error = null;
      } catch (err) { st.error = errText(err); }
      render();
    } },
    h("h2", {}, t("settings")),
    h("div", { class: "field" }, h("label", { for: "s-email" }, t("email")),
      h("input", { id: "s-email", name: "email", type: "email", value: a.email || "", testid: "set-email" })),
    box("email_turn"), box("email_end"), box("email_invite"), box("notify_browser"), box("notify_sound"),
    st.notice ? h("p", { class: "notice", role: "status", testid: "settings-saved" }, st.notice) : null,
    h("button", { type: "submit", class: "primary", testid: "save-settings" }, t("save")));
    return form;
  }

  function passwordForm() {
    const form = h("form", { class: "panel", testid: "password-form", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      try {
        const r = await call("POST", "/api/me/password", { body: { current: data.get("current") || "", password: data.get("password") || "" } });
        st.pwNotice = t("password_changed", { n: r.ended }); st.pwError = null;
      } catch (err) {
        st.pwError = err instanceof ApiError && err.code === "bad_login" ? t("err_wrong_current") : errText(err); st.pwNotice = null;
      }
      render();
    } },
    h("h2", {}, t("change_password")),
    h("div", { class: "field" }, h("label", { for: "p-cur" }, t("current_password")),
      h("input", { id: "p-cur", name: "current", type: "password", required: true, autocomplete: "current-password", testid: "current-password" })),
    h("div", { class: "field" }, h("label", { for: "p-new" }, t("new_password")),
      h("input", { id: "p-new", name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password", testid: "new-password" })),
    st.pwError ? h("p", { class: "error", role: "alert", testid: "password-error" }, st.pwError) : null,
    st.pwNotice ? h("p", { class: "notice", role: "status", testid: "password-changed" }, st.pwNotice) : null,
    h("button", { type: "submit", class: "primary", testid: "change-password" }, t("change_password")));
    return form;
  }

  /** /account?reset=<token> (the link of the reset mail): choose a new password. */
  function resetForm(token) {
    const form = h("form", { class: "panel auth", testid: "reset-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const r = await call("POST", "/api/account/password-reset/confirm", { body: { token, password: new FormData(form).get("password") || "", seats: heldTokens() } });
        history.replaceState(null, "", "/account");
        setSession({ account: r.account, csrf: r.csrf });
        go("/my-games");
        return;
      } catch (err) { st.error = errText(err); }
      render();
    } },
    h("h2", {}, t("reset_password")),
    h("div", { class: "field" }, h("label", { for: "r-pw" }, t("new_password")),
      h("input", { id: "r-pw", name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password", testid: "reset-password" })),
    st.error ? h("p", { class: "error", role: "alert", testid: "auth-error" }, st.error) : null,
    h("button", { type: "submit", class: "primary big", testid: "reset-submit" }, t("reset_password")));
    return h("div", { class: "account" }, form);
  }

  function deleteForm() {
    const form = h("form", { class: "panel danger", testid: "delete-form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await call("DELETE", "/api/me", { body: { password: new FormData(form).get("password") || "" } });
        setSession(null);
        go("/");
      } catch (err) { st.error = errText(err); render(); }
    } },
    h("h2", {}, t("delete_account")), h("p", { class: "hint" }, t("delete_hint")),
    h("div", { class: "field" }, h("label", { for: "d-pw" }, t("password")),
      h("input", { id: "d-pw", name: "password", type: "password", required: true, autocomplete: "current-password", testid: "delete-password" })),
    h("button", { type: "submit", class: "danger", testid: "delete-account" }, t("delete_confirm")));
    return form;
  }

  function render() {
    const a = currentAccount();
    const reset = new URLSearchParams(location.search).get("reset");
    if (!a && reset) return mount(root, resetForm(reset));
    if (!a) return mount(root, authForms());
    mount(root, h("div", { class: "account" },
      h("section", { class: "panel" }, h("h1", {}, t("account")),
        h("p", { testid: "logged-in-as" }, t("logged_in_as", { name: a.username }), " · ",
          h("a", { href: `/players/${encodeURIComponent(a.username)}`, "data-link": true, testid: "my-profile" }, t("profile"))),
        st.error ? h("p", { class: "error", role: "alert" }, st.error) : null,
        h("button", { type: "button", class: "ghost", testid: "log-out", onclick: async () => {
          try { await call("POST", "/api/account/logout", { body: {} }); } catch { /* gone anyway */ }
          setSession(null); go("/");
        } }, t("log_out"))),
      passkeysSupported() ? h("section", { class: "panel", testid: "passkeys" }, h("h2", {}, t("passkeys")),
        h("p", { class: "hint" }, t("passkeys_hint")),
        h("p", { testid: "passkey-count" }, t("passkeys_n", { n: st.passkeys ?? "…" })),
        st.pkNotice ? h("p", { class: "notice", role: "status", testid: "passkey-added" }, st.pkNotice) : null,
        h("button", { type: "button", testid: "add-passkey", onclick: async () => {
          try { const r = await addPasskey(); st.passkeys = r.passkeys; st.pkNotice = t("passkey_added"); st.error = null; } catch (e) { st.error = e instanceof ApiError ? errText(e) : t("passkey_failed"); }
          render();
        } }, t("add_passkey"))) : null,
      settingsForm(a), passwordForm(),
      apiTokensPanel(a, errText, (account) => { session.account = account; }), deleteForm()));
  }

  async function countPasskeys() {
    if (!currentAccount()) return;
    try {
      st.passkeys = (await call("GET", "/api/me/passkeys")).passkeys.length;
      // Only the count: a whole render would wipe what the player is typing meanwhile.
      const count = root.querySelector("[data-testid='passkey-count']");
      if (count) count.textContent = t("passkeys_n", { n: st.passkeys });
    } catch { /* keep "…" */ }
  }
  render();
  countPasskeys();
  const off = onSessionChange(() => { render(); countPasskeys(); });
  const offLang = onLangChange(() => { render(); countPasskeys(); });
  return () => { off(); offLang(); };
}
