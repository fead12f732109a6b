// Keltis's board module: the middle (deck, the six discard piles, the wish stones), your
// hand, every player's color rows and point row, all from the view; card faces from the
// server's catalogue (GET /api/games/keltis/cards). The seat's moves are exactly the
// prompt's legal actions: select a hand card (or drag it) and the places those actions name
// light up (a row, its discard pile, the stone of its value); in the draw step the deck and
// the drawable piles do. The client decides nothing: a place lights up only because a
// legal action names it.
import "./style.css";
import { keltisGlossary } from "./texts.js";
import { api } from "../../api.js";
import { flipRender } from "../../flip.js";
import { h } from "../../dom.js";
import { currentLang, listWords, t } from "../../i18n.js";
import { term } from "../../glossary.js";
import { seatEventText } from "../../seatlog.js";
import { keltisErrors } from "./errors.js";
import { keltisRules } from "./rules.js";
import { lesson } from "./lesson.js";

let CATALOGUE = null;
let loading = null;

function loadCatalogue() {
  if (CATALOGUE) return Promise.resolve(CATALOGUE);
  loading ||= api.cards("keltis").then((d) => (CATALOGUE = d));
  return loading;
}

const COLORS = ["green", "yellow", "red", "pink", "blue"];
const PILES = [...COLORS, "point"];
// A glyph per color, so that no information depends on telling hues apart.
const GLYPH = { green: "♣", yellow: "☀", red: "♥", pink: "✿", blue: "≈", point: "◇" };

const info = (id) => (CATALOGUE && CATALOGUE.cards[id]) || null;
const stoneValue = (id) => ((CATALOGUE && CATALOGUE.stones) || {})[id] ?? Number(String(id).split("-")[1]);
/** The pile a card's discard lands on (the catalogue's color; a point card: the point pile). */
const pileOf = (id) => { const c = info(id); return c ? c.color || "point" : null; };
/** The stone of a card's value (the stone a pair of these cards would take). */
const stoneOf = (id) => { const c = info(id); return c && c.value !== null ? `stone-${c.value}` : null; };

/** "green" → "Green" / "Grün". */
export const kColor = (c) => t(`kc_${c}`);

/** A card in words: "Green 5", "green end card", "point card 5", "wish stone 5". */
export function kCardName(id) {
  if (String(id).startsWith("stone-")) return t("k_stone_name", { n: stoneValue(id) });
  const c = info(id);
  if (!c) return id;
  if (c.kind === "end") return t("k_end_name", { color: kColor(c.color) });
  if (c.kind === "point") return t("k_point_name", { n: c.value });
  return t("k_number_name", { color: kColor(c.color), n: c.value });
}

/** The face of a card: its value (an end card its symbol), its color as class and glyph. */
function cardFace(id, { testid = null, small = false, extra = "" } = {}) {
  if (String(id).startsWith("stone-")) {
    return h("span", { class: `kcard kstone${small ? " small" : ""}${extra}`, title: kCardName(id), "aria-label": kCardName(id), testid, dataset: { card: id } },
      h("b", {}, stoneValue(id)));
  }
  const c = info(id);
  const color = c ? c.color || "point" : "unknown";
  const label = !c ? "?" : c.kind === "end" ? "✕" : String(c.value);
  return h("span", { class: `kcard k-${color}${c && c.kind === "end" ? " kend" : ""}${small ? " small" : ""}${extra}`,
    title: kCardName(id), "aria-label": kCardName(id), testid, dataset: { card: id } },
  h("b", {}, label), h("i", { "aria-hidden": "true" }, GLYPH[color] || ""));
}

const seatNameOf = (view, seat) => (view.players[seat] ? view.players[seat].name : `#${seat + 1}`);

function turnText(view, mySeat) {
  if (!view) return "";
  if (view.phase === "ended") return t("phase_ended");
  const seat = view.current_seat;
  const who = seat === null || seat === undefined ? "" : seat === mySeat ? t("your_turn") : t("turn_of", { name: seatNameOf(view, seat) });
  const step = view.step === "draw" ? t("kstep_draw", { n: view.draws_left }) : view.step ? t(`kstep_${view.step}`) : "";
  return [view.phase === "final_turns" ? t("kphase_final") : "", who, step].filter(Boolean).join(" · ");
}

/** The banner's hint on this seat's turn: what the step asks for. */
function turnHint(v) {
  if (v.step === "play") return t("khint_play");
  if (v.step === "draw") return t("khint_draw", { n: v.draws_left });
  if (v.step === "final") return t("khint_final", { n: v.final_lays_left });
  return "";
}

function winnersText(view) {
  if (!view || view.phase !== "ended" || !view.result) return "";
  const names = (view.result.winners || []).map((i) => seatNameOf(view, i));
  return names.length ? t("winners_are", { names: listWords(names), n: names.length }) : "";
}

/** The prompt's legal actions by what they are about: per hand card its lays, its discard
 *  and its stones (by first card); the draws by source; the finish. */
function groupActions(legal) {
  const list = legal || [];
  const byCard = new Map();
  const draws = new Map();
  let finish = null;
  const slot = (c) => { let o = byCard.get(c); if (!o) byCard.set(c, (o = { lays: [], discard: null, stones: [] })); return o; };
  for (const a of list) {
    if (a.type === "lay") slot(a.card).lays.push(a);
    else if (a.type === "discard") slot(a.card).discard = a;
    else if (a.type === "stone") slot(a.cards[0]).stones.push(a);
    else if (a.type === "draw") draws.set(a.from, a);
    else if (a.type === "finish") finish = a;
  }
  return { list, byCard, draws, finish, any: list.length > 0 };
}

// What the page remembers between redraws (the board is rebuilt on every delta): the
// selected hand card, the first card of a stone being picked, the open pile viewer and
// the hand's order.
const ui = { sel: null, stoneFor: null, pile: null, sort: "color" };

/** The places the current selection (or the draw step) may go, by drop key
 *  (`row:<color|point>`, `pile:<pile>`, `stone:<id>`, `deck`), each to its action, or to
 *  `{ pick: card }` where a stone needs its second card picked. */
function targetsOf(acts) {
  const m = new Map();
  if (!acts) return m;
  for (const [from, a] of acts.draws) m.set(from === "deck" ? "deck" : `pile:${from}`, a);
  const o = ui.sel ? acts.byCard.get(ui.sel) : null;
  if (!o) return m;
  for (const a of o.lays) m.set(`row:${a.row}`, a);
  if (o.discard) m.set(`pile:${pileOf(ui.sel)}`, o.discard);
  if (o.stones.length) m.set(`stone:${stoneOf(ui.sel)}`, o.stones.length === 1 ? o.stones[0] : { pick: ui.sel });
  return m;
}

/** Sorted for the eye (presentation only): by color then value, or by value then color. */
function sortedHand(hand) {
  const key = (id) => {
    const c = info(id) || {};
    const color = c.color ? COLORS.indexOf(c.color) : COLORS.length;
    const value = c.kind === "end" ? 99 : c.value ?? 0;
    return ui.sort === "value" ? [value, color, id] : [color, value, id];
  };
  return [...hand].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
  });
}

function dirText(row) {
  return row.direction === "rising" ? ["↑", t("k_rising")] : row.direction === "falling" ? ["↓", t("k_falling")] : ["↕", t("k_undecided")];
}

/** One color row (or the point row) of player `p`: head (color, direction, closed, count)
 *  and its cards in the order laid. A row of the seat is a drop place (`row:<color>`). */
function renderRow(p, color, row, mine) {
  const cards = row ? row.cards : [];
  const head = color === "point"
    ? [h("span", { class: "kglyph", "aria-hidden": "true" }, GLYPH.point), h("span", { class: "kname", ...term("point_row", mine) }, t("k_point_row_head"))]
    : [h("span", { class: "kglyph", "aria-hidden": "true" }, GLYPH[color]), h("span", { class: "kname" }, kColor(color)),
      row ? h("span", { class: `kdir${row.direction ? ` ${row.direction}` : ""}`, testid: `dir-${p.seat}-${color}`, dataset: { direction: row.direction || "" }, ...term("direction", mine) },
        h("span", { "aria-hidden": "true" }, dirText(row)[0]), " ", h("span", { class: "kdir-text" }, dirText(row)[1])) : null,
      row && row.closed ? h("span", { class: "kclosed", testid: `closed-${p.seat}-${color}`, ...term("closed", mine) }, t("k_closed")) : null];
  return h("div", {
    class: `krow k-${color}${row && row.closed ? " closed" : ""}${cards.length ? "" : " empty"}`,
    testid: `row-${p.seat}-${color}`, dataset: mine ? { drop: `row:${color}` } : {},
  },
  h("div", { class: "krow-head" }, head, h("span", { class: "kcount", ...term("row_count", mine && color === "point" ? false : mine && color === COLORS[0]) }, cards.length)),
  h("div", { class: "krow-cards", dataset: { zone: `row-${p.seat}-${color}` } }, cards.length ? cards.map((c) => cardFace(c, { small: true })) : h("span", { class: "kempty" }, mine ? t("k_row_empty_mine") : "–")));
}

function renderPlayer(view, p, ctx) {
  const mine = p.seat === ctx.mySeat;
  const isTurn = view.current_seat === p.seat && view.phase !== "ended";
  const winners = (view.result && view.result.winners) || [];
  // Your own rows all show (an empty one is where a new row starts); others' as started.
  const colors = mine ? COLORS : COLORS.filter((c) => p.rows && p.rows[c]);
  return h("section", {
    class: `panel kplayer${isTurn ? " current" : ""}${mine ? " mine" : ""}${winners.includes(p.seat) ? " winner" : ""}`,
    testid: `player-${p.seat}`, "aria-label": t("k_rows_of", { name: p.name }),
  },
  h("header", { class: "kplayer-head" },
    h("span", { class: "seat-no" }, p.seat + 1),
    h("span", { class: "pname" }, p.name, mine ? h("small", {}, ` (${t("you")})`) : null),
    isTurn ? h("span", { class: "turn-badge", testid: `turn-${p.seat}` }, view.step === "final" ? t("kstep_final") : view.step === "draw" ? t("kstep_draw", { n: view.draws_left }) : t("kbadge_play")) : null,
    winners.includes(p.seat) ? h("span", { class: "crown", title: t("winner") }, "♛") : null,
    h("span", { class: "khandcount", testid: `hand-count-${p.seat}`, ...term("hand_count", mine) }, h("span", { class: "kmini", "aria-hidden": "true" }), " ", p.hand_count),
    h("span", { class: "kheld-stones", testid: `stones-${p.seat}`, dataset: { n: (p.stones || []).length } },
      (p.stones || []).length ? p.stones.map((s) => cardFace(s, { small: true })) : h("span", { class: "hint" }, t("k_no_stones")))),
  view.phase === "ended" && p.hand ? h("div", { class: "khand-end", testid: `final-hand-${p.seat}` },
    h("span", { class: "hint" }, t("k_left_in_hand")), " ", p.hand.length ? p.hand.map((c) => cardFace(c, { small: true })) : "–") : null,
  h("div", { class: "krows" },
    colors.map((c) => renderRow(p, c, p.rows && p.rows[c], mine)),
    mine || (p.point_row && p.point_row.length) ? renderRow(p, "point", { cards: p.point_row || [] }, mine) : null,
    !colors.length && !(p.point_row && p.point_row.length) ? h("div", { class: "hint" }, t("k_no_rows")) : null));
}

/** The end's signal: triggered (by whom, why), then the final turns (which, lays left). */
function endNotice(view) {
  if (view.phase === "ended" || !view.end_triggered) return null;
  const tr = view.trigger || {};
  const name = tr.seat !== null && tr.seat !== undefined ? seatNameOf(view, tr.seat) : "";
  const why = t(tr.reason === "rows_closed" ? "k_reason_rows" : "k_reason_deck");
  if (view.phase === "final_turns") {
    const n = view.players.length;
    const left = view.final_turns_left || 0;
    return h("div", { class: "kend-notice final", testid: "final-turns", role: "status" },
      h("strong", term("end"), t("kphase_final"), left ? ` · ${t("k_final_k_of_n", { k: n - left + 1, n })}` : ""),
      h("span", {}, t("k_final_rule")),
      view.step === "final" && view.current_seat !== null ? h("span", { testid: "final-lays-left" },
        t("k_final_lays_left", { name: seatNameOf(view, view.current_seat), n: view.final_lays_left })) : null);
  }
  return h("div", { class: "kend-notice", testid: "end-triggered", role: "status" },
    h("strong", term("end"), t("k_end_triggered")), h("span", {}, t("k_end_triggered_by", { name, why })));
}

function renderMiddle(view, ctx, targets) {
  const piles = view.discards || {};
  const blocked = view.blocked || [];
  const holders = new Map();
  for (const p of view.players) for (const s of p.stones || []) holders.set(s, p.name);
  const allStones = Object.keys((CATALOGUE && CATALOGUE.stones) || {}).length
    ? Object.keys(CATALOGUE.stones) : [...new Set([...(view.stones || []), ...holders.keys()])];
  const left = new Set(view.stones || []);
  const lit = (key) => (targets.has(key) ? " lit" : "");
  return h("section", { class: "panel kmiddle", "aria-label": t("k_middle") },
    h("div", { class: "kmid-top" },
      h("div", { class: `kdeck${lit("deck")}`, testid: "deck", dataset: { drop: "deck", count: view.deck_count }, role: targets.has("deck") ? "button" : null,
        tabindex: targets.has("deck") ? "0" : null, "aria-label": t("k_deck_n", { n: view.deck_count }) },
      h("div", { class: "kback", "aria-hidden": "true" }, view.deck_count),
      h("div", { class: "klabel", testid: "deck-count", ...term("deck", false) }, t("k_deck"), h("small", {}, t("k_cards_n", { n: view.deck_count })),
        view.removed_count ? h("small", { class: "hint" }, t("k_removed_n", { n: view.removed_count })) : null)),
      h("div", { class: "kpiles", testid: "piles" }, PILES.map((pile) => {
        const cards = piles[pile] || [];
        const top = cards.length ? cards[cards.length - 1] : null;
        return h("div", { class: `kpile k-${pile}${lit(`pile:${pile}`)}${blocked.includes(pile) ? " blocked" : ""}`, testid: `pile-${pile}`,
          dataset: { drop: `pile:${pile}`, count: cards.length, zone: `pile-${pile}` }, title: blocked.includes(pile) ? t("k_pile_blocked") : null },
        h("div", { class: "kpile-name", ...term("pile", pile === PILES[0]) }, h("span", { "aria-hidden": "true" }, GLYPH[pile]), " ", pile === "point" ? t("k_point_pile_label") : kColor(pile)),
        top ? cardFace(top, { testid: `pile-top-${pile}` }) : h("span", { class: "kcard kslot", "aria-hidden": "true" }),
        h("button", { type: "button", class: "ghost small kview", testid: `pile-view-${pile}`, disabled: !cards.length,
          "aria-label": t("k_view_pile", { pile: pile === "point" ? t("k_point_pile") : kColor(pile), n: cards.length }),
          onclick: (e) => { e.stopPropagation(); ui.pile = ui.pile === pile ? null : pile; ctx.redraw(); } },
          // The name holds the visible count (label in name); the arrow is the style's (.kview::after).
          `${cards.length}`));
      }))),
    h("div", { class: "kstones-mid", testid: "stones", "aria-label": t("k_stones_middle") },
      h("span", { class: "klabel", ...term("stones") }, t("k_stones")),
      allStones.map((s) => (left.has(s)
        ? h("span", { class: `kstone-slot${lit(`stone:${s}`)}`, dataset: { drop: `stone:${s}` }, testid: `stone-${s}` }, cardFace(s))
        : h("span", { class: "kstone-slot taken", testid: `stone-${s}`, title: t("k_stone_taken_by", { name: holders.get(s) || "?" }) },
          cardFace(s, { extra: " gone" }), h("small", {}, holders.get(s) || ""))))),
    h("div", { class: "kstatus" },
      h("span", { testid: "closed-rows", dataset: { n: view.closed_rows ?? "" }, ...term("closed_rows") }, t("k_closed_rows", { n: view.closed_rows ?? 0 })),
      endNotice(view)));
}

function renderPileViewer(view, ctx) {
  const pile = ui.pile;
  const cards = (view.discards || {})[pile] || [];
  if (!pile || !cards.length) { ui.pile = null; return null; }
  const close = () => { ui.pile = null; ctx.redraw(); };
  return h("section", { class: "panel kpile-viewer", testid: "pile-viewer", role: "dialog", "aria-label": t("k_pile_of", { pile: pile === "point" ? t("k_point_pile") : kColor(pile) }),
    onkeydown: (e) => { if (e.key === "Escape") close(); } },
  h("header", {}, h("h3", {}, t("k_pile_of", { pile: pile === "point" ? t("k_point_pile") : kColor(pile) }), " ", h("small", { class: "hint" }, t("k_cards_n", { n: cards.length }))),
    h("button", { type: "button", class: "ghost small", testid: "pile-viewer-close", onclick: close, "aria-label": t("k_close") }, "✕")),
  h("p", { class: "hint" }, t("k_pile_order")),
  h("ol", { class: "kpile-list" }, cards.map((c, i) => h("li", { class: i === cards.length - 1 ? "top" : "" }, cardFace(c, { small: true }),
    i === cards.length - 1 ? h("small", {}, t("k_top")) : null))));
}

/** The seat's hand, sorted, with its selection, and below it the words for what the
 *  selected card may do (each legal action as a button, too: keyboard and screen readers). */
function renderHand(view, me, ctx, acts) {
  const hand = sortedHand(me.hand || []);
  const sel = ui.sel;
  const o = sel && acts ? acts.byCard.get(sel) : null;
  const partners = new Set(ui.stoneFor && acts ? (acts.byCard.get(ui.stoneFor) || { stones: [] }).stones.map((a) => a.cards[1]) : []);
  const playable = (c) => !!(acts && acts.byCard.get(c));
  const buttons = [];
  const btn = (a, label, testid) => h("button", { type: "button", class: "act", testid, disabled: !!ctx.pending, onclick: () => ctx.act(a) }, label);
  if (o) {
    for (const a of o.lays) buttons.push(btn(a, a.row === "point" ? t("k_act_lay_point") : t("k_act_lay", { row: kColor(a.row) }), `act-lay-${a.card}-${a.row}`));
    if (o.discard) buttons.push(btn(o.discard, t("k_act_discard", { pile: pileOf(sel) === "point" ? t("k_point_pile") : kColor(pileOf(sel)) }), `act-discard-${sel}`));
    for (const a of o.stones) buttons.push(btn(a, [t("k_act_stone", { n: stoneValue(stoneOf(sel)) }), " ", cardFace(a.cards[0], { small: true }), "+", cardFace(a.cards[1], { small: true })], `act-stone-${a.cards.join("+")}`));
  }
  if (acts) for (const [from, a] of acts.draws) buttons.push(btn(a, from === "deck" ? t("k_act_draw_deck") : [t("k_act_draw_pile", { pile: from === "point" ? t("k_point_pile") : kColor(from) }), " ", cardFace(view.discards[from][view.discards[from].length - 1], { small: true })], `act-draw-${from}`));
  if (acts && acts.finish) buttons.push(btn(acts.finish, t("k_act_finish"), "act-finish"));
  let hint = "";
  if (ui.stoneFor) hint = t("k_pick_second", { card: kCardName(ui.stoneFor), n: stoneValue(stoneOf(ui.stoneFor)) });
  else if (sel && o) hint = t("k_selected", { card: kCardName(sel) });
  else if (acts && acts.byCard.size) hint = t("k_select_hint");
  else if (acts && acts.draws.size) hint = t("khint_draw", { n: view.draws_left });
  return h("section", { class: `panel khand${acts && acts.any ? " active" : ""}`, testid: "my-hand", "aria-label": t("k_your_hand") },
    h("header", { class: "khand-head" },
      h("h2", {}, t("k_your_hand"), " ", h("small", { class: "hint" }, t("k_cards_n", { n: hand.length }))),
      h("div", { class: "ksort", role: "group", "aria-label": t("k_sort") }, h("span", { class: "hint" }, t("k_sort")),
        ["color", "value"].map((k) => h("button", { type: "button", class: `ghost small${ui.sort === k ? " on" : ""}`, "aria-pressed": ui.sort === k ? "true" : "false",
          testid: `sort-${k}`, onclick: () => { ui.sort = k; ctx.redraw(); } }, t(`k_sort_${k}`))))),
    h("div", { class: "khand-cards", testid: "hand-cards", dataset: { zone: "hand" } }, hand.map((c) => {
      const cls = `${playable(c) ? " can" : ""}${c === sel ? " sel" : ""}${partners.has(c) ? " partner lit" : ""}`;
      const el = cardFace(c, { testid: `hand-${c}`, extra: cls });
      if (playable(c) || partners.has(c)) {
        el.setAttribute("role", "button");
        el.setAttribute("tabindex", "0");
        el.setAttribute("aria-pressed", c === sel ? "true" : "false");
        el.dataset.hand = c;
      }
      return el;
    })),
    hint ? h("p", { class: "khint", testid: "hand-hint" }, hint) : null,
    buttons.length ? h("div", { class: "kactions", testid: "actions" }, buttons) : null);
}

function renderBoard(view, ctx = {}) {
  const acts = ctx.actions && ctx.actions.byCard ? ctx.actions : null;
  // A selection the prompt no longer backs (the turn moved on, the card left the hand) goes.
  if (!acts || !acts.byCard.get(ui.sel)) ui.sel = null;
  if (!acts || !(acts.byCard.get(ui.stoneFor) || { stones: [] }).stones.length) ui.stoneFor = null;
  const me = ctx.mySeat !== null && ctx.mySeat !== undefined ? view.players[ctx.mySeat] : null;
  let board = null;
  const local = {
    ...ctx,
    // A redraw replaces the board: the focus stays on the control of the same test id, or
    // goes to the one `focus` selects (a card chosen: its first action, one key away).
    redraw: (focus = null) => {
      if (!board || !board.isConnected) return;
      const had = document.activeElement && board.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
      const next = renderBoard(view, ctx);
      board.replaceWith(next);
      const el = (focus && next.querySelector(focus)) || (had && next.querySelector(`[data-testid="${CSS.escape(had)}"]`));
      if (el) el.focus({ preventScroll: true });
    },
    act: (a) => { ui.sel = null; ui.stoneFor = null; if (ctx.onAction) ctx.onAction(a); },
  };
  const targets = targetsOf(acts);
  const order = me ? [me, ...view.players.filter((p) => p.seat !== me.seat)] : view.players;
  board = h("div", { class: "board keltis", testid: "board", dataset: { game: "keltis", seq: view.seq, prompt: acts && acts.any ? "1" : "0" } },
    renderMiddle(view, local, targets),
    renderPileViewer(view, local),
    me && me.hand ? renderHand(view, me, local, acts) : null,
    h("div", { class: "kplayers", testid: "players" }, order.map((p) => renderPlayer(view, p, local))));
  for (const [key] of targets) {
    for (const el of board.querySelectorAll(`[data-drop="${CSS.escape(key)}"]`)) {
      el.classList.add("lit");
      el.setAttribute("role", "button");
      el.setAttribute("tabindex", "0");
    }
  }
  markLastMove(board, ctx.lastEvent);
  wire(board, local, acts, targets);
  return board;
}

/** Highlight where the last shown move left its card. */
function markLastMove(board, e) {
  if (!e) return;
  for (const id of e.cards || (e.card ? [e.card] : [])) {
    const el = board.querySelector(`.kplayers .kcard[data-card="${CSS.escape(id)}"], .kpiles .kcard[data-card="${CSS.escape(id)}"]`);
    if (el) el.classList.add("last-move");
  }
  if (typeof e.seat === "number") {
    const p = board.querySelector(`[data-testid="player-${e.seat}"]`);
    if (p) p.classList.add("last-actor");
  }
}

/** Do what dropping (or clicking) on place `key` means now; true when it meant something. */
function useTarget(key, ctx, targets) {
  const a = targets.get(key);
  if (!a) return false;
  if (a.pick) { ui.stoneFor = a.pick; ctx.redraw(); return true; }
  if (!ctx.pending) ctx.act(a);
  return true;
}

/** Clicks, keys and drags of the board: one listener set on the board (delegation). */
function wire(board, ctx, acts, targets) {
  const choose = (el) => {
    const card = el.dataset.hand;
    if (ui.stoneFor && card !== ui.stoneFor) {
      const a = (acts.byCard.get(ui.stoneFor) || { stones: [] }).stones.find((s) => s.cards[1] === card);
      if (a) { if (!ctx.pending) ctx.act(a); return; }
    }
    ui.stoneFor = null;
    ui.sel = ui.sel === card ? null : card;
    ctx.redraw(ui.sel ? "[data-testid=actions] button:not([disabled])" : null);
  };
  const activate = (target) => {
    const hand = target.closest("[data-hand]");
    if (hand && board.contains(hand)) { choose(hand); return; }
    const drop = target.closest("[data-drop]");
    if (drop && useTarget(drop.dataset.drop, ctx, targets)) return;
    // A pile that is no target now: a click shows its cards.
    const pile = target.closest(".kpile");
    if (pile && !target.closest("button") && Number(pile.dataset.count)) {
      ui.pile = pile.dataset.drop.slice(5);
      ctx.redraw();
    }
  };
  let suppressClick = false;
  board.addEventListener("click", (e) => {
    if (suppressClick) { suppressClick = false; return; }
    if (e.target.closest("button")) return;
    activate(e.target);
  });
  board.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && e.target.matches("[data-hand], [data-drop].lit")) { e.preventDefault(); activate(e.target); }
    if (e.key === "Escape" && (ui.sel || ui.stoneFor)) { ui.sel = null; ui.stoneFor = null; ctx.redraw(); }
  });
  if (!acts || !acts.byCard.size) return;
  // Drag a hand card onto a lit place (pointer events: mouse, pen and touch alike).
  let drag = null;
  board.addEventListener("dragstart", (e) => e.preventDefault());
  board.addEventListener("pointerdown", (e) => {
    const el = e.target.closest("[data-hand]");
    if (!el || e.button !== 0 || !acts.byCard.get(el.dataset.hand)) return;
    drag = { card: el.dataset.hand, el, x: e.clientX, y: e.clientY, id: e.pointerId, ghost: null, over: null, targets: null };
  });
  const dropAt = (x, y, targets) => {
    const under = document.elementFromPoint(x, y);
    const d = under && under.closest("[data-drop]");
    return d && targets.has(d.dataset.drop) ? d : null;
  };
  board.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 6) return;
      ui.sel = drag.card;
      ui.stoneFor = null;
      drag.targets = targetsOf(acts);
      for (const el of board.querySelectorAll(".lit")) el.classList.remove("lit");
      for (const [key] of drag.targets) for (const el of board.querySelectorAll(`[data-drop="${CSS.escape(key)}"]`)) el.classList.add("lit");
      drag.el.classList.add("dragging");
      drag.ghost = drag.el.cloneNode(true);
      drag.ghost.classList.add("kghost");
      drag.ghost.removeAttribute("data-testid");
      document.body.append(drag.ghost);
    }
    drag.ghost.style.transform = `translate(${e.clientX - 20}px, ${e.clientY - 28}px)`;
    const over = dropAt(e.clientX, e.clientY, drag.targets);
    if (over !== drag.over) {
      if (drag.over) drag.over.classList.remove("over");
      if (over) over.classList.add("over");
      drag.over = over;
    }
  });
  const end = (e, cancelled) => {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.ghost) return; // a click: the click handler selects
    d.ghost.remove();
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    const over = cancelled ? null : dropAt(e.clientX, e.clientY, d.targets);
    if (!over || !useTarget(over.dataset.drop, ctx, d.targets)) ctx.redraw(); // dropped elsewhere: the card stays selected
  };
  board.addEventListener("pointerup", (e) => end(e, false));
  board.addEventListener("pointercancel", (e) => end(e, true));
}

/** The final scoring, row by row, from the view's `result` (CONTRACT §3): per color row its
 *  points (and, beside them, the cards it holds), the point row, the stones, the total. */
function renderScore(view) {
  const r = view.result;
  if (!r) return null;
  const winners = r.winners || [];
  const names = winners.map((s) => seatNameOf(view, s));
  return h("section", { class: "panel score-panel kscore", testid: "score" },
    h("h2", {}, t("k_scoring")),
    h("p", { class: "winners", testid: "winners" }, "♛ ", t("winners_are", { names: listWords(names), n: names.length })),
    h("div", { class: "table-scroll" },
      h("table", { class: "score-table", testid: "score-table" },
        h("caption", { class: "sr-only" }, t("k_scoring")),
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("player")),
          h("th", { scope: "col" }, t("total")),
          COLORS.map((c) => h("th", { scope: "col", class: `k-${c}-text` }, h("span", { "aria-hidden": "true" }, GLYPH[c]), " ", kColor(c))),
          h("th", { scope: "col" }, t("k_point_row")),
          h("th", { scope: "col" }, t("k_stones")))),
        h("tbody", {}, r.scores.map((s) => {
          const p = view.players[s.seat] || {};
          return h("tr", { class: winners.includes(s.seat) ? "winner" : "", testid: `score-row-${s.seat}` },
            h("th", { scope: "row" }, winners.includes(s.seat) ? "♛ " : "", seatNameOf(view, s.seat)),
            h("td", { class: "total", testid: `score-total-${s.seat}` }, h("b", {}, s.total)),
            COLORS.map((c) => {
              const n = ((p.rows || {})[c] || { cards: [] }).cards.length;
              return h("td", { testid: `score-${s.seat}-${c}`, dataset: { points: s.rows[c] ?? "" }, title: n ? t("k_row_cell", { n, points: s.rows[c] }) : null },
                c in (s.rows || {}) ? [String(s.rows[c]), h("small", { class: "held" }, ` · ${t("k_cards_short", { n })}`)] : "–");
            }),
            h("td", { testid: `score-${s.seat}-point` }, s.point_row, h("small", { class: "held" }, ` · ${t("k_cards_short", { n: (p.point_row || []).length })}`)),
            h("td", { testid: `score-${s.seat}-stones` }, s.stones, h("small", { class: "held" }, ` · ${t("k_stones_short", { n: (p.stones || []).length })}`)));
        })))),
    h("p", { class: "hint" }, t("k_score_how")));
}

const where = (row) => (row === "point" ? t("k_on_point_row") : t("k_on_row", { color: kColor(row) }));
/** A discard pile as the log names it; `from`: the pile drawn from (German: dative). */
const pileWords = (pile, from = false) => (pile === "point" ? t(from ? "k_point_pile_from" : "k_point_pile")
  : t(from ? "k_color_pile_from" : "k_color_pile", { color: kColor(pile) }));

/** One sentence for a Keltis event (engine/keltis/events.py, as projected for this viewer). */
function describeEvent(e, names = []) {
  const name = typeof e.seat === "number" ? names[e.seat] ?? `#${e.seat + 1}` : "";
  switch (e.type) {
    case "game_started":
      return t("kev_game_started", { players: listWords((e.players || names).map((n, i) => names[i] ?? n)), n: e.deck_count ?? 101 });
    case "cards_removed": return t("kev_cards_removed", { n: e.count ?? (e.cards || []).length });
    case "hand_dealt": return t("kev_hand_dealt", { name, n: e.count ?? (e.cards || []).length });
    case "card_laid": return t("kev_card_laid", { name, card: kCardName(e.card), where: where(e.row) });
    case "card_discarded": return t("kev_card_discarded", { name, card: kCardName(e.card), pile: pileWords(e.pile) });
    case "stone_taken": return t("kev_stone_taken", { name, cards: listWords((e.cards || []).map(kCardName)), stone: kCardName(e.stone) });
    case "card_drawn":
      if (e.source === "deck") return e.card ? t("kev_drew_deck_card", { name, card: kCardName(e.card) }) : t("kev_drew_deck", { name });
      return t("kev_drew_pile", { name, card: kCardName(e.card), pile: pileWords(e.source, true) });
    case "draws_skipped": return t("kev_draws_skipped", { name, n: e.count });
    case "end_triggered": return t(e.reason === "rows_closed" ? "kev_end_rows" : "kev_end_deck", { name });
    case "final_turns_started": return t("kev_final_turns_started", { name });
    case "final_turn_ended": return t("kev_final_turn_ended", { name });
    case "game_ended": {
      const w = ((e.result && e.result.winners) || []).map((s) => names[s] ?? `#${s + 1}`);
      return t("kev_game_ended", { winners: t("winners_are", { names: listWords(w), n: w.length }) });
    }
    default: return seatEventText(e, names) ?? t("ev_unknown", { type: e.type }); // who plays a seat: the shell's words
  }
}

const MAJOR = new Set(["game_started", "end_triggered", "final_turns_started", "game_ended", "seat_timed_out", "seat_controller_changed"]);
const MOVES = new Set(["card_laid", "card_discarded", "stone_taken", "card_drawn", "final_turn_ended"]);

// Each term of the board (glossary.js) and the section of the rules page that says more.
const TERM_SECTIONS = {
  direction: "rows", closed: "end-cards", row_count: "scoring", point_row: "rows",
  hand_count: "public", stones: "turn", closed_rows: "end", end: "end", pile: "refill",
  deck: "end",
};

export const keltis = {
  name: "keltis",
  loadCatalogue,
  renderBoard,
  flipRender: (container, build) => flipRender(container, build, ".kplayers .kcard[data-card], .kpiles .kcard[data-card], .khand .kcard[data-card]"),
  turnText, winnersText, renderScore, describeEvent,
  eventSeat: (e) => (typeof e.seat === "number" ? e.seat : null),
  isMajor: (e) => MAJOR.has(e.type),
  groupActions,
  turnHint,
  isMove: (e) => MOVES.has(e.type),
  rules: keltisRules,
  errorTexts: keltisErrors,
  lesson,
  glossary: (key) => {
    const text = keltisGlossary(key, currentLang());
    return text ? { text, section: TERM_SECTIONS[key] } : null;
  },
};
