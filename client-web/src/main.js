// Entry point: the header (home link, language switch) and a small router for
// / (lobby), /table/<id> (live table), /replay/<id> and /replay (replay viewer).
import { h, mount } from "./dom.js";
import { LANGS, currentLang, onLangChange, setLang, t } from "./i18n.js";
import { icons } from "./icons.js";
import { lobbyPage } from "./lobby.js";
import { replayPage } from "./replay.js";
import { tablePage } from "./table.js";

const header = document.getElementById("header");
const root = document.getElementById("app");
let cleanup = null;

function renderHeader() {
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("skip");
  mount(header,
    h("a", { class: "brand", href: "/", "data-link": true, testid: "home" },
      h("span", { class: "logo", html: icons.patch() }), h("span", {}, t("title"))),
    h("nav", { class: "nav" }, h("a", { href: "/", "data-link": true }, t("lobby"))),
    h("div", { class: "lang", role: "group", "aria-label": t("language") },
      Object.keys(LANGS).map((l) => h("button", {
        type: "button", class: `ghost small${l === currentLang() ? " on" : ""}`, testid: `lang-${l}`,
        "aria-pressed": l === currentLang() ? "true" : "false", onclick: () => setLang(l),
      }, l.toUpperCase()))));
}

/** Show the page for the current location. */
function route() {
  if (cleanup) cleanup();
  cleanup = null;
  window.scrollTo(0, 0);
  const path = location.pathname.replace(/\/+$/, "") || "/";
  let m;
  if ((m = path.match(/^\/table\/([^/]+)$/))) cleanup = tablePage(root, decodeURIComponent(m[1]));
  else if ((m = path.match(/^\/replay\/([^/]+)$/))) cleanup = replayPage(root, decodeURIComponent(m[1]));
  else if (path === "/replay") cleanup = replayPage(root, null);
  else cleanup = lobbyPage(root, go);
  document.title = `${t("title")}`;
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
renderHeader();
route();
