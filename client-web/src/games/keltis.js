// Keltis's board module: hands, color rows, point rows, stones, discard piles and the
// deck count, all from the view; card faces from the server's catalogue
// (GET /api/games/keltis/cards). The seat's moves are exactly the prompt's legal actions,
// one button each (a card in the hand, a row, a pile): the client decides nothing.
import { api } from "../api.js";
import { flipRender } from "../board.js";
import { h } from "../dom.js";
import { listWords, t } from "../i18n.js";

let CATALOGUE = null;
let loading = null;

function loadCatalogue() {
  if (CATALOGUE) return Promise.resolve(CATALOGUE);
  loading ||= api.cards("keltis").then((d) => (CATALOGUE = d));
  return loading;
}

/** A word of this module in the current language (the i18n key, else the English text). */
const tr = (key, fallback, params) => { const v = t(key, params); return v === key ? fallback : v; };

/** The face of a card: its value (or ∎ for an end card), its color as a class. */
function cardFace(id, { testid = null, small = false } = {}) {
  const c = (CATALOGUE && CATALOGUE.cards[id]) || null;
  const stones = (CATALOGUE && CATALOGUE.stones) || {};
  const label = c ? (c.kind === "end" ? "∎" : String(c.value)) : id in stones ? `◆${stones[id]}` : "?";
  const color = c ? c.color || "point" : "stone";
  return h("span", { class: `kcard k-${color}${small ? " small" : ""}`, title: id, testid, dataset: { card: id } }, label);
}

const seatNameOf = (view, seat) => (view.players[seat] ? view.players[seat].name : `#${seat + 1}`);

function turnText(view, mySeat) {
  if (!view) return "";
  if (view.phase === "ended") return t("phase_ended");
  const seat = view.current_seat;
  const who = seat === null || seat === undefined ? "" : seat === mySeat ? t("your_turn") : t("turn_of", { name: seatNameOf(view, seat) });
  const step = view.step ? tr(`kstep_${view.step}`, { play: "lay, discard or take a stone", draw: `draw (${view.draws_left})`, final: "final turn" }[view.step] || view.step) : "";
  return [view.phase === "final_turns" ? tr("kphase_final", "Final turns") : "", who, step].filter(Boolean).join(" · ");
}

function winnersText(view) {
  if (!view || view.phase !== "ended" || !view.result) return "";
  const names = (view.result.winners || []).map((i) => seatNameOf(view, i));
  return names.length ? t("winners_are", { names: listWords(names), n: names.length }) : "";
}

/** The label of a legal action: what it does, with the cards it names. */
function actionLabel(a) {
  switch (a.type) {
    case "lay": return [tr("k_lay", "Lay"), " ", cardFace(a.card, { small: true }), " → ", a.row];
    case "discard": return [tr("k_discard", "Discard"), " ", cardFace(a.card, { small: true })];
    case "stone": return [tr("k_stone", "Stone for"), " ", ...a.cards.map((c) => cardFace(c, { small: true }))];
    case "draw": return [tr("k_draw", "Draw from"), " ", a.from];
    case "finish": return tr("k_finish", "End the final turn");
    default: return a.type;
  }
}

const actionKey = (a) => [a.type, a.card || (a.cards || []).join("+") || a.from || "", a.row || ""].filter(Boolean).join("-");

function groupActions(legal) {
  return { list: legal || [], any: !!(legal && legal.length) };
}

function renderRows(p) {
  return h("div", { class: "krows" }, Object.entries(p.rows || {}).map(([color, row]) => h("div", { class: `krow k-${color}${row.closed ? " closed" : ""}`, testid: `row-${p.seat}-${color}` },
    h("span", { class: "kdir" }, row.direction === "rising" ? "↑" : row.direction === "falling" ? "↓" : "·"),
    row.cards.map((c) => cardFace(c, { small: true })))),
  p.point_row && p.point_row.length ? h("div", { class: "krow k-point", testid: `row-${p.seat}-point` }, p.point_row.map((c) => cardFace(c, { small: true }))) : null);
}

function renderBoard(view, ctx = {}) {
  const acts = (ctx.actions && ctx.actions.list) || [];
  const piles = Object.entries(view.discards || {});
  const me = ctx.mySeat;
  const mine = me !== null && me !== undefined ? view.players[me] : null;
  return h("div", { class: "board keltis", testid: "board", dataset: { game: "keltis" } },
    h("section", { class: "panel kmiddle" },
      h("div", { class: "kdeck", testid: "deck-count" }, `${tr("k_deck", "Deck")}: ${view.deck_count}`),
      h("div", { class: "kstones", testid: "stones" }, `${tr("k_stones", "Stones")}: `, (view.stones || []).map((s) => cardFace(s, { small: true }))),
      h("div", { class: "kpiles" }, piles.map(([pile, cards]) => h("div", { class: `kpile k-${pile}`, testid: `pile-${pile}` },
        h("span", { class: "kpile-name" }, `${pile} (${cards.length})`), cards.length ? cardFace(cards[cards.length - 1]) : null)))),
    mine && mine.hand ? h("section", { class: "panel khand", testid: "my-hand" },
      h("h2", {}, tr("k_your_hand", "Your hand")), mine.hand.map((c) => cardFace(c, { testid: `hand-${c}` }))) : null,
    acts.length ? h("section", { class: "panel kactions", testid: "actions" },
      acts.map((a) => h("button", { type: "button", class: "act", testid: `act-${actionKey(a)}`, disabled: !!ctx.pending, onclick: () => ctx.onAction(a) }, actionLabel(a)))) : null,
    h("section", { class: "kplayers" }, view.players.map((p) => h("div", { class: `panel kplayer${p.seat === view.current_seat ? " current" : ""}${p.seat === me ? " mine" : ""}`, testid: `player-${p.seat}` },
      h("h3", {}, p.name, " ", h("span", { class: "hint", testid: `hand-count-${p.seat}` }, `${tr("k_cards", "cards")}: ${p.hand_count}`),
        p.stones && p.stones.length ? [" ", p.stones.map((s) => cardFace(s, { small: true }))] : null),
      view.phase === "ended" && p.hand ? h("div", { class: "khand-end", testid: `final-hand-${p.seat}` }, p.hand.map((c) => cardFace(c, { small: true }))) : null,
      renderRows(p)))));
}

function renderScore(view) {
  const r = view.result;
  if (!r) return null;
  return h("section", { class: "panel score", testid: "score" },
    h("table", { class: "score-table", testid: "score-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, tr("k_rows", "rows")), h("th", {}, tr("k_point_row", "point row")), h("th", {}, tr("k_stones", "stones")), h("th", {}, tr("k_total", "total")))),
      h("tbody", {}, r.scores.map((s) => h("tr", { class: r.winners.includes(s.seat) ? "winner" : "" },
        h("th", {}, seatNameOf(view, s.seat)), h("td", {}, Object.values(s.rows).reduce((a, b) => a + b, 0)), h("td", {}, s.point_row), h("td", {}, s.stones), h("td", {}, h("b", {}, s.total)))))));
}

function describeEvent(e, names = []) {
  const who = typeof e.seat === "number" ? names[e.seat] || `#${e.seat + 1}` : "";
  const card = e.card ? ` ${e.card}` : e.cards && Array.isArray(e.cards) ? ` ${e.cards.join(", ")}` : e.count !== undefined ? ` (${e.count})` : "";
  const where = e.row ? ` → ${e.row}` : e.source ? ` ← ${e.source}` : e.pile ? ` → ${e.pile}` : "";
  return `${who ? `${who}: ` : ""}${e.type.replace(/_/g, " ")}${card}${where}`;
}

export const keltis = {
  name: "keltis",
  loadCatalogue,
  renderBoard, flipRender, turnText, winnersText, renderScore, describeEvent,
  eventSeat: (e) => (typeof e.seat === "number" ? e.seat : null),
  isMajor: (e) => ["game_started", "end_triggered", "final_turns_started", "game_ended"].includes(e.type),
  groupActions,
  turnHint: () => "",
  isMove: (e) => ["card_laid", "card_discarded", "card_drawn"].includes(e.type),
};
