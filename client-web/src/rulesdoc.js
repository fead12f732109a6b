// The building blocks of a game's rules document (games/<game>/rules.js): a rules page is
// `{title, intro, toc, sections: {anchor: [heading, () => nodes]}, howto: [text, …]}` per
// language, drawn by rules.js. Tables carry a test id so tests can read them.
import { h } from "./dom.js";

/** A table with a header row and rows whose first cell heads the row. */
export const table = (head, rows, testid) => h("div", { class: "table-scroll" }, h("table", { class: "rules-table", testid },
  h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
  h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c))))))));
export const p = (...c) => h("p", {}, ...c);
export const ul = (items) => h("ul", {}, items.map((i) => h("li", {}, i)));
export const ol = (items) => h("ol", {}, items.map((i) => h("li", {}, i)));
/** A bold term followed by its explanation, for list items. */
export const term = (b, ...rest) => h("span", {}, h("b", {}, b), ...rest);
