// Card data from the server (GET /api/games/einauge/cards) and the card element. The client
// only shows these numbers; it never computes a price, payout or cost from them.
import { api } from "../../api.js";
import { h } from "../../dom.js";
import { listWords, t } from "../../i18n.js";
import { cardName, colorName } from "./texts.js";
import { COLOR_GLYPH, icons } from "../../icons.js";

let CARDS = null;
let loading = null;

/** Load card data once; resolves to `{id: {color, price, sabres, ducats, jewels, chests, fight_cost}}`. */
export function loadCards() {
  if (CARDS) return Promise.resolve(CARDS);
  loading ||= api.cards("einauge").then((d) => (CARDS = d.cards));
  return loading;
}

export const cardInfo = (id) => (CARDS && CARDS[id]) || null;

function yieldRow(info) {
  if (!info) return null;
  const parts = [];
  const add = (n, icon, key) => {
    if (n > 0) parts.push(h("span", { class: `y y-${key}`, title: t(`${key}_s`, { n }) }, h("span", { html: icon(t(`${key}_s`, { n })) }), n > 1 ? h("b", {}, n) : null));
  };
  add(info.sabres, icons.sabre, "sabre");
  add(info.ducats, icons.ducat, "ducat");
  add(info.jewels, icons.jewel, "jewel");
  const chests = info.chests > 0
    ? h("span", { class: "y y-chest", title: t("chest_s", { n: info.chests }) }, h("span", { html: icons.chest(t("chest_s", { n: info.chests })) }), info.chests > 1 ? h("b", {}, info.chests) : null)
    : null;
  return [h("div", { class: "payout" }, parts), chests];
}

/**
 * The element of card `id`. Options: `fightCost` (badge with the sabres needed, from the
 * view's fight_costs), `small` (compact, for color rows), `showPrice`, `where`
 * ("display", "pirate" or "row": the tooltip names the price only where the card can be
 * bought, and the fight cost where it can be won).
 */
export function cardEl(id, { fightCost = null, small = false, showPrice = true, testid = null, where = "display" } = {}) {
  const info = cardInfo(id);
  // Everything from the server's catalogue: before it has loaded a card shows "?", never
  // a price or color guessed from its id.
  const color = info ? info.color : undefined;
  const isShip = !!info && !color;
  const label = cardName(id);
  const price = info ? info.price : "?";
  const gives = info && !isShip
    ? [info.sabres && t("sabre_s", { n: info.sabres }), info.ducats && t("ducat_s", { n: info.ducats }), info.jewels && t("jewel_s", { n: info.jewels })].filter(Boolean)
    : [];
  const title = [label, where === "display" && showPrice && !isShip ? `${t("price")} ${price}` : null,
    fightCost && where !== "row" ? t("fight_cost_long", { n: fightCost }) : null,
    info && !isShip ? `${t("pays_in_row")} ${gives.length ? listWords(gives) : t("nothing")}${info.chests ? `; ${t("chest_s", { n: info.chests })}` : ""}` : null]
    .filter(Boolean).join(" · ");
  return h("div", {
    class: `card ${isShip ? "ship" : `c-${color}`}${small ? " small" : ""}${fightCost ? " has-fight" : ""}`,
    dataset: { card: id },
    testid: testid || `card-${id}`,
    title,
    "aria-label": title,
  },
  h("div", { class: "band" },
    h("span", { class: "glyph", "aria-hidden": "true" }, isShip ? "⚓" : COLOR_GLYPH[color] || "?"),
    fightCost ? h("span", { class: "fight", testid: `fight-cost-${id}`, title: t("fight_cost_long", { n: fightCost }) }, h("span", { html: icons.sabre(t("sabres")) }), fightCost) : null,
    showPrice ? h("span", { class: "price", title: t("price") }, price) : null),
  isShip ? h("div", { class: "ship-art", html: icons.ship(label) }) : null,
  h("div", { class: "yields" }, isShip ? null : yieldRow(info),
    h("span", { class: "cname" }, isShip ? label : colorName(color))));
}
