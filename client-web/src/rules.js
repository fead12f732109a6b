// The rules page of a game (/rules/<game>; /rules is the server's default game's), in
// English and German. The text is the game module's rules document (its `rules`: `load`
// fetches what the page shows from the server, `doc(lang, data)` the page; rulesdoc.js);
// this shell draws the title, contents, sections with stable anchors (for hints) and
// links to the other games' rules. The page computes nothing.
import { h, mount } from "./dom.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { gameModule, gameNames, hasGameModule } from "./games/index.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { notFoundPage } from "./notfound.js";
import { rulesHref, setRulesGame } from "./rulesnav.js";
import { learnHref } from "./tutorial.js";

/** Mount the rules page of game `name` (null: the server's default game) into `root`; returns a
 *  cleanup function. A game this client has no module for gets the not-found page. */
export function rulesPage(root, name = null) {
  if (name !== null && !hasGameModule(name)) return notFoundPage(root);
  const game = gameModule(name);
  if (!game.rules) return notFoundPage(root); // no game named, and the server named no default
  setRulesGame(game.name);
  window.__cardtable = { page: "rules", game: game.name };
  let data = null;
  function render() {
    const lang = currentLang();
    const text = game.rules.doc(lang, data);
    const others = gameNames().filter((g) => g !== game.name);
    mount(root, h("article", { class: "rules-page panel", testid: "rules-page", lang, dataset: { game: game.name } },
      h("h1", {}, text.title),
      h("p", { class: "lead" }, text.intro),
      game.lesson ? h("p", { class: "rules-learn" }, h("a", { class: "button primary", href: learnHref(game.name), "data-link": true, testid: "rules-learn" }, t("tut_learn")),
        " ", h("span", { class: "hint" }, t("tut_learn_hint"))) : null,
      others.length ? h("p", { class: "rules-games hint", testid: "rules-games" }, `${t("rules_other_games")} `,
        others.map((g, i) => [i ? " · " : "", h("a", { href: rulesHref(g), "data-link": true, testid: `rules-game-${g}` }, gameTitle(g))])) : null,
      h("nav", { class: "rules-toc", "aria-label": text.toc }, h("h2", {}, text.toc),
        h("ol", {}, Object.entries(text.sections).map(([key, [title]]) => h("li", {}, h("a", { href: `#${key}` }, title))))),
      Object.entries(text.sections).map(([key, [title, body]]) =>
        h("section", { id: key, class: "rules-section", testid: `rules-sec-${key}` }, h("h2", {}, title), body())),
      h("p", {}, h("a", { href: "/", "data-link": true }, t("back_to_lobby")))));
    document.title = `${text.title}`;
    // A link with an anchor (from a table's hint) lands on its section.
    if (location.hash) { const el = document.getElementById(location.hash.slice(1)); if (el) el.scrollIntoView(); }
  }
  render();
  let live = true;
  game.rules.load().then((d) => { data = d; if (live) render(); }).catch(() => {});
  loadGameTitles().then(() => { if (live) render(); });
  const off = onLangChange(render);
  return () => { live = false; off(); };
}
