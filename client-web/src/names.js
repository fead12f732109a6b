// Player names as shown. The server names a bot seat in English ("Random bot 2", see
// docs/protocol.md, table summary); the page shows it in the current language and with the
// mcts level ("MCTS bot 4 (level 3)" / "MCTS-Bot 4 (Stufe 3)"). A person's name is shown
// exactly as typed; a person's seat handed to a bot mid-game keeps the person's name
// ("Anna (now Greedy bot)"), as the game's events and record do; a guest seated without a
// name (the server's "Guest") is shown as "Guest" in the page's language.
import { t } from "./i18n.js";

// The server's pattern for a bot seat's name: "<Kind> bot <seat + 1>".
const BOT_NAME = /^([A-Za-z_]+) bot (\d+)$/;
// The server's name for a guest who gave none (server/http/tutorials.py, seeks.py).
const GUEST = "Guest";

/**
 * The display name of seat `seat` (0-based) called `name`. `info` is that seat of the table
 * summary (`{kind, bot, level}`) when known: a bot seat then gets its localized name with
 * its level. Without `info` (a record file) only a name of exactly the server's pattern for
 * that seat counts as a bot's.
 */
export function seatName(name, seat, info = null) {
  if (!name) return name;
  // A guest who gave no name sits as the server's default, shown in the page's language.
  const person = info && info.kind && !info.account && name === GUEST ? t("guest_name") : name;
  if (info && info.kind && info.kind !== "bot") return person;
  const m = BOT_NAME.exec(name);
  const botNamed = !!m && Number(m[2]) === seat + 1;
  const level = info ? info.level ?? null : null;
  if (info && info.kind === "bot" && info.bot) {
    return botNamed ? t("bot_name", { kind: info.bot, n: seat + 1, level }) : t("handed_name", { name: person, kind: info.bot, level });
  }
  return botNamed ? t("bot_name", { kind: m[1].toLowerCase(), n: seat + 1, level }) : name;
}

/** `view` with every player's name as shown (a copy; `view` is left as it is). */
export function namedView(view, seats = null) {
  if (!view || !view.players) return view;
  return { ...view, players: view.players.map((p) => ({ ...p, name: seatName(p.name, p.seat, seats && seats[p.seat]) })) };
}

/** The shown names by seat of `view`'s players (for the game log); `.people` holds the
 *  names the game was dealt to (a seat-control line names the person, not the bot). */
export const viewNames = (view, seats = null) => {
  const players = (view && view.players) || [];
  const out = players.map((p) => seatName(p.name, p.seat, seats && seats[p.seat]));
  out.people = players.map((p) => seatName(p.name, p.seat));
  return out;
};
