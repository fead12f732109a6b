// Which game's rules page the links name: the game in context (a table, its replay, the
// lobby's game choice, a rules page), else /rules (the server's default game's). The top
// bar listens.
let current = null;
const listeners = new Set();

/** The path of game `name`'s rules page; `/rules` (the server's default game's) when no
 *  game is named. */
export const rulesHref = (name = current) => (name ? `/rules/${encodeURIComponent(name)}` : "/rules");

/** Set the game in context (`null`: none); listeners hear only a change. */
export function setRulesGame(name) {
  if (name === current) return;
  current = name || null;
  for (const fn of listeners) fn();
}

/** Call `fn` whenever the game in context changes; returns an unsubscribe function. */
export function onRulesGameChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
