// Loot Island's board module: the island's four coasts with their eight landings (cards
// bottom to top, discs in arrival order), the ship, islets, the event in force, the loot
// offer, the healers, every player's cubes, loot and discs, the own hand, and the score
// breakdown: all from the view (CONTRACT-loot-island §3) and the catalogue
// (GET /api/games/loot-island/cards). The seat's choices are exactly the prompt's legal
// actions: a card is selectable only while some legal play, islet or discard holds the
// cards chosen so far plus it; a landing, an islet, a joker value or a copy is offered only
// where a legal action has exactly that; the action sent is the listed one. Nothing here
// computes a rule, a cost or a score.
import "./style.css";
import { api } from "../../api.js";
import { flipRender } from "../../flip.js";
import { seatEventText } from "../../seatlog.js";
import { h, mount } from "../../dom.js";
import { currentLang, listWords, t } from "../../i18n.js";
import { COLOR_GLYPH, icons } from "../../icons.js";
import { lootIslandErrors } from "./errors.js";
import { lesson } from "./lesson.js";
import { lootIslandGlossary } from "./texts.js";
import { term } from "../../glossary.js";
import { lootIslandRules } from "./rules.js";

const GAME = "loot-island";
let CAT = null;
let loading = null;

function loadCatalogue() {
  if (CAT) return Promise.resolve(CAT);
  loading ||= api.cards(GAME).then((d) => (CAT = d));
  return loading;
}

const COASTS = ["north", "east", "south", "west"];
const tt = (key) => t(key) || {};
const coastName = (c) => tt("li_coasts")[c] || c;
/** "North 1" for `north-1`. */
const landingName = (id) => { const [c, n] = String(id).split("-"); return t("li_landing", { coast: coastName(c), n }); };
const colourName = (c) => tt("li_colours")[c] || c;
const isletName = (id) => tt("li_islet_names")[id] || id;
const mapInfo = (id) => (CAT && CAT.map[id]) || null;
const lootInfo = (id) => (CAT && CAT.loot[id]) || null;
const healerInfo = (id) => (CAT && CAT.healers[id]) || null;
const seatName = (view, seat) => (view.players[seat] ? view.players[seat].name : `#${seat + 1}`);

// ---- card faces ----------------------------------------------------------------------

/** "red 7" / "blue ★" (a joker; with its named value `v` on the board: "blue ★9"). */
function mapText(id, v = null) {
  const c = mapInfo(id);
  if (!c) return id;
  return `${colourName(c.colour)} ${c.value === 0 ? `★${v ?? ""}` : c.value}`;
}

/** A map card: its colour (class and name), value (★ and the named value for a joker)
 *  and its action. */
function mapCard(id, { value = null, testid = null, small = false, selected = false, selectable = null, onclick = null, order = null, last = false } = {}) {
  const c = mapInfo(id);
  const joker = c && c.value === 0;
  const action = c ? c.action : "none";
  const title = [mapText(id, value), joker ? (value ? t("li_joker_named", { v: value }) : t("li_joker")) : "", tt("li_actions_long")[action] || ""].filter(Boolean).join(" · ");
  const cls = `lcard l-${c ? c.colour : "unknown"}${small ? " small" : ""}${joker ? " joker" : ""}${selected ? " selected" : ""}${selectable === false ? " unselectable" : ""}${last ? " last-move" : ""}`;
  const body = [
    h("span", { class: "lval" }, c ? (joker ? `★${value ?? ""}` : c.value) : "?"),
    h("span", { class: "lcol" }, c ? h("span", { class: "lglyph", "aria-hidden": "true" }, COLOR_GLYPH[c.colour] || "") : null, c ? h("span", { class: "lcname" }, colourName(c.colour)) : ""),
    action !== "none" ? h("span", { class: `lact a-${action}`, ...term(`mark_${action}`, false) }, tt("li_actions_short")[action] || action) : null,
    order ? h("span", { class: "lorder" }, order) : null,
  ];
  const attrs = { class: cls, title, testid, dataset: { card: id, value: value ?? (c ? c.value : "") } };
  if (onclick) return h("button", { ...attrs, type: "button", "aria-pressed": selected ? "true" : "false", disabled: selectable === false, onclick }, body);
  return h("span", attrs, body);
}

/** A loot card: kind, gold, curse, crosses / book multiplier / skull variant. */
function lootCard(id, { testid = null, small = true } = {}) {
  const c = lootInfo(id);
  if (!c) return h("span", { class: "loot", testid, dataset: { card: id } }, id);
  const kind = tt("li_kinds")[c.kind] || c.kind;
  const extra = c.kind === "crown" ? ` ✝${c.crosses}` : c.kind === "book" ? ` ×${c.multiplier}` : c.kind === "skull" ? ` ${c.variant}` : "";
  return h("span", { class: `loot lk-${c.kind}${small ? " small" : ""}`, testid, dataset: { card: id },
    title: t("li_loot_title", { kind, gold: c.gold, curse: c.curse, extra }) },
  h("span", { class: "lkind" }, kind, extra),
  h("span", { class: "lnums" }, c.kind !== "book" ? h("span", { class: "lgold" }, `${c.gold}◉`) : null, h("span", { class: "lcurse" }, `${c.curse}☠`)));
}

const disc = (seat, names, i) => h("span", { class: `ldisc s${seat}`, title: `${i + 1}. ${names[seat] || `#${seat + 1}`}`, testid: "disc", dataset: { seat } }, seat + 1);

// ---- texts ---------------------------------------------------------------------------

function turnText(view, mySeat) {
  if (!view) return "";
  if (view.phase === "ended") return t("phase_ended");
  const seat = view.current_seat;
  const who = seat === null || seat === undefined ? "" : seat === mySeat ? t("your_turn") : t("turn_of", { name: seatName(view, seat) });
  return [t("li_round", { r: view.round }), tt("li_phase")[view.phase] || view.phase, who].filter(Boolean).join(" · ");
}

function winnersText(view) {
  if (!view || view.phase !== "ended" || !view.result) return "";
  const names = (view.result.winners || []).map((i) => seatName(view, i));
  return names.length ? t("winners_are", { names: listWords(names), n: names.length }) : t("li_none");
}

const turnHint = (v) => tt("li_step")[v.step] || "";

/** What event `id` changes while in force, from the catalogue's modifiers. */
function eventEffect(id) {
  const mods = (CAT && CAT.events && CAT.events[id]) || null;
  if (!mods) return "";
  const parts = Object.entries(mods).map(([k, v]) => { const f = tt("li_mod")[k]; return f ? f({ v }) : `${k} ${v}`; });
  return parts.length ? parts.join("; ") : t("li_mod_nothing");
}
/** Event `id`'s name ("Low Tide"); an id the texts do not name (a newer server) as its
 *  catalogue code ("Event A05"). */
const eventName = (id) => tt("li_event_names")[id] || `${t("li_event")} ${String(id).replace("event-", "").toUpperCase()}`;

function isletEffect(id) {
  const f = tt("li_islet_effects")[id];
  return f ? f((CAT && CAT.islet_numbers) || {}) : "";
}

// A glossary term inside a sentence of the log (a word the page explains in place): the
// sentence is built with a marker per term and split into text and term elements after.
const MARK = "\u2063";

/** One sentence for event `e`: a string, or a list of strings and term elements when it
 *  names an islet or a loot card's "(gold/curse)" (glossary.js: hover, focus, a tap). */
function describeEvent(e, names = []) {
  const seat = seatEventText(e, names); // who plays a seat: the shell's words
  if (seat) return seat;
  const f = tt("li_ev")[e.type];
  const who = typeof e.seat === "number" ? names[e.seat] || `#${e.seat + 1}` : "";
  if (!f) return `${who ? `${who}: ` : ""}${e.type.replace(/_/g, " ")}`;
  const terms = [];
  const mark = (key, text) => { terms.push([key, text]); return `${MARK}${terms.length - 1}${MARK}`; };
  const loot = (c) => lootText(c, mark);
  const cards = (list, values = {}) => (list || []).map((c) => (c.startsWith("loot-") ? loot(c) : mapText(c, values[c]))).join(", ");
  const text = f({
    who, round: e.round, n: e.cubes ?? e.count ?? (e.cards ? e.cards.length : 0), card: e.card ? (e.card.startsWith("loot-") ? loot(e.card) : mapText(e.card)) : "",
    cards: cards(e.cards, e.values || {}), landing: e.landing ? landingName(e.landing) : "", coast: coastName(e.ship || e.coast), event: e.event ? `${eventName(e.event)} (${eventEffect(e.event)})` : "",
    islet: e.islet ? mark("islet", isletName(e.islet)) : "", skip: e.skip, under: e.under, copy: e.copy ? tt("li_actions_short")[e.copy] : "", forced: e.forced, marker: e.start_marker,
    size: e.size, healer: e.healer ? healerText(e.healer) : "", healers: (e.healers || []).map(healerText).join(", "),
  });
  if (!terms.length) return text;
  return text.split(MARK).map((part, i) => {
    if (i % 2 === 0) return part;
    const [key, words] = terms[Number(part)];
    return h("span", { class: "term-word", ...term(key, false) }, words);
  });
}
/** A loot card in words: "Crown ✝2 (3/1)", its gold and curse in brackets; `mark(key,
 *  text)`, when given, makes the brackets a glossary term. */
function lootText(id, mark = null) {
  const c = lootInfo(id);
  if (!c) return id;
  const extra = c.kind === "crown" ? ` ✝${c.crosses}` : c.kind === "book" ? ` ×${c.multiplier}` : c.kind === "skull" ? ` ${c.variant}` : "";
  const values = `(${c.gold}/${c.curse})`;
  return `${tt("li_kinds")[c.kind] || c.kind}${extra} ${mark ? mark("loot_values", values) : values}`;
}
function healerText(id) {
  const c = healerInfo(id);
  return c ? t("li_healer_cost", { m: c.multiplier, f: c.fixed }) : id;
}

// ---- the prompt ----------------------------------------------------------------------
// The preparation's discards and the action step's plays and islet uses come as the
// engine's compact form (`legal_form`, docs/games.md "Compact prompts"): any subset of
// the listed discard cards; per run at a landing at most one `first` card, then any of
// its `cards` and `jokers` (laid by value, ties in list order; each joker named a value of
// `values`); a lone `under` card with or without a listed `copy`; any 2 cards of one islet
// `pay` group with one of its `uses`. Picks and healers come listed (`legal_actions`).
// The module only reads the form: it builds exactly the actions the form describes.

const index = new WeakMap();

/** The prompt indexed for the board (memoized per prompt): picks by loot card, healers,
 *  pass from the listed actions; the discard cards, play runs and unders, islet payments
 *  and uses from the form. Its `legal` is the object the prompt carried (the form, else
 *  the list): the selection starts afresh when that changes. */
function groupActions(legal, details, form) {
  const key = form || legal;
  if (!key) return { any: false, legal: null };
  let g = index.get(key);
  if (g) return g;
  g = { any: form ? true : legal.length > 0, legal: key, seat: form ? form.seat : null, take: new Map(), drop: new Map(), healers: new Map(), pass: null, discard: null, runs: [], unders: [], islets: null };
  for (const a of legal || []) {
    if (a.type === "take_loot") g.take.set(a.card, a);
    else if (a.type === "discard_loot") g.drop.set(a.card, a);
    else if (a.type === "choose_healer") g.healers.set(a.healer, a);
    else if (a.type === "pass") g.pass = a;
  }
  if (form) {
    if (form.discard) g.discard = form.discard.cards;
    for (const e of form.plays || []) (e.under ? g.unders : g.runs).push(e);
    g.islets = form.islets || null;
    if (form.pass) g.pass = { type: "pass", seat: form.seat };
  }
  index.set(key, g);
  return g;
}

const within = (chosen, pool) => chosen.every((c) => pool.includes(c));

/** Does `chosen` fit run `e`: some card, all of the run's, at most one of its `first`? */
function fitsRun(e, chosen) {
  const all = [...e.first, ...e.cards.map(([c]) => c), ...e.jokers];
  return chosen.length > 0 && within(chosen, all) && chosen.filter((c) => e.first.includes(c)).length <= 1;
}

/** Every play the form holds with exactly the cards `chosen`, at any landing: per landing
 *  one for each joker value (each joker any value of its run's range) or copy. */
function playsFor(acts, chosen) {
  const out = [];
  if (!chosen.length) return out;
  for (const e of acts.unders) {
    if (chosen.length !== 1 || chosen[0] !== e.under) continue;
    out.push({ type: "play", seat: acts.seat, landing: e.landing, cards: [e.under] });
    for (const copy of e.copy) out.push({ type: "play", seat: acts.seat, landing: e.landing, cards: [e.under], copy });
  }
  for (const e of acts.runs) {
    if (!fitsRun(e, chosen)) continue;
    const first = e.first.filter((c) => chosen.includes(c));
    const value = new Map(e.cards);
    const order = new Map([...e.cards.map(([c]) => c), ...e.jokers].map((c, i) => [c, i]));
    const rest = [...order.keys()].filter((c) => chosen.includes(c));
    const jokers = e.jokers.filter((c) => chosen.includes(c));
    const [lo, hi] = e.values;
    let named = [{}];
    for (const j of jokers) {
      const next = [];
      for (const jv of named) for (let v = lo; v <= hi; v += 1) next.push({ ...jv, [j]: v });
      named = next;
    }
    for (const jv of named) {
      const laid = [...rest].sort((x, y) => (jv[x] ?? value.get(x)) - (jv[y] ?? value.get(y)) || order.get(x) - order.get(y));
      const a = { type: "play", seat: acts.seat, landing: e.landing, cards: [...first, ...laid] };
      if (jokers.length) a.values = jv;
      out.push(a);
    }
  }
  return out;
}

/** The islet uses the form holds for exactly the 2 cards `chosen` (paid in list order). */
function isletsFor(acts, chosen) {
  const isl = acts.islets;
  if (!isl || chosen.length !== 2) return [];
  const group = isl.pay.find((p) => within(chosen, p));
  if (!group) return [];
  const cards = group.filter((c) => chosen.includes(c));
  return isl.uses.map((u) => ({ type: "islet", seat: acts.seat, ...u, cards }));
}

/** The discard of exactly the cards `chosen` (none: keep all), in the form's order. */
function discardFor(acts, chosen) {
  if (!acts.discard || !within(chosen, acts.discard)) return null;
  return { type: "discard", seat: acts.seat, cards: acts.discard.filter((c) => chosen.includes(c)) };
}

/** Cards that may join the selection: each makes, with the chosen ones, a set that some
 *  action of the form holds (or a part of one). */
function selectable(acts, chosen) {
  const out = new Set();
  const add = (pool) => { if (within(chosen, pool)) for (const c of pool) if (!chosen.includes(c)) out.add(c); };
  if (acts.discard) add(acts.discard);
  if (!chosen.length) for (const e of acts.unders) out.add(e.under);
  for (const e of acts.runs) {
    if (chosen.length && !fitsRun(e, chosen)) continue;
    const firstTaken = chosen.some((c) => e.first.includes(c));
    for (const c of firstTaken ? [] : e.first) if (!chosen.includes(c)) out.add(c);
    for (const c of [...e.cards.map(([x]) => x), ...e.jokers]) if (!chosen.includes(c)) out.add(c);
  }
  if (acts.islets && chosen.length < 2) for (const p of acts.islets.pay) add(p);
  return out;
}

// The choice being put together on this page: the cards chosen (in the order clicked), and
// once a landing or islet is chosen, that target and the joker values / option chosen.
// Kept per prompt: a new prompt starts afresh.
let sel = { legal: null, cards: [], target: null, values: {}, copy: undefined };
function selection(acts) {
  if (!acts || sel.legal !== acts.legal) sel = { legal: acts ? acts.legal : null, cards: [], target: null, values: {}, copy: undefined };
  return sel;
}

// ---- the board -----------------------------------------------------------------------

function renderBoard(view, ctx = {}) {
  const wrap = h("div", { class: "board loot-island", testid: "board", dataset: { game: GAME, seq: view.seq } });
  // `first`: the render of a new view, not a click on this board (nothing scrolls then).
  const redraw = (first = false) => {
    const opening = !wrap.querySelector("[data-testid=chooser]");
    const played = !!wrap.querySelector("[data-testid^=play-]");
    mount(wrap, boardParts(view, ctx, redraw));
    wrap.classList.toggle("choosing", !!sel.target);
    watchHand(wrap);
    if (sel.target && opening) requestAnimationFrame(() => showClear(wrap, wrap.querySelector("[data-testid=chooser]")));
    // Cards just chosen that some landing takes: its "Play here" in view, not under the hand.
    else if (!first && !played) requestAnimationFrame(() => showPlays(wrap));
  };
  redraw(true);
  return wrap;
}

/** Keep `--hand-h` on the board at the pinned hand's height (px): the landings' and islets'
 *  buttons keep that much scroll margin below them (style.css), so focusing or scrolling to
 *  one brings it above the hand, never under it. */
function watchHand(wrap) {
  const hand = wrap.querySelector("[data-testid=my-hand]");
  if (!hand) { wrap.style.removeProperty("--hand-h"); return; }
  new ResizeObserver(([e], obs) => {
    if (!e.target.isConnected) { obs.disconnect(); return; }
    wrap.style.setProperty("--hand-h", `${e.target.offsetHeight}px`);
  }).observe(hand);
}

/** The window's part nothing pinned covers, as `[top, bottom]` px of the viewport: under
 *  the header and the turn banner, above the hand while it is pinned (and `el` not in it). */
function clearArea(wrap, el) {
  const top = Math.max(0, ...[...document.querySelectorAll(".site-header, .table-page > .turn-banner")].map((e) => e.getBoundingClientRect().bottom));
  const hand = wrap.querySelector("[data-testid=my-hand]");
  const pinned = hand && !hand.contains(el) && getComputedStyle(hand).position === "sticky";
  return [top, pinned ? Math.min(window.innerHeight, hand.getBoundingClientRect().top) : window.innerHeight];
}

/** Scroll `el` (a chooser just opened, a "Play here" just offered) into the part of the
 *  window nothing pinned covers: it may lie at the window's bottom edge, under the hand. */
function showClear(wrap, el) {
  if (!el) return;
  const [top, bottom] = clearArea(wrap, el);
  const r = el.getBoundingClientRect();
  const gap = 6;
  if (r.top < top + gap) window.scrollBy(0, r.top - top - gap);
  else if (r.bottom > bottom - gap) window.scrollBy(0, Math.min(r.bottom - bottom + gap, r.top - top - gap));
}

/** After a click that offered "Play here" buttons: when none is wholly in the clear part
 *  of the window, the first one is scrolled there. */
function showPlays(wrap) {
  const plays = [...wrap.querySelectorAll("[data-testid^=play-]")];
  if (!plays.length) return;
  const [top, bottom] = clearArea(wrap, plays[0]);
  const clear = (b) => { const r = b.getBoundingClientRect(); return r.top >= top && r.bottom <= bottom; };
  if (!plays.some(clear)) showClear(wrap, plays[0]);
}

function boardParts(view, ctx, redraw) {
  const acts = ctx.actions && ctx.actions.legal ? ctx.actions : null;
  const s = selection(acts);
  const names = view.players.map((p) => p.name);
  const me = ctx.mySeat;
  const mine = me !== null && me !== undefined ? view.players[me] : null;
  const disabled = !!ctx.pending;
  const send = (a) => { sel = { legal: null, cards: [], target: null, values: {}, copy: undefined }; ctx.onAction(a); };
  // The hand right under the island (pinned to the window's bottom while the page is
  // taller than the window): cards are chosen there and played at a landing above.
  return [
    renderIsland(view, ctx, names, acts, s, disabled, send, redraw),
    view.offer ? renderOffer(view, names, acts, disabled, send) : null,
    view.healers ? renderHealers(view, names, acts, disabled, send) : null,
    mine && mine.hand && view.phase !== "ended" ? renderHand(view, mine, acts, s, disabled, send, redraw) : null,
    renderIslets(view, acts, s, disabled, send, redraw),
    h("section", { class: "lplayers", testid: "players" }, view.players.map((p) => renderPlayer(view, p, me, ctx.lastEvent))),
  ];
}

function renderIsland(view, ctx, names, acts, s, disabled, send, redraw) {
  const plays = acts ? playsFor(acts, s.cards) : [];
  const at = new Set(plays.map((a) => a.landing));
  // The cards of the last shown play are marked where they now lie.
  const e = ctx.lastEvent;
  const lastLaid = e && e.type === "map_cards_played" ? new Set(e.cards.map((c) => `${e.landing}/${c}`)) : new Set();
  const landing = (id) => {
    const x = view.landings[id];
    const explored = id.startsWith(`${view.ship}-`);
    const choosing = s.target && s.target.kind === "play" && s.target.id === id;
    return h("div", { class: `landing${x.colour ? ` l-${x.colour}-edge` : ""}${explored ? " explored" : ""}`, testid: `landing-${id}`, dataset: { colour: x.colour || "", count: x.count, chests: x.chests } },
      h("header", {}, h("b", {}, landingName(id)), x.colour ? h("span", { class: "hint" }, ` · ${colourName(x.colour)}`) : null,
        h("span", { class: "lstat", testid: `count-${id}`, ...term("count", id === "north-1") }, `${x.count} · ${x.chests}`, h("span", { html: icons.chest(t("li_chests")) }))),
      h("div", { class: "lrow", dataset: { zone: `landing-${id}` } }, x.cards.length
        ? x.cards.map((c) => mapCard(c.card, { value: mapInfo(c.card) && mapInfo(c.card).value === 0 ? c.value : null, small: true, last: lastLaid.has(`${id}/${c.card}`) }))
        : h("span", { class: "hint" }, t("li_no_cards"))),
      h("div", { class: "ldiscs", testid: `discs-${id}`, ...term("discs", false) }, x.discs.map((seat, i) => disc(seat, names, i))),
      at.has(id) && s.cards.length ? h("button", { type: "button", class: "act primary", testid: `play-${id}`, disabled,
        onclick: () => choose(plays.filter((a) => a.landing === id), { kind: "play", id }, s, send, redraw) }, t("li_play_here")) : null,
      choosing ? renderChooser(s, disabled, send, redraw) : null);
  };
  const coast = (c) => h("div", { class: `coast coast-${c}${view.ship === c ? " explored" : ""}`, testid: `coast-${c}` },
    // One space in the text ("Nord wird erkundet"): the icon's room is the badge's gap.
    h("h3", {}, coastName(c), view.ship === c ? [" ", h("span", { class: "ship-badge", testid: "ship", title: t("li_ship_at", { coast: coastName(c) }) }, h("span", { html: icons.ship(t("li_ship")) }), t("li_explored"))] : null),
    h("div", { class: "landings" }, [`${c}-1`, `${c}-2`].map(landing)));
  // A corner holds the ship while it is at that coast; else it stays empty (no mark).
  const corner = (c) => h("div", { class: `ship-space ship-${c}${view.ship === c ? " here" : ""}`, testid: `ship-space-${c}`, title: view.ship === c ? t("li_ship") : null, "aria-hidden": view.ship === c ? null : "true" }, view.ship === c ? h("span", { html: icons.ship(t("li_ship")) }) : null);
  const ev = view.event;
  return h("section", { class: "panel island", testid: "island", "aria-label": t("li_island") },
    COASTS.map(coast), COASTS.map(corner),
    h("div", { class: "island-centre" },
      h("div", { class: "lround", testid: "round" }, t("li_round", { r: view.round })),
      h("div", { class: "lship", testid: "ship-at", dataset: { ship: view.ship } }, h("span", { html: icons.ship(t("li_ship")) }), ` ${t("li_ship_at", { coast: coastName(view.ship) })}`),
      h("div", { class: "lmin", testid: "minimum", dataset: { value: view.min_cards }, ...term("minimum") }, t("li_minimum", { n: view.min_cards })),
      h("div", { class: "levent", testid: "event", dataset: { event: ev || "" }, ...term("event") },
        ev ? [`${t("li_event")}: `, h("b", { testid: "event-name" }, eventName(ev)), " — ", h("span", { testid: "event-effect" }, eventEffect(ev))]
          : (view.events_seen || []).length || view.event_deck_count ? t("li_event_none") : t("li_events_off")),
      (view.events_seen || []).length > 1 ? h("div", { class: "hint", testid: "events-seen" }, `${t("li_events_seen")}: `, view.events_seen.flatMap((e, i) => [i ? ", " : "", h("span", { title: eventEffect(e), dataset: { event: e } }, eventName(e))])) : null,
      view.event_deck_count ? h("div", { class: "hint", testid: "event-deck" }, t("li_event_deck", { n: view.event_deck_count })) : null,
      h("div", { class: "ldecks" },
        h("span", { testid: "map-deck", dataset: { value: view.map_deck_count } }, t("li_map_deck", { n: view.map_deck_count })),
        h("span", { testid: "map-discard" }, t("li_map_discard", { n: view.map_discard.length }), view.map_reshuffles ? ` · ${t("li_reshuffles", { n: view.map_reshuffles })}` : ""),
        h("span", { testid: "loot-deck", dataset: { value: view.loot_deck_count } }, t("li_loot_deck", { n: view.loot_deck_count }),
          ` (${Object.entries(view.loot_deck_counts || {}).map(([d, n]) => `${d}: ${n}`).join(", ")})`),
        h("span", { testid: "loot-discard" }, t("li_loot_discard", { n: view.loot_discard.length })))));
}

/** Choose among the legal actions `cands` for the chosen cards at one target: one is
 *  sent at once; several (joker values, a copy, islet parameters) open the chooser. */
function choose(cands, target, s, send, redraw) {
  if (cands.length === 1) { send(cands[0]); return; }
  s.target = { ...target, cands };
  s.values = {};
  s.copy = undefined;
  redraw();
}

/** The chooser of a play's joker values and copy, or an islet's parameters: every button
 *  is one of the values or options that some remaining legal action has. */
function renderChooser(s, disabled, send, redraw) {
  const { cands, kind } = s.target;
  const cancel = h("button", { type: "button", class: "ghost small", testid: "chooser-cancel", onclick: () => { s.target = null; redraw(); } }, t("li_cancel"));
  if (kind === "islet") {
    const label = (a) => (a.skip ? t("li_skip") : a.from ? t("li_from_to", { from: landingName(a.from), to: landingName(a.to) }) : a.landing ? t("li_at", { landing: landingName(a.landing) }) : t("li_use"));
    const optKey = (a) => (a.skip ? "skip" : a.from ? `${a.from}-${a.to}` : a.landing || "use");
    return h("div", { class: "chooser", testid: "chooser" }, h("b", {}, t("li_islet_for", { islet: isletName(s.target.id) })),
      h("div", { class: "opts" }, cands.map((a) => h("button", { type: "button", class: "act", testid: `islet-opt-${optKey(a)}`, disabled, onclick: () => send(a) }, label(a)))), cancel);
  }
  // Jokers in the order of the chosen cards; each one's values are those of the legal
  // plays that agree with the values chosen before it.
  const jokers = s.cards.filter((c) => cands.some((a) => a.values && c in a.values));
  let left = cands;
  const rows = [];
  for (const j of jokers) {
    const values = [...new Set(left.map((a) => a.values[j]))].sort((x, y) => x - y);
    if (values.length === 1 && s.values[j] === undefined) s.values[j] = values[0];
    rows.push(h("div", { class: "joker-row", testid: `joker-${j}` }, h("span", {}, t("li_joker_value", { card: mapText(j) }), " "),
      values.map((v) => h("button", { type: "button", class: `jv${s.values[j] === v ? " on" : ""}`, testid: `joker-${j}-${v}`, "aria-pressed": s.values[j] === v ? "true" : "false",
        onclick: () => { s.values = { ...s.values, [j]: v }; for (const k of jokers.slice(jokers.indexOf(j) + 1)) delete s.values[k]; redraw(); } }, v))));
    if (s.values[j] === undefined) { left = []; break; }
    left = left.filter((a) => a.values[j] === s.values[j]);
  }
  const copies = [...new Set(left.map((a) => a.copy || "none"))];
  if (copies.length > 1) {
    rows.push(h("div", { class: "copy-row", testid: "copy-row" }, h("span", {}, t("li_copy"), " "),
      copies.map((c) => h("button", { type: "button", class: `jv${s.copy === c ? " on" : ""}`, testid: `copy-${c}`, onclick: () => { s.copy = c; redraw(); } }, t(`li_copy_${c}`)))));
    left = s.copy === undefined ? [] : left.filter((a) => (a.copy || "none") === s.copy);
  }
  return h("div", { class: "chooser", testid: "chooser" }, h("b", {}, t("li_choose_for", { landing: landingName(s.target.id) })), rows,
    h("div", { class: "opts" }, h("button", { type: "button", class: "act primary", testid: "chooser-play", disabled: disabled || left.length !== 1, onclick: () => send(left[0]) }, t("li_play")), cancel));
}

/** The islet cost in force (the catalogue's `islet_cost` for the view's event, as the
 *  engine checks it: Event A06 makes it any cards, B07 blocks the islets). */
function isletCostText(view, nums) {
  const byEvent = CAT && CAT.islet_cost;
  if (!byEvent) return nums.cost ? h("span", { class: "hint", testid: "islet-cost" }, ` · ${t("li_islet_cost", { n: nums.cost })}`) : null;
  const key = view.event || "none";
  const cost = key in byEvent ? byEvent[key] : byEvent.none;
  const text = cost === null ? t("li_islets_blocked")
    : cost.one_colour ? t("li_islet_cost", { n: cost.cards }) : t("li_islet_cost_any", { n: cost.cards });
  return h("span", { class: "hint", testid: "islet-cost", dataset: { event: key } }, ` · ${text}`);
}

function renderIslets(view, acts, s, disabled, send, redraw) {
  const uses = acts ? isletsFor(acts, s.cards) : [];
  const nums = (CAT && CAT.islet_numbers) || {};
  const ids = (CAT && CAT.islets) || Object.keys(view.islets);
  return h("section", { class: "panel lislets", testid: "islets", "aria-label": t("li_islets") },
    h("h2", {}, t("li_islets"), isletCostText(view, nums)),
    h("ul", {}, ids.map((id) => {
      const state = view.islets[id];
      const mineHere = uses.filter((a) => a.islet === id);
      const params = tt("li_islet_params")[id];
      const choosing = s.target && s.target.kind === "islet" && s.target.id === id;
      return h("li", { class: `islet ${state}`, testid: `islet-${id}`, dataset: { state } },
        h("b", {}, isletName(id)), " ", h("span", { class: `badge ${state}`, testid: `islet-state-${id}`, ...term("islet_state", id === ids[0]) }, state === "open" ? t("li_open") : t("li_used")),
        h("div", { class: "hint" }, isletEffect(id), params ? ` (${params})` : ""),
        mineHere.length && s.cards.length ? h("button", { type: "button", class: "act", testid: `use-${id}`, disabled,
          onclick: () => choose(mineHere, { kind: "islet", id }, s, send, redraw) }, t("li_use")) : null,
        choosing ? renderChooser(s, disabled, send, redraw) : null);
    })));
}

function renderHand(view, p, acts, s, disabled, send, redraw) {
  const turn = acts && acts.any;
  const can = turn ? selectable(acts, s.cards) : new Set();
  const toggle = (c) => {
    const i = s.cards.indexOf(c);
    s.cards = i >= 0 ? s.cards.filter((x) => x !== c) : [...s.cards, c];
    s.target = null;
    redraw();
  };
  const discard = acts ? discardFor(acts, s.cards) : null;
  const hint = turn && view.step === "act" ? t("li_hand_hint_act") : turn && view.step === "discard" ? t("li_hand_hint_discard") : "";
  return h("section", { class: "panel lhand", testid: "my-hand" },
    h("h2", {}, t("li_your_hand"), h("span", { class: "hint" }, ` · ${t("li_cards_n", { n: p.hand.length })}`)),
    hint ? h("p", { class: "hint" }, hint) : null,
    h("div", { class: "lhand-cards", dataset: { zone: "hand" } }, p.hand.map((c) => {
      const on = s.cards.includes(c);
      return mapCard(c, { testid: `hand-${c}`, selected: on, selectable: turn ? on || can.has(c) : null,
        order: on ? s.cards.indexOf(c) + 1 : null, onclick: turn && !disabled ? () => toggle(c) : null });
    })),
    turn ? h("div", { class: "lhand-acts" },
      s.cards.length ? h("button", { type: "button", class: "ghost small", testid: "clear-selection", onclick: () => { s.cards = []; s.target = null; redraw(); } }, t("li_clear")) : null,
      discard ? h("button", { type: "button", class: "act primary", testid: "discard", disabled, onclick: () => send(discard) },
        s.cards.length ? t("li_discard_n", { n: s.cards.length }) : t("li_keep_all")) : null,
      acts.pass ? h("button", { type: "button", class: "act", testid: "pass", disabled, onclick: () => send(acts.pass) }, t("li_pass")) : null) : null);
}

function renderOffer(view, names, acts, disabled, send) {
  const o = view.offer;
  return h("section", { class: "panel loffer", testid: "offer", dataset: { landing: o.landing, size: o.size } },
    h("h2", {}, t("li_offer", { size: o.size, landing: landingName(o.landing) })),
    h("div", { class: "hint", testid: "pick-order" }, `${t("li_pick_order")}: `, o.order.map((seat, i) => h("span", { class: `pick${seat === view.current_seat ? " next" : ""}` }, i ? " → " : "", names[seat] || `#${seat + 1}`))),
    h("div", { class: "offer-cards" }, o.cards.map((c) => h("div", { class: "offer-card", testid: `offer-${c}` }, lootCard(c, { small: false }),
      acts && acts.take.has(c) ? h("button", { type: "button", class: "act primary", testid: `take-${c}`, disabled, onclick: () => send(acts.take.get(c)) }, t("li_keep")) : null,
      acts && acts.drop.has(c) ? h("button", { type: "button", class: "act", testid: `drop-${c}`, disabled, onclick: () => send(acts.drop.get(c)) }, t("li_discard_loot")) : null))));
}

function renderHealers(view, names, acts, disabled, send) {
  return h("section", { class: "panel lhealers", testid: "healers" },
    h("h2", {}, t("li_healers")),
    h("ul", {}, view.healers.map((x) => h("li", { class: `healer${x.seat !== null ? " taken" : ""}`, testid: `healer-${x.healer}` },
      h("b", {}, t("li_healer_cost", { m: x.multiplier, f: x.fixed })), " ",
      x.seat !== null ? h("span", { class: "hint" }, t("li_healer_taken", { name: names[x.seat] || `#${x.seat + 1}` })) : null,
      acts && acts.healers.has(x.healer) ? h("button", { type: "button", class: "act primary", testid: `choose-${x.healer}`, disabled, onclick: () => send(acts.healers.get(x.healer)) }, t("li_choose")) : null))));
}

function renderPlayer(view, p, me, last) {
  const ended = view.phase === "ended";
  const winners = (view.result && view.result.winners) || [];
  return h("div", { class: `panel lplayer s${p.seat}${p.seat === view.current_seat && !ended ? " current" : ""}${p.seat === me ? " mine" : ""}${p.eliminated ? " out" : ""}${last && last.seat === p.seat ? " last-actor" : ""}`, testid: `player-${p.seat}` },
    h("h3", {}, h("span", { class: `ldisc s${p.seat}` }, p.seat + 1), " ", winners.includes(p.seat) ? "♛ " : "", p.name, p.seat === me ? h("small", {}, ` (${t("you")})`) : null,
      view.start_seat === p.seat ? h("span", { class: "badge marker", testid: `start-marker-${p.seat}` }, t("li_start_marker")) : null,
      p.passed ? h("span", { class: "badge", testid: `passed-${p.seat}` }, t("li_passed")) : null),
    h("div", { class: "lstats" },
      h("span", { class: "lcubes", testid: `cubes-${p.seat}`, dataset: { value: p.cubes }, ...term("cubes", p.seat === me) }, `${p.cubes} ☠ ${t("li_cubes")}`),
      h("span", { testid: `hand-count-${p.seat}` }, t("li_cards_n", { n: p.hand_count })),
      h("span", { testid: `discs-free-${p.seat}` }, t("li_discs_free", { n: p.discs_free }))),
    p.eliminated ? h("div", { class: "bad", testid: `eliminated-${p.seat}` }, tt("li_eliminated")[p.eliminated] || p.eliminated) : null,
    p.healer ? h("div", { testid: `healer-of-${p.seat}` }, `${t("li_healer")}: `, healerText(p.healer)) : null,
    h("div", { class: "lloot", testid: `loot-${p.seat}` }, `${t("li_loot_kept")}: `, p.loot.length ? p.loot.map((c) => lootCard(c)) : t("li_none")),
    ended && p.hand ? h("div", { class: "lfinal-hand", testid: `final-hand-${p.seat}` }, p.hand.map((c) => mapCard(c, { small: true }))) : null);
}

function renderScore(view) {
  const r = view.result;
  if (!r) return null;
  const cols = ["gold", "jewels", "crowns", "skulls", "books", "amulets", "start_marker", "subtotal", "healer_cost", "total"];
  const names = tt("li_score_cols");
  const cell = (s, k) => {
    const v = s[k];
    const extra = k === "crowns" && s.crosses ? ` (${s.crosses}✝)` : k === "healer_cost" && s.healer ? ` (${healerText(s.healer)})` : "";
    const title = k === "books" && s.book_pairs && s.book_pairs.length ? s.book_pairs.map(([b, p]) => `${lootText(b)} + ${lootText(p)}`).join("; ") : null;
    return h("td", { class: k === "total" ? "total total-col" : "", testid: `score-${k}-${s.seat}`, title }, v === null || v === undefined ? "–" : k === "total" ? h("b", {}, v) : v,
      extra ? h("small", { class: k === "healer_cost" ? "held under" : "held" }, extra) : null);
  };
  return h("section", { class: "panel score-panel", testid: "score" },
    h("h2", {}, t("li_scoring")),
    h("div", { class: "table-scroll" }, h("table", { class: "score-table", testid: "score-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("player")), h("th", { scope: "col" }, names.cubes),
        // A long heading is shortened, its full word in the title ("Zw.-summe": Zwischensumme).
        cols.map((k) => h("th", { scope: "col", class: k === "total" ? "total-col" : null, testid: `score-head-${k}`,
          title: (tt("li_score_short") || {})[k] ? names[k] : null }, ((tt("li_score_short") || {})[k]) || names[k] || k)))),
      h("tbody", {}, r.scores.map((s) => h("tr", { class: r.winners.includes(s.seat) ? "winner" : "", testid: `score-row-${s.seat}` },
        h("th", { scope: "row" }, r.winners.includes(s.seat) ? "♛ " : "", seatName(view, s.seat),
          s.eliminated ? h("div", { class: "bad small" }, tt("li_eliminated")[s.eliminated] || s.eliminated) : null),
        h("td", {}, s.cubes), cols.map((k) => cell(s, k))))))));
}

const MOVES = new Set(["map_cards_discarded", "map_cards_played", "islet_used", "passed", "loot_taken", "loot_discarded", "healer_chosen"]);

// Each term of the board (glossary.js) and the section of the rules page that says more.
const TERM_SECTIONS = { minimum: "loot", event: "events", count: "loot", discs: "play", cubes: "end", mark: "components",
  islet: "islets", islet_state: "islets", loot_values: "scoring" };

export const lootIsland = {
  name: GAME,
  loadCatalogue,
  renderBoard, flipRender, turnText, winnersText, renderScore, describeEvent,
  eventSeat: (e) => (typeof e.seat === "number" ? e.seat : null),
  isMajor: (e) => ["game_started", "round_started", "event_revealed", "coast_explored", "final_exploration_started", "healers_revealed", "game_ended"].includes(e.type),
  groupActions,
  turnHint,
  // A player's own decision (the result of an action): a forced pass, the one healer left
  // and islet-wreck's loot card follow from the rules, so they join the decision before.
  isMove: (e) => MOVES.has(e.type) && !e.forced && !e.automatic && !e.wreck,
  rules: lootIslandRules,
  errorTexts: lootIslandErrors,
  lesson,
  glossary: (key) => {
    const numbers = CAT ? { ...CAT.numbers, islet_cost: CAT.islet_numbers && CAT.islet_numbers.cost } : null;
    const text = lootIslandGlossary(key, currentLang(), numbers);
    return text ? { text, section: TERM_SECTIONS[key.startsWith("mark_") ? "mark" : key] } : null;
  },
};
