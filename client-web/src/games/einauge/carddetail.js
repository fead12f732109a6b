// Card details on hover (a mouse that moved) and on tap (touch): what the card yields when
// its row pays out, its treasure chests, and what it costs where it lies (the display: its price; the
// pirate table: its fight cost; the final round: either). Every number comes from the
// server (card data of GET /api/games/einauge/cards, the view's fight_costs); the only
// words about rules are the rules page's, linked from here.
import { cardInfo } from "./cards.js";
import { h, mount } from "../../dom.js";
import { listWords, t } from "../../i18n.js";
import { cardName, colorName } from "./texts.js";
import { rulesHref } from "../../rulesnav.js";

let ctx = { view: null };
let pop = null;
let anchor = null;
let hoverTimer = null;
// Opened by a click or tap (a second one on its card closes it), not by resting the mouse:
// a click on a card whose detail the hover opened keeps it open, however long the pointer
// rested there first (else the same click opened or closed it by timing).
let pinned = false;
// Where the mouse last pressed, until it moves away: the pointer rests there while the board
// redraws under it (the move's own result, a bot's move, a language switch), and the
// browser reports whatever card now lies under it as hovered. That is no hover by the
// person: a detail opened by it came up under the pointer after the click.
let resting = null;
const MOVED = 3; // px from the press that count as moving the mouse

/** The view the board shows (for fight costs, the phase and the players' names). Called
 *  on every render: an open panel follows its card to its new element, or closes when the
 *  card has left the board. */
export function setCardContext(view) {
  ctx = { view };
  if (!anchor) return;
  requestAnimationFrame(() => {
    if (!anchor || anchor.isConnected) return;
    const again = pop && document.querySelector(`.card[data-card="${CSS.escape(pop.dataset.card)}"]`);
    if (again) show(again, pinned);
    else hideCardDetail();
  });
}

function where(card) {
  const z = card.closest("[data-zone]");
  const zone = z ? z.dataset.zone : "";
  if (zone === "display") return { kind: "display" };
  if (zone === "pirate") return { kind: "pirate" };
  const m = /^(row|lone)-(\d+)(?:-(\w+))?$/.exec(zone);
  return m ? { kind: m[1], seat: Number(m[2]), color: m[3] } : { kind: "other" };
}

function yields(info) {
  const parts = [];
  if (info.sabres) parts.push(t("sabre_s", { n: info.sabres }));
  if (info.ducats) parts.push(t("ducat_s", { n: info.ducats }));
  if (info.jewels) parts.push(t("jewel_s", { n: info.jewels }));
  return parts.length ? listWords(parts) : t("nothing");
}

/** The detail panel's content for card `id` lying at `at` (see `where`). */
export function cardDetail(id, at) {
  const info = cardInfo(id);
  const v = ctx.view || {};
  const costs = v.fight_costs || {};
  const fight = costs[id] ?? (info ? info.fight_cost : null);
  const finalRound = v.phase === "final_round";
  const owner = (at.seat !== undefined && v.players && v.players[at.seat]) ? v.players[at.seat].name : null;
  const lines = [];
  if (at.kind === "display") {
    lines.push(finalRound ? t("cd_display_final", { price: info ? info.price : "?", n: fight }) : t("cd_display", { price: info ? info.price : "?" }));
  } else if (at.kind === "pirate") {
    lines.push(t("cd_pirate", { n: fight }));
  } else if (at.kind === "row" && owner) {
    lines.push(t("cd_in_row", { name: owner, color: colorName(at.color) }));
  } else if (at.kind === "lone" && owner) {
    lines.push(t("cd_lone", { name: owner }));
  }
  const isShip = !info || !info.color;
  const body = isShip
    ? [h("p", {}, t("cd_ship"))]
    : [h("p", { testid: "card-detail-yield" }, t("cd_yield", { what: yields(info) })),
      h("p", { testid: "card-detail-chests" }, t("cd_chests", { n: info.chests, color: colorName(info.color) }))];
  const rule = at.kind === "pirate" || finalRound ? "fight" : isShip ? "ships" : at.kind === "display" ? "buy" : "scoring";
  return [
    h("h3", {}, cardName(id)),
    lines.map((l) => h("p", { class: "cd-where", testid: "card-detail-where" }, l)),
    body,
    at.kind === "pirate" || (finalRound && at.kind === "display") ? h("p", { class: "hint" }, t("cd_fight_rule")) : null,
    h("a", { href: `${rulesHref("einauge")}#${rule}`, target: "_blank", rel: "noopener", class: "cd-rules", testid: "card-detail-rules" }, t("rules_link")),
  ];
}

// What the panel must leave free: the board's action buttons first, then the page's other
// controls (the top bar's, the banner's).
const ACTIONS = "[data-testid=board] button, [data-testid=board] select";
const CONTROLS = "#app button, #app a.button, #app select";

/** The window's top edge under what sticks over the page (the header; the turn banner
 *  once it sticks under it), in viewport px. */
function visibleTop() {
  let top = 0;
  for (const el of document.querySelectorAll(".site-header, .table-page > .turn-banner")) {
    const r = el.getBoundingClientRect();
    if (r.top <= top + 1 && r.bottom > top) top = r.bottom;
  }
  return top;
}

// The panel goes under or over the card's slot (its buttons stay free), else right under or
// over the card: of these, the one that covers the fewest action buttons, one counting
// less than the panel quite out of the window and more than five other controls (on a
// phone the panel is most of the width: right under a card it covered the card's buy
// buttons and the next row's).
function place(card) {
  const r = card.getBoundingClientRect();
  const w = Math.min(280, window.innerWidth - 16);
  pop.style.width = `${w}px`;
  const ph = pop.offsetHeight;
  const left = Math.max(8, Math.min(window.innerWidth - w - 8, r.left + r.width / 2 - w / 2));
  const slot = (card.closest(".slot, .row-card") || card).getBoundingClientRect();
  const actions = new Set(document.querySelectorAll(ACTIONS));
  const controls = [...document.querySelectorAll(CONTROLS)]
    .map((b) => ({ r: b.getBoundingClientRect(), weight: actions.has(b) ? 1 : 0.15 }))
    .filter(({ r: b }) => b.width > 0 && b.height > 0);
  const top = visibleTop();
  const cost = (y) => {
    const covered = controls.filter(({ r: b }) => b.left < left + w && b.right > left && b.top < y + ph && b.bottom > y);
    const outside = Math.max(0, top - y) + Math.max(0, y + ph - window.innerHeight);
    return covered.reduce((sum, c) => sum + c.weight, 0) + Math.min(ph, outside) / ph * 1.5;
  };
  const ys = [slot.bottom + 6, slot.top - ph - 6, r.bottom + 6, r.top - ph - 6];
  const y = ys.reduce((best, c) => (cost(c) < cost(best) ? c : best));
  pop.style.left = `${left + window.scrollX}px`;
  pop.style.top = `${y + window.scrollY}px`;
}

function show(card, byClick = false) {
  pinned = byClick;
  if (!pop) {
    pop = h("div", { class: "card-detail", role: "dialog", "aria-live": "polite", testid: "card-detail" });
    document.body.append(pop);
  }
  anchor = card;
  mount(pop, cardDetail(card.dataset.card, where(card)));
  pop.dataset.card = card.dataset.card;
  pop.hidden = false;
  place(card);
}

/** Hide the detail panel. */
export function hideCardDetail() {
  clearTimeout(hoverTimer);
  anchor = null;
  pinned = false;
  if (pop) pop.hidden = true;
}

const cardOf = (e) => (e.target.closest && !e.target.closest("button, a") ? e.target.closest(".card[data-card]") : null);

/** Listen once on the document: hover shows after a moment (a hover the mouse made by
 *  moving: none while it rests where it pressed), a click or tap shows and a second one on
 *  the same card hides, Escape hides. */
export function installCardDetails() {
  if (installCardDetails.done) return;
  installCardDetails.done = true;
  const hovered = (e) => {
    const card = cardOf(e);
    clearTimeout(hoverTimer);
    if (card) hoverTimer = setTimeout(() => show(card), 300);
    else if (!(e.target.closest && e.target.closest(".card-detail"))) hoverTimer = setTimeout(hideCardDetail, 200);
  };
  document.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse") resting = { x: e.clientX, y: e.clientY };
  });
  document.addEventListener("pointerover", (e) => {
    if (e.pointerType !== "mouse" || resting) return;
    hovered(e);
  });
  // The first move away from the press is the person's hover again, over what lies there.
  document.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "mouse" || !resting) return;
    if (Math.abs(e.clientX - resting.x) < MOVED && Math.abs(e.clientY - resting.y) < MOVED) return;
    resting = null;
    hovered(e);
  });
  document.addEventListener("click", (e) => {
    const card = cardOf(e);
    if (card) {
      clearTimeout(hoverTimer); // the pointer's own hover must not unpin it later
      if (pinned && anchor === card && pop && !pop.hidden) hideCardDetail(); else show(card, true);
      return;
    }
    if (!(e.target.closest && e.target.closest(".card-detail"))) hideCardDetail();
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideCardDetail(); });
  window.addEventListener("scroll", () => { if (anchor && pop && !pop.hidden) place(anchor); }, { passive: true });
}
