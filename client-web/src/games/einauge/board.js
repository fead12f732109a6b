// The game board drawn from a client view (CONTRACT section 3 plus the server's display
// helpers): display, pirate table, deck, every player's color rows and resources. Shared
// by the live table and the replay viewer. Action buttons appear only for the actions the
// prompt lists (see actions.js); the board itself decides nothing.
import { term } from "../../glossary.js";
import { cardEl } from "./cards.js";
import { h } from "../../dom.js";
import { listWords, t } from "../../i18n.js";
import { cardName, colorName } from "./texts.js";
import { COLOR_GLYPH, icons } from "../../icons.js";

const EMPTY_ACTIONS = { byCard: new Map(), sellJewel: null, pass: null, any: false };

/** Text for whose turn and which step, e.g. "Anna's turn · Buy". */
export function turnText(view, mySeat) {
  if (!view) return "";
  if (view.phase === "ended") return t("phase_ended");
  const p = view.current_seat !== null && view.current_seat !== undefined ? view.players[view.current_seat] : null;
  const who = p ? (p.seat === mySeat ? t("your_turn") : t("turn_of", { name: p.name })) : "";
  const step = view.step ? t(`step_${view.step}`) : "";
  const phase = view.phase === "final_round" ? t("phase_final_round") : "";
  return [phase, who, step].filter(Boolean).join(" · ");
}

/** "Anna wins!" / "Anna and Ben win!" for an ended view with a result, else "". */
export function winnersText(view) {
  if (!view || view.phase !== "ended" || !view.result) return "";
  const names = (view.result.winners || []).map((i) => (view.players[i] ? view.players[i].name : `#${i + 1}`));
  return names.length ? t("winners_are", { names: listWords(names), n: names.length }) : "";
}

/** The deck panel's warning: the end is near (turns left) or the final round; none after the end. */
function endWarning(view) {
  if (view.phase === "final_round") return t("final_round_warning");
  if (view.end_triggered && view.phase !== "ended") return t("end_triggered");
  return "";
}

function resource(kind, n, seat, prev, focusable) {
  const changed = prev !== undefined && prev !== n;
  return h("div", {
    class: `res res-${kind}${changed ? (n > prev ? " up" : " down") : ""}`,
    ...term(`${kind}s`, focusable),
    testid: `${kind}s-${seat}`,
    dataset: { value: n },
  }, h("span", { html: icons[kind](t(kind === "sabre" ? "sabres" : kind === "ducat" ? "ducats" : "jewels")) }), h("b", {}, n));
}

function cardWithButtons(id, buttons, opts) {
  return h("div", { class: "slot", dataset: { slot: id } }, cardEl(id, opts), buttons.length ? h("div", { class: "btns" }, buttons) : null);
}

function fightLabel(cost) {
  return [t("act_fight"), h("span", { class: "cost" }, cost ?? "?", h("span", { html: icons.sabre(t("sabres")) }))];
}

function actButton(label, testid, onClick, { primary = false, disabled = false, title = null } = {}) {
  return h("button", { type: "button", class: `act${primary ? " primary" : ""}`, testid, onclick: onClick, disabled, title, "aria-label": title }, label);
}

/**
 * Build the board element. `ctx`: `mySeat` (int|null), `actions` (grouped prompt, see
 * actions.js, or null), `onAction(action)` / `onChoose(card, actions)`, `prev` (the view
 * before the last change, to mark changed resources), `pending` (bool), `lastEvent` (the
 * event shown last: its card and its player are highlighted).
 */
export function renderBoard(view, ctx = {}) {
  const board = buildBoard(view, ctx);
  markLastMove(board, ctx.lastEvent);
  return board;
}

/** Highlight where the last shown event left its card, and whose event it was. */
function markLastMove(board, e) {
  if (!e) return;
  if (e.card) {
    const card = board.querySelector(`.card[data-card="${CSS.escape(e.card)}"]`);
    if (card) { card.classList.add("last-move"); card.dataset.lastMove = e.type; }
  }
  if (typeof e.seat === "number") {
    const p = board.querySelector(`[data-testid="player-${e.seat}"]`);
    if (p) p.classList.add("last-actor");
  }
}

function buildBoard(view, ctx) {
  const acts = ctx.actions || EMPTY_ACTIONS;
  const disabled = !!ctx.pending;
  const prev = ctx.prev || null;
  const finalRound = view.phase === "final_round";
  const costs = view.fight_costs || {};

  const pick = (card, list) => (list.length === 1 ? ctx.onAction(list[0]) : ctx.onChoose(card, list));

  const displayCards = (view.display || []).map((id) => {
    const a = acts.byCard.get(id) || {};
    const buttons = [];
    if (a.buy) buttons.push(actButton(t("act_buy", { price: a.price }), `act-buy-${id}`, () => pick(id, a.buy), { primary: true, disabled, title: `${t("act_buy", { price: a.price })}: ${cardName(id)}` }));
    if (a.fight) buttons.push(actButton(fightLabel(costs[id]), `act-fight-${id}`, () => pick(id, a.fight), { primary: true, disabled, title: `${t("act_fight")}: ${cardName(id)} (${t("fight_cost_long", { n: costs[id] })})` }));
    if (a.place) buttons.push(actButton(t("act_place"), `act-place-${id}`, () => ctx.onAction(a.place), { disabled, title: `${t("act_place")}: ${cardName(id)}` }));
    return cardWithButtons(id, buttons, { fightCost: finalRound ? costs[id] : null });
  });

  const pirateCards = (view.pirate_table || []).map((id) => {
    const a = acts.byCard.get(id) || {};
    const buttons = [];
    if (a.fight) buttons.push(actButton(fightLabel(costs[id]), `act-fight-${id}`, () => pick(id, a.fight), { primary: true, disabled, title: `${t("act_fight")}: ${cardName(id)} (${t("fight_cost_long", { n: costs[id] })})` }));
    return cardWithButtons(id, buttons, { fightCost: costs[id], where: "pirate" });
  });

  const prevPlayers = prev && prev.players ? prev.players : [];
  const players = (view.players || []).map((p) => renderPlayer(p, view, ctx, acts, prevPlayers[p.seat], disabled));

  const general = [];
  if (acts.sellJewel) general.push(actButton(t("act_sell_jewel"), "act-sell-jewel", () => ctx.onAction(acts.sellJewel), { disabled }));
  if (acts.pass) general.push(actButton(t("act_pass"), "act-pass", () => ctx.onAction(acts.pass), { disabled }));

  return h("div", { class: "board", testid: "board", dataset: { seq: view.seq } },
    h("div", { class: "center" },
      h("section", { class: "panel display-panel", "aria-label": t("display") },
        h("h2", {}, h("span", term("display"), t("display"))),
        h("div", { class: "cards", testid: "display", dataset: { zone: "display" } }, displayCards)),
      h("section", { class: "panel pirate-panel", "aria-label": t("pirate_table") },
        h("h2", {}, h("span", { class: "eye", html: icons.patch() }), h("span", term("pirate_table"), t("pirate_table")), h("span", { class: "count" }, t("deck_cards", { n: (view.pirate_table || []).length }))),
        h("div", { class: "cards", testid: "pirate-table", dataset: { zone: "pirate" } }, pirateCards)),
      h("section", { class: "panel deck-panel", "aria-label": t("deck") },
        h("div", { class: "deck-stack", "aria-hidden": "true" }, h("span", { html: icons.eye() })),
        h("div", { class: "deck-info" },
          h("div", { class: "deck-count", testid: "deck-count", dataset: { value: view.deck_count }, ...term("deck") }, h("b", {}, t("deck")), " ", t("deck_cards", { n: view.deck_count ?? 0 })),
          view.islands_in_deck !== undefined ? h("div", { class: "islands-left", testid: "islands-left", dataset: { value: view.islands_in_deck }, ...term("islands_left") }, t("islands_left", { n: view.islands_in_deck })) : null,
          endWarning(view) ? h("div", { class: "end-warning", testid: "end-triggered", dataset: { phase: view.phase }, ...term("end_warning") }, endWarning(view)) : null),
        general.length ? h("div", { class: "general-actions" }, general) : null)),
    h("div", { class: "players", testid: "players" }, players));
}

function renderPlayer(p, view, ctx, acts, prevP, disabled) {
  const isTurn = view.current_seat === p.seat && view.phase !== "ended";
  const mine = ctx.mySeat === p.seat;
  const winners = (view.result && view.result.winners) || [];
  const colors = view.colors || Object.keys(p.rows || {});
  const chests = p.chests || {};
  // The terms are in the Tab order once: in the own area (a spectator's: the first seat's).
  const focusable = ctx.mySeat === undefined || ctx.mySeat === null ? p.seat === 0 : mine;
  const held = colors.filter((c) => p.rows && p.rows[c]);
  const rows = held.map((c) => {
    const cards = p.rows[c].map((id) => {
      const a = acts.byCard.get(id) || {};
      const sell = mine && a.sell ? actButton(t("act_sell_card"), `act-sell-${id}`, () => ctx.onAction(a.sell), { disabled, title: `${t("act_sell_card")}: ${cardName(id)}` }) : null;
      return h("div", { class: "row-card" }, cardEl(id, { small: true, where: "row" }), sell);
    });
    return h("div", { class: `crow c-${c}`, testid: `row-${p.seat}-${c}` },
      h("div", { class: "crow-head" },
        h("span", { class: "glyph", "aria-hidden": "true" }, COLOR_GLYPH[c]),
        h("span", { class: "cname" }, colorName(c)),
        h("span", { class: "chests", testid: `chests-${p.seat}-${c}`, dataset: { value: chests[c] || 0 }, ...term("chests", focusable && c === held[0]) },
          h("span", { html: icons.chest(t("chests")) }), chests[c] || 0)),
      h("div", { class: "crow-cards", dataset: { zone: `row-${p.seat}-${c}` } }, cards));
  });
  const lone = (p.lone_ships || []).length
    ? h("div", { class: "crow lone", testid: `lone-${p.seat}` },
      h("div", { class: "crow-head" }, h("span", { class: "cname", ...term("lone_ships", focusable) }, t("lone_ships"))),
      h("div", { class: "crow-cards", dataset: { zone: `lone-${p.seat}` } }, p.lone_ships.map((id) => h("div", { class: "row-card" }, cardEl(id, { small: true, where: "row" })))))
    : null;
  return h("section", {
    class: `player seat-${p.seat}${isTurn ? " turn" : ""}${mine ? " mine" : ""}${winners.includes(p.seat) ? " winner" : ""}`,
    testid: `player-${p.seat}`,
    "aria-label": t("rows_of", { name: p.name }),
  },
  h("header", {},
    h("span", { class: "seat-no" }, p.seat + 1),
    h("span", { class: "pname" }, p.name, mine ? h("small", {}, ` (${t("you")})`) : null),
    isTurn ? h("span", { class: "turn-badge", testid: `turn-${p.seat}`, ...term("step", focusable) }, view.step ? t(`step_${view.step}`) : "…") : null,
    winners.includes(p.seat) ? h("span", { class: "crown", title: t("winner") }, "♛") : null),
  h("div", { class: "resources" },
    resource("sabre", p.sabres, p.seat, prevP && prevP.sabres, focusable),
    resource("ducat", p.ducats, p.seat, prevP && prevP.ducats, focusable),
    resource("jewel", p.jewels, p.seat, prevP && prevP.jewels)),
  h("div", { class: "crows" }, rows.length || lone ? [rows, lone] : h("div", { class: "none" }, t("no_rows"))));
}
