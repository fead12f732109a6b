// The games' names for people, from the server's registry (GET /api/games): the shell's
// pages (leaderboard, profile, table title, record file name) name a game without a
// per-game text of their own.
import { api } from "./api.js";
import { setDefaultGame } from "./games/index.js";

let titles = null;
let loading = null;

/** Load the titles (and the server's default game, `games/index.js`) once; resolves when
 *  they are in (a failure leaves the raw names). */
export function loadGameTitles() {
  loading ||= api.games().then((d) => {
    titles = Object.fromEntries(d.games.map((g) => [g.name, g.title]));
    if (d.default) setDefaultGame(d.default);
  })
    .catch(() => { loading = null; });
  return loading;
}

/** The title of game `name` (the server's `title`), or `name` until the titles load. */
export function gameTitle(name) {
  return (titles && titles[name]) || name;
}

/** The games' names in the server's order (GET /api/games), empty until they load. */
export function gameNames() {
  return titles ? Object.keys(titles) : [];
}
