// A table's name for people: a tournament board's worded from its tournament and round,
// else the name its creator gave it, else one made from what the
// summary holds (docs/protocol.md §1): "Anna's table" after the host, or the first person
// seated while there is no host; with no person at it, the game's title and its whole id
// ("<game title> · table 3fK2x_Lq9aBc"; a cut id could name two tables, and its first
// characters read as a broken word, "hoq-"), the game left out where the page names it
// already (the table page's heading). Made here, in the reader's language, not stored:
// the server keeps no name it did not get.
import { LANGS, t } from "./i18n.js";
import { gameTitle } from "./gametitles.js";

Object.assign(LANGS.en, {
  table_of: (p) => `${p.name}'s table`,
  table_short: (p) => `${p.game} · table ${p.id}`,
  table_id: (p) => `table ${p.id}`,
  table_of_tournament: (p) => `${p.name} · ${p.kind === "swiss" ? "round" : "game"} ${p.round}`,
});
Object.assign(LANGS.de, {
  table_of: (p) => `Tisch von ${p.name}`,
  table_short: (p) => `${p.game} · Tisch ${p.id}`,
  table_id: (p) => `Tisch ${p.id}`,
  table_of_tournament: (p) => `${p.name} · ${p.kind === "swiss" ? "Runde" : "Partie"} ${p.round}`,
});

/** The name shown for table summary `s` (`id`, `name`, `game`, `seats`, `host`); with
 *  `withGame` false, a name made from the id leaves out the game's title (shown beside). */
export function tableName(s, { withGame = true } = {}) {
  // A tournament's board (its `tournament` fields, docs/protocol.md §1): "<tournament> ·
  // round 2" worded here; its stored `name` is that in English, for older clients.
  const tour = s.tournament;
  if (tour && tour.name && Number.isInteger(tour.round)) return t("table_of_tournament", tour);
  if (s.name) return s.name;
  const seats = s.seats || [];
  const host = typeof s.host === "number" && seats[s.host] && seats[s.host].kind === "human" ? seats[s.host] : null;
  const person = host || seats.find((x) => x.kind === "human" && x.name);
  if (person && person.name) return t("table_of", { name: person.name });
  if (!withGame) return t("table_id", { id: String(s.id) });
  return t("table_short", { game: gameTitle(s.game), id: String(s.id) });
}
