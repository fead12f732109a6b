// Friends in the page (docs/protocol.md, "Invitations by name"): the invitations of the
// logged-in account shown in every page as they come (the /ws/me socket), the table page's
// "invite by name" field, taking the seat an invitation holds (/table/<id>#invited), and
// the follow and block buttons of a profile.
import { ApiError, call } from "./api.js";
import { currentAccount, onSessionChange } from "./account.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import "./i18n-friends.js";

const tableApi = (id) => `/api/tables/${encodeURIComponent(id)}`;

/** The error text of a refused call (its code's text, else the server's message). */
const errText = (e) => (e instanceof ApiError && t(`fr_err_${e.code}`) !== `fr_err_${e.code}` ? t(`fr_err_${e.code}`) : e.message);

// ---- the invitations bar (every page) ---------------------------------------------

/** Show the account's invitations in `bar` (an element of the page's frame) while a
 *  session is open: one line per invitation with a link that seats it. Reconnects after a
 *  lost socket; the dismissed ones stay dismissed for this page's life. */
export function installInvitations(bar) {
  let ws = null;
  let list = [];
  let retry = null;
  let who = null;
  const dismissed = new Set();
  const key = (i) => `${i.table}:${i.at}`;

  function render() {
    const shown = list.filter((i) => !dismissed.has(key(i)) && !location.pathname.endsWith(`/table/${i.table}`));
    bar.hidden = !shown.length;
    mount(bar, shown.map((i) => h("div", { class: "invitation", role: "status", testid: `invitation-${i.table}` },
      h("span", {}, t("fr_invited", { by: i.by, name: i.name })), " ",
      h("a", { class: "button primary small", href: `/table/${encodeURIComponent(i.table)}#invited`, testid: `accept-invitation-${i.table}`,
        onclick: () => { dismissed.add(key(i)); } }, t("fr_take_seat")), " ",
      h("button", { type: "button", class: "ghost small", testid: `dismiss-invitation-${i.table}`,
        onclick: () => { dismissed.add(key(i)); render(); } }, t("fr_dismiss")))));
  }

  function open() {
    clearTimeout(retry);
    const account = currentAccount();
    who = account ? account.username : null;
    if (!account) { list = []; render(); return; }
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const sock = new WebSocket(`${proto}//${location.host}/ws/me`);
    ws = sock;
    sock.onmessage = (e) => {
      let m = null;
      try { m = JSON.parse(e.data); } catch { return; }
      if (m && m.t === "invitations") { list = m.invitations || []; render(); }
    };
    sock.onclose = (e) => {
      if (ws !== sock) return; // replaced (another session)
      ws = null;
      if (e.code !== 4001 && currentAccount()) retry = setTimeout(open, 3000);
    };
  }

  function close() {
    clearTimeout(retry);
    if (ws) { const sock = ws; ws = null; sock.close(1000); }
  }

  onSessionChange(() => {
    const account = currentAccount();
    if ((account ? account.username : null) === who && ws) return;
    close();
    open();
  });
  onLangChange(render);
  window.addEventListener("popstate", render);
  // The bar's links stay in the app; each page change may hide the one of its own table.
  bar.addEventListener("click", () => setTimeout(render, 0));
  open();
}

// ---- the table page ---------------------------------------------------------------

/** Take the seat the logged-in account's invitation holds at table `id` (the page was
 *  opened at `/table/<id>#invited`); returns `{seat, token}` or null (no invitation, not
 *  logged in, or refused: `onError` gets the text). */
export async function acceptInvitation(id, onError) {
  if (new URLSearchParams(location.hash.slice(1)).get("invited") === null) return null;
  history.replaceState(null, "", location.pathname + location.search); // once
  const account = currentAccount();
  if (!account) { onError(t("fr_log_in_first")); return null; }
  try {
    return await call("POST", `${tableApi(id)}/join`, { body: { name: account.username, invited: true } });
  } catch (e) {
    onError(errText(e));
    return null;
  }
}

/** The "invite by name" form of table `id` for a logged-in account; `token()` gives the
 *  caller's seat or owner token (the server accepts either). Built once per page so that
 *  redrawing the seating keeps what is typed. */
export function inviteForm(id, token) {
  const status = h("span", { class: "hint", role: "status", testid: "invite-status" });
  const input = h("input", { id: "invite-name", testid: "invite-name", maxlength: 64, autocomplete: "off", "aria-label": t("fr_invite_name") });
  const form = h("form", { class: "invite-form", testid: "invite-form", onsubmit: async (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    try {
      const r = await call("POST", `${tableApi(id)}/invitations`, { body: { name }, token: token() || undefined });
      status.textContent = t("fr_invite_sent", { name: r.invited });
      input.value = "";
    } catch (err) {
      status.textContent = errText(err);
    }
  } }, h("label", { for: "invite-name" }, t("fr_invite_name")), " ", input, " ",
  h("button", { type: "submit", class: "small", testid: "invite-send" }, t("fr_invite")), " ", status);
  return form;
}

// ---- a profile's buttons ------------------------------------------------------------

/** Follow and block buttons for the profile of `name` (nothing for oneself or a guest). */
export function socialButtons(name) {
  const me = currentAccount();
  const box = h("div", { class: "social", testid: "profile-social" });
  if (!me || me.username.toLowerCase() === name.toLowerCase()) return box;
  const st = { following: false, blocked: false, error: null };
  const same = (list) => (list || []).some((n) => n.toLowerCase() === name.toLowerCase());
  function render() {
    mount(box,
      h("button", { type: "button", class: "small", testid: "follow", disabled: st.blocked,
        onclick: () => change(`/api/me/follows/${encodeURIComponent(name)}`, st.following ? "DELETE" : "PUT") },
      st.following ? t("fr_unfollow") : t("fr_follow")), " ",
      h("button", { type: "button", class: "small ghost", testid: "block",
        onclick: () => change(`/api/me/blocks/${encodeURIComponent(name)}`, st.blocked ? "DELETE" : "PUT") },
      st.blocked ? t("fr_unblock") : t("fr_block")),
      st.error ? h("p", { class: "error", testid: "social-error" }, st.error) : null);
  }
  async function load() {
    try {
      const [friends, blocks] = await Promise.all([call("GET", "/api/me/friends"), call("GET", "/api/me/blocks")]);
      st.following = same(friends.friends.map((f) => f.username));
      st.blocked = same(blocks.blocked);
    } catch (e) { st.error = errText(e); }
    render();
  }
  async function change(path, method) {
    try {
      const r = await call(method, path);
      if (r.following) st.following = same(r.following);
      if (r.blocked) { st.blocked = same(r.blocked); if (st.blocked) st.following = false; }
      st.error = null;
    } catch (e) { st.error = errText(e); }
    render();
  }
  render();
  load();
  return box;
}

// ---- the friends list ("My games") --------------------------------------------------

/** Fill `box` with the accounts the session's account follows: online or not, and the
 *  public tables where each sits now, each a link to watch it (GET /api/me/friends).
 *  Returns a function that loads it again (the page calls it at its refresh). */
export function friendsList(box) {
  async function load() {
    let friends;
    try {
      friends = (await call("GET", "/api/me/friends")).friends;
    } catch (e) {
      return mount(box, h("section", { class: "panel" }, h("h2", {}, t("fr_friends")), h("p", { class: "error" }, errText(e))));
    }
    return mount(box, h("section", { class: "panel", testid: "friends-list" }, h("h2", {}, t("fr_friends")),
      friends.length ? h("ul", { class: "friends" }, friends.map((f) => h("li", { testid: `friend-${f.username}` },
        h("a", { href: `/players/${encodeURIComponent(f.username)}`, "data-link": true }, f.username), " ",
        h("span", { class: `badge${f.online ? " online" : ""}`, testid: `friend-online-${f.username}`, dataset: { online: f.online ? "1" : "0" } },
          f.online ? t("fr_online") : t("fr_offline")),
        f.tables.length ? [" · ", f.tables.map((x, i) => [i ? ", " : "",
          h("a", { href: `/table/${encodeURIComponent(x.id)}`, "data-link": true, testid: `friend-table-${x.id}` },
            t(x.status === "running" ? "fr_watch" : "fr_join_or_watch", { name: x.name || x.id }))])] : null)))
        : h("p", { class: "empty" }, t("fr_no_friends"))));
  }
  load();
  return load;
}
