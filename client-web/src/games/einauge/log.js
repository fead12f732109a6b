// Einauge's game events (docs/protocol.md, projected events of engine/einauge/events.py) told in
// plain language. Only words: every number comes from the event itself.
import { listWords, t } from "../../i18n.js";
import { cardName, colorName } from "./texts.js";
import { seatName } from "../../names.js";
import { seatEventText } from "../../seatlog.js";

function payout(e) {
  const parts = [];
  if (e.sabres) parts.push(t("sabre_s", { n: e.sabres }));
  if (e.ducats) parts.push(t("ducat_s", { n: e.ducats }));
  if (e.jewels) parts.push(t("jewel_s", { n: e.jewels }));
  return parts.length ? listWords(parts) : t("nothing");
}

/**
 * One sentence for event `e`. `names` lists the players' names by seat (from the view).
 * A ship card names its row; an island card's row is its own color and needs no words.
 */
export function describeEvent(e, names = []) {
  const name = e.seat !== undefined && e.seat !== null ? names[e.seat] ?? `#${e.seat + 1}` : "";
  const card = e.card ? cardName(e.card) : "";
  const shipRow = e.card && e.card.startsWith("ship") && e.row && e.row !== "alone" ? colorName(e.row) : null;
  switch (e.type) {
    case "game_started":
      // The shown names (bots in the current language) when known, else the event's own.
      return t("ev_game_started", { players: listWords((e.players || names).map((n, i) => names[i] ?? seatName(n, i))), colors: listWords((e.colors || []).map(colorName)) });
    case "jewel_sold": return t("ev_jewel_sold", { name, ducats: e.ducats });
    case "card_sold": return t("ev_card_sold", { name, card, ducats: e.ducats });
    case "card_bought":
      return e.row === "alone" ? t("ev_card_bought_alone", { name, card })
        : t("ev_card_bought", { name, card, row: shipRow, payout: payout(e) });
    case "buy_skipped": return t("ev_buy_skipped", { name });
    case "fight_won": {
      const source = t(e.source === "display" ? "from_display" : "from_pirate_table");
      return e.row === "alone" ? t("ev_fight_won_alone", { name, card, source, cost: e.cost })
        : t("ev_fight_won", { name, card, source, cost: e.cost, row: shipRow, payout: payout(e) });
    }
    case "fight_declined": return t("ev_fight_declined", { name });
    case "fight_skipped": return t("ev_fight_skipped", { name });
    case "card_placed": return t("ev_card_placed", { name, card });
    case "place_skipped": return t("ev_place_skipped", { name });
    case "card_revealed": return t("ev_card_revealed", { card });
    case "ship_revealed": return t("ev_ship_revealed", { card, end: e.end_triggered });
    case "final_round_started": return t("ev_final_round_started", { name });
    case "game_ended": {
      const w = ((e.result && e.result.winners) || []).map((s) => names[s] ?? `#${s + 1}`);
      return t("ev_game_ended", { winners: t("winners_are", { names: listWords(w), n: w.length }) });
    }
    // Who plays a seat (engine/seat_control.py): the same words for every game.
    default: return seatEventText(e, names) ?? t("ev_unknown", { type: e.type });
  }
}

/** Log entry kinds that deserve emphasis. */
export const isMajor = (e) => ["game_started", "ship_revealed", "final_round_started", "game_ended", "seat_timed_out", "seat_controller_changed"].includes(e.type);
