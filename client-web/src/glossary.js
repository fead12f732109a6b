// The glossary in place: a symbol, count or term the table shows explains itself where it
// appears. An element marked `data-term="<key>"` (the `term(key)` attributes) shows its
// game's explanation of `key` with a link to the section of the rules page: on hover, on
// keyboard focus (a term is focusable), and on a tap (a phone has no hover). The texts are
// the game module's `glossary(key)` → `{text, section}` (games/index.js), in the page's
// language; the shell names no game.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { rulesHref } from "./rulesnav.js";

let tip = null;        // the one tooltip element, made on first use
let owner = null;      // the term element it explains now
let pinned = false;    // opened by a tap or click: stays until a tap elsewhere or Escape
let lookup = null;     // () => {name, glossary} of the current page's game, or null
let pointer = "mouse"; // the kind of the last pointer pressed: a tap pins, a mouse click not

/** The attributes that make an element a term of the glossary: `data-term`, and
 *  described by the tooltip while it shows. Spread into `h()`'s attributes. `focusable`
 *  adds it to the Tab order: one instance of a term is enough for the keyboard (the
 *  other players' copies of it would each be a stop more between the cards and the
 *  moves). */
export const term = (key, focusable = true) => ({ "data-term": key, tabindex: focusable ? 0 : null });

function explain(el) {
  const game = lookup ? lookup() : null;
  const entry = game && game.glossary ? game.glossary(el.dataset.term) : null;
  return entry ? { ...entry, game: game.name } : null;
}

function place(el) {
  const r = el.getBoundingClientRect();
  const w = Math.min(320, window.innerWidth - 16);
  tip.style.maxWidth = `${w}px`;
  tip.style.left = `${Math.max(8, Math.min(r.left, window.innerWidth - w - 8))}px`;
  const below = r.bottom + 6;
  const height = tip.offsetHeight;
  tip.style.top = `${below + height > window.innerHeight && r.top - height - 6 > 0 ? r.top - height - 6 : below}px`;
}

function show(el, pin = false) {
  const entry = explain(el);
  if (!entry) return;
  if (!tip) {
    tip = h("div", { class: "term-tip", role: "tooltip", id: "term-tip", testid: "term-tip", hidden: true });
    document.body.append(tip);
  }
  if (owner && owner !== el) owner.removeAttribute("aria-describedby");
  owner = el;
  pinned = pin;
  // Shown by hover, the tooltip lets the pointer through to what it covers (a move, a
  // card); pinned by a tap or the keyboard, its rules link takes clicks.
  tip.classList.toggle("pinned", pin);
  tip.replaceChildren(h("span", { testid: "term-text" }, entry.text), " ",
    entry.section ? h("a", { href: `${rulesHref(entry.game)}#${entry.section}`, target: "_blank", rel: "noopener", testid: "term-rules" }, t("term_rules")) : null);
  tip.hidden = false;
  tip.dataset.explains = el.dataset.term;  // not data-term: the tip is no term
  el.setAttribute("aria-describedby", "term-tip");
  place(el);
}

/** Hide the tooltip (leaving a page, Escape). */
export function hideTerm() {
  if (tip) tip.hidden = true;
  if (owner) owner.removeAttribute("aria-describedby");
  owner = null;
  pinned = false;
}

const termOf = (e) => (e.target && e.target.closest ? e.target.closest("[data-term]") : null);

/** Listen on the document once; `current()` gives the game module of the page shown now
 *  (or null: no terms explained). */
export function installGlossary(current) {
  lookup = current;
  if (installGlossary.done) return;
  installGlossary.done = true;
  document.addEventListener("pointerover", (e) => {
    if (e.pointerType !== "mouse") return;
    const el = termOf(e);
    if (el && el !== owner) show(el);
    else if (!el && !pinned && !(e.target.closest && e.target.closest(".term-tip"))) hideTerm();
  });
  document.addEventListener("pointerdown", (e) => { pointer = e.pointerType || "mouse"; }, { capture: true });
  document.addEventListener("focusin", (e) => {
    const el = termOf(e);
    if (el) show(el);
    else if (!pinned) hideTerm();
  });
  document.addEventListener("click", (e) => {
    const el = termOf(e);
    // A term inside a control (a card's mark in a hand card) leaves the click to it.
    const control = el && el.parentElement ? el.parentElement.closest("button, a, [role=button]") : null;
    if (el && !control) {
      // A mouse has its hover: a click on a term is the click of what holds it.
      if (pointer === "mouse") return;
      if (pinned && owner === el) hideTerm(); else show(el, true);
      return;
    }
    if (!(e.target.closest && e.target.closest(".term-tip"))) hideTerm();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && tip && !tip.hidden) hideTerm();
    else if ((e.key === "Enter" || e.key === " ") && termOf(e)) {
      e.preventDefault();  // a focused term opens as a tap would
      show(termOf(e), true);
    }
  });
  window.addEventListener("scroll", () => { if (owner && tip && !tip.hidden) place(owner); }, { passive: true });
}
