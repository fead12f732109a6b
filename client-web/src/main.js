// Entry point: the header (home link, account, language switch) and a small router for
// / (lobby), /table/<id> (live table), /replay/<id> and /replay (replay viewer), /account,
// /my-games, /admin, /players/<name>, /leaderboard, /learn/<game> (a new tutorial) and /rules/<game> (/rules: the server's default
// game's).
import { accountPage, currentAccount, loadSession, onSessionChange } from "./account.js";
import { adminPage } from "./admin.js";
import { moderationPage } from "./moderation.js";
import { h, mount } from "./dom.js";
import { LANGS, currentLang, onLangChange, setLang, t } from "./i18n.js";
import { icons } from "./icons.js";
import { leaderboardPage } from "./leaderboard.js";
import { tournamentPage, tournamentsPage } from "./tournaments.js";
import { hideGameOverlays, installGames } from "./games/index.js";
import { lobbyPage } from "./lobby.js";
import { myGamesPage } from "./mygames.js";
import { profilePage } from "./profile.js";
import { installInvitations } from "./friends.js";
import { replayPage } from "./replay.js";
import { rulesPage } from "./rules.js";
import { onRulesGameChange, rulesHref, setRulesGame } from "./rulesnav.js";
import { loadGameTitles } from "./gametitles.js";
import { tablePage } from "./table.js";
import { learnPage } from "./tutorial.js";

const header = document.getElementById("header");
const root = document.getElementById("app");
// The logged-in account's invitations, on every page (friends.js).
const invitationsBar = h("div", { class: "invitations", testid: "invitations" });
invitationsBar.hidden = true;
header.after(invitationsBar);
let cleanup = null;
// On a phone the header is one line: its links fold behind a menu button (style.css).
let menuOpen = false;

function setMenu(open) {
  menuOpen = open;
  renderHeader();
  headerHeight();
}

function renderHeader() {
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("skip");
  mount(header,
    h("a", { class: "brand", href: "/", "data-link": true, testid: "home" },
      h("span", { class: "logo", html: icons.patch() }), h("span", {}, t("title"))),
    h("button", { type: "button", class: "ghost small menu-toggle", testid: "menu-toggle", "aria-controls": "site-nav",
      "aria-expanded": menuOpen ? "true" : "false", onclick: () => setMenu(!menuOpen) }, h("span", { "aria-hidden": "true" }, "☰"), t("menu")),
    h("nav", { class: `nav${menuOpen ? " open" : ""}`, id: "site-nav" }, h("a", { href: "/", "data-link": true }, t("lobby")),
      h("a", { href: "/my-games", "data-link": true, testid: "nav-my-games" }, t("nav_my_games")),
      h("a", { href: "/leaderboard", "data-link": true, testid: "nav-leaderboard" }, t("nav_leaderboard")),
      h("a", { href: "/tournaments", "data-link": true, testid: "nav-tournaments" }, t("nav_tournaments")),
      // Only for an account with a role: the server refuses everyone else anyway.
      currentAccount() && (currentAccount().roles || []).length
        ? h("a", { href: "/admin", "data-link": true, testid: "nav-admin" }, t("nav_admin")) : null,
      currentAccount() && (currentAccount().roles || []).length
        ? h("a", { href: "/moderation", "data-link": true, testid: "nav-moderation" }, t("nav_moderation")) : null,
      h("a", { href: "/account", "data-link": true, testid: "nav-account", class: "account-link" },
        currentAccount() ? currentAccount().username : t("nav_log_in")),
      // The rules of the game in context (a table, a replay, the lobby's choice).
      h("a", { href: rulesHref(), "data-link": true, testid: "nav-rules" }, t("rules"))),
    h("div", { class: "lang", role: "group", "aria-label": t("language") },
      Object.keys(LANGS).map((l) => h("button", {
        type: "button", class: `ghost small${l === currentLang() ? " on" : ""}`, testid: `lang-${l}`,
        "aria-pressed": l === currentLang() ? "true" : "false", onclick: () => setLang(l),
      }, l.toUpperCase()))));
}

/** Show the page for the current location. */
function route() {
  if (menuOpen) setMenu(false);
  if (cleanup) cleanup();
  cleanup = null;
  window.scrollTo(0, 0);
  hideGameOverlays();
  setRulesGame(null); // each page names its game, if it has one
  const path = location.pathname.replace(/\/+$/, "") || "/";
  // The page's main landmark (a screen reader's "skip to main"): the table and the replay
  // hold their own `main` beside their side panel; every other page is main as a whole.
  if (/^\/(table|replay)(\/|$)/.test(path)) root.removeAttribute("role");
  else root.setAttribute("role", "main");
  let m;
  if ((m = path.match(/^\/table\/([^/]+)$/))) cleanup = tablePage(root, decodeURIComponent(m[1]));
  else if ((m = path.match(/^\/replay\/([^/]+)$/))) cleanup = replayPage(root, decodeURIComponent(m[1]));
  else if (path === "/replay") cleanup = replayPage(root, null);
  else if (path === "/account") cleanup = accountPage(root, go);
  else if (path === "/admin") cleanup = adminPage(root);
  else if (path === "/moderation") cleanup = moderationPage(root);
  else if (path === "/my-games") cleanup = myGamesPage(root, go);
  else if (path === "/leaderboard") cleanup = leaderboardPage(root);
  else if (path === "/tournaments") cleanup = tournamentsPage(root, go);
  else if ((m = path.match(/^\/tournament\/([^/]+)$/))) cleanup = tournamentPage(root, decodeURIComponent(m[1]));
  else if ((m = path.match(/^\/players\/([^/]+)$/))) cleanup = profilePage(root, decodeURIComponent(m[1]));
  else if (path === "/rules") cleanup = rulesPage(root);
  else if ((m = path.match(/^\/rules\/([^/]+)$/))) cleanup = rulesPage(root, decodeURIComponent(m[1]));
  else if ((m = path.match(/^\/learn\/([^/]+)$/))) cleanup = learnPage(root, decodeURIComponent(m[1]));
  else cleanup = lobbyPage(root, go);
  if (!path.startsWith("/rules")) document.title = `${t("title")}`;
}

/** Navigate inside the app without a page load. */
export function go(path) {
  history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-link]");
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  go(a.getAttribute("href"));
});
window.addEventListener("popstate", route);
onLangChange(renderHeader);
onSessionChange(renderHeader);
onRulesGameChange(renderHeader);
// Sticky bars below the header need its height, which wraps differently per width.
const headerHeight = () => document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`);
window.addEventListener("resize", headerHeight);
onLangChange(headerHeight);
onSessionChange(headerHeight);
installGames();
renderHeader();
headerHeight();
// Who is logged in decides what some pages offer, and the server names its default game
// (the rules at /rules, the lobby's first choice): ask first, then show the page.
Promise.allSettled([loadSession(), loadGameTitles()]).finally(() => { route(); installInvitations(invitationsBar); });
