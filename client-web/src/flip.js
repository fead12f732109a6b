// The shared card animation of every game's board: a re-render in which the cards that
// changed place glide there from where they were (FLIP). A game module passes its own
// card selector; zones are the `data-zone` attributes its board draws.

const zoneOf = (el) => {
  const z = el.closest("[data-zone]");
  return z ? z.dataset.zone : "";
};

/**
 * Re-render `container` with `build()`; a card that changed place (display, pirate table,
 * a color row) glides from its old spot (FLIP), a new card pops in. Kept light: only those
 * cards animate, transforms only, nothing for reduced motion. `cards`: the selector of the
 * cards that may move (a game's own card class).
 */
export function flipRender(container, build, cards = ".card[data-card]") {
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const before = new Map();
  if (!reduce) for (const el of container.querySelectorAll(cards)) before.set(el.dataset.card, { zone: zoneOf(el), el });
  const rects = new Map();
  const el = build();
  if (reduce || before.size === 0) { container.replaceChildren(el); return; }
  const moved = [];
  for (const card of el.querySelectorAll(cards)) {
    const old = before.get(card.dataset.card);
    if (!old) moved.push([card, null]);
    else if (old.zone !== zoneOf(card)) {
      rects.set(card.dataset.card, old.el.getBoundingClientRect());
      moved.push([card, rects.get(card.dataset.card)]);
    }
  }
  container.replaceChildren(el);
  for (const [card, old] of moved) {
    if (old) {
      const now = card.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      const s = old.width / (now.width || 1);
      card.animate([{ transform: `translate(${dx}px, ${dy}px) scale(${s})`, transformOrigin: "top left", zIndex: 3 },
        { transform: "none", transformOrigin: "top left", zIndex: 3 }], { duration: 450, easing: "cubic-bezier(.2,.7,.2,1)" });
    } else {
      card.animate([{ opacity: 0, transform: "scale(.7) rotate(-4deg)" }, { opacity: 1, transform: "none" }], { duration: 320, easing: "ease-out" });
    }
  }
}
