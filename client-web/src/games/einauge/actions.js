// Group the prompt's legal actions for the board: per card what may be done with it. The
// grouping only sorts the server's list; every action sent is one of those listed.
import { cardInfo } from "./cards.js";

/**
 * `legal` is the prompt's `legal_actions`, `details` its `details` (what each would cost
 * and pay out, same order; may be absent). Returns `{byCard: Map(card -> {buy: [..],
 * fight: [..], place, sell, price}), sellJewel, pass, any, detailOf: Map(action ->
 * detail)}`; `buy`/`fight` hold one action per row choice (ships), a single one for
 * island cards.
 */
export function groupActions(legal, details = null) {
  const byCard = new Map();
  const slot = (c) => {
    if (!byCard.has(c)) byCard.set(c, {});
    return byCard.get(c);
  };
  let sellJewel = null;
  let pass = null;
  for (const a of legal || []) {
    switch (a.type) {
      case "buy": {
        const s = slot(a.card);
        (s.buy ||= []).push(a);
        const info = cardInfo(a.card);
        s.price = info ? info.price : "";
        break;
      }
      case "fight": (slot(a.card).fight ||= []).push(a); break;
      case "place": slot(a.card).place = a; break;
      case "sell_card": slot(a.card).sell = a; break;
      case "sell_jewel": sellJewel = a; break;
      case "pass": pass = a; break;
      default: break;
    }
  }
  const detailOf = new Map((legal || []).map((a, i) => [a, (details && details[i]) || null]));
  return { byCard, sellJewel, pass, any: (legal || []).length > 0, detailOf };
}
