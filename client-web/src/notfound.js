// The page for an unknown, expired or (without its secret) private table: the server
// answers 404 `no_table` or closes the socket with 4004, and this says so plainly.
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";

/** Mount the not-found page into `root`; returns a cleanup function. */
export function notFoundPage(root) {
  window.__cardtable = { page: "not_found" };
  const render = () => {
    document.title = `${t("not_found_title")} · ${t("title")}`;
    mount(root, h("section", { class: "panel not-found", testid: "not-found", role: "alert" },
      h("h1", {}, t("not_found_title")),
      h("p", {}, t("not_found_text")),
      h("a", { class: "button primary", href: "/", "data-link": true, testid: "not-found-lobby" }, t("back_to_lobby"))));
  };
  render();
  return onLangChange(render);
}
