// The log lines every game shares: who plays a seat (engine/seat_control.py's
// `seat_timed_out`, `seat_controller_changed` and `game_voided`), in the log and the replay. A game
// module's `describeEvent` tells its own events and hands the rest here.
import { t } from "./i18n.js";

/** The person a seat-control event is about (not "Anna (now Greedy bot)"). */
const person = (e, names) => {
  const shown = typeof e.seat === "number" ? names[e.seat] ?? `#${e.seat + 1}` : "";
  return (names.people && names.people[e.seat]) || shown;
};

/** The sentence of seat event `e` (`names`: the players' names by seat, with `people`
 *  the persons behind them), or null when `e` is not a seat event. */
export function seatEventText(e, names = []) {
  if (e.type === "game_voided") return t("ev_game_voided", { reason: e.reason });
  if (e.type === "seat_timed_out") return t("ev_seat_timed_out", { name: person(e, names), n: e.count });
  if (e.type !== "seat_controller_changed") return null;
  const key = `ev_seat_${e.by}_${e.reason}`;
  const text = t(key, { name: person(e, names) });
  return text === key ? t("ev_unknown", { type: e.type }) : text;
}

/** The seat an event is about (for colouring the log line), or null. */
export const eventSeat = (e) => (typeof e.seat === "number" ? e.seat : null);

/** The seat events: emphasised in every game's log. */
export const isSeatEvent = (e) =>
  e.type === "seat_timed_out" || e.type === "seat_controller_changed" || e.type === "game_voided";
