// Rows of games as the account pages show them: players with their places, the result
// (winner and scores), the date, and links (continue, watch, replay).
import { tableName } from "./tablename.js";
import { h } from "./dom.js";
import { dateText, listWords, t } from "./i18n.js";
import { seatName } from "./names.js";

const names = (s) => s.seats.map((x) => seatName(x.name, x.seat, x) || `#${x.seat + 1}`);

/** "Winner: Anna · 31 : 27 : 12" for a finished table summary (empty before the end). */
export function resultText(s) {
  if (!s.winners) return "";
  const n = names(s);
  // An eliminated player has no total (a game that eliminates): a dash, not "null".
  const scores = s.scores ? s.scores.map((x) => x ?? "–").join(" : ") : "";
  // Every winner resigned (docs/rules.md, "Resigning"): the table lists no winner.
  if (!s.winners.length) return t("no_winner_scores", { scores });
  return t("winner_scores", { names: listWords(s.winners.map((i) => n[i])), scores });
}

/** The players of a table summary, each a profile link when an account or bot holds it. */
export function playerList(s) {
  const n = names(s);
  return s.seats.map((x, i) => [i ? ", " : "",
    x.account ? h("a", { href: `/players/${encodeURIComponent(x.name)}`, "data-link": true }, n[i]) : n[i],
    s.winners && s.winners.includes(i) ? " ♛" : ""]);
}

export { dateText };

/** The time left of a running move, from the server's `deadline` and `now` (ms). */
function left(row) {
  const s = Math.max(0, Math.round((row.deadline - row.now) / 1000));
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${hh}h` : hh ? `${hh}h ${m}m` : `${m}m ${s % 60}s`;
}

/** Whose turn it is at a running table row of /api/me/games, and the time left. */
export function turnText(row) {
  if (!row.to_move) return "";
  const n = names(row);
  const who = row.my_turn ? t("your_turn_short") : t("turn_of", { name: listWords(row.to_move.map((i) => n[i])) });
  return row.deadline ? `${who} · ${t("time_left", { time: left(row) })}` : who;
}

/** The rating change of a finished rated game: "1500 → 1532 (place 1)". */
export function changeText(c) {
  if (!c) return "";
  const d = c.after - c.before;
  return `${c.before} → ${c.after} (${d >= 0 ? "+" : ""}${d}, ${t("place_n", { n: c.rank })})`;
}

/** A finished game as a table row. */
export function finishedRow(s) {
  return h("tr", { testid: `finished-${s.id}` },
    h("td", {}, h("b", {}, tableName(s)), s.rated ? [" ", h("span", { class: "badge rated" }, t("rated"))] : null),
    h("td", {}, playerList(s)),
    h("td", { testid: `result-${s.id}` }, resultText(s)),
    h("td", { testid: `change-${s.id}` }, changeText(s.rating_change)),
    h("td", {}, dateText(s.created_at)),
    h("td", {}, h("a", { class: "button ghost small", href: `/replay/${s.id}`, "data-link": true, testid: `replay-${s.id}` }, t("replay"))));
}

export const finishedHead = () => h("thead", {}, h("tr", {},
  [t("game_table"), t("players"), t("result"), t("rating_change"), t("date"), ""].map((x) => h("th", {}, x))));
