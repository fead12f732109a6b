// The one place the client's games are registered: a game is one folder here,
// games/<package>/ (its engine package's name), whose game.js exports the game's module
// (its board, texts, refusal texts, rules page and styles all live in that folder), plus
// its package under engine/ on the server. No other client module names a game. The
// pages call a module's `renderBoard(view, ctx)` with `ctx`: `mySeat`, `actions` (its own
// `groupActions` of the prompt, or null), `onAction(action)`, `prev`, `pending`,
// `lastEvent`, and on a live table `openDialog(element)` / `closeDialog()`: a modal slot
// for the module's own dialogs (a choice among several legal actions), closed when an
// action is sent.
// Optional: `errorTexts` (its rules' refusals, errors.js), `install` / `hideOverlays`.
import { einauge } from "./einauge/game.js";
import { keltis } from "./keltis/game.js";
import { lootIsland } from "./loot_island/game.js";

const GAMES = { einauge, keltis, "loot-island": lootIsland };

/** True when this client can show game `name` (the lobby offers only those). */
export const hasGameModule = (name) => Object.hasOwn(GAMES, name);

/** The names of the games this client can show, in registry order. */
export const gameNames = () => Object.keys(GAMES);

// The server's default game (GET /api/games: `default`, the CARDTABLE_DEFAULT_GAME
// setting), once known (gametitles.js asks before the first page is shown).
let defaultName = null;

/** Note the server's default game (ignored when this client has no module for it). */
export function setDefaultGame(name) {
  if (hasGameModule(name)) defaultName = name;
}

/** The server's default game, or null when it is unknown or has no module here. */
export const defaultGame = () => defaultName;

// What a page shows while it does not know its game (a table or record not loaded yet)
// and the server has named no default: no board, no texts, no moves. Its `name` is null.
const NO_GAME = {
  name: null,
  loadCatalogue: () => Promise.resolve(null),
  renderBoard: () => document.createElement("div"),
  flipRender: (container, build) => container.replaceChildren(build()),
  turnText: () => "", winnersText: () => "", renderScore: () => null, describeEvent: () => "",
  eventSeat: () => null, isMajor: () => false, isMove: () => false, groupActions: () => null, turnHint: () => "",
};

/** The module of game `name` (a table summary's or a view's `game`); the server's default
 *  game when none is named (the rules page at /rules, a page whose table or record has not
 *  loaded yet); until the server has said which that is, a module of no game (`name` null). */
export function gameModule(name) {
  return GAMES[name] || GAMES[defaultName] || NO_GAME;
}

/** Start what game modules keep on every page (card details that listen on the
 *  document): a module's optional `install()`, once at start-up. */
export function installGames() {
  for (const g of Object.values(GAMES)) if (g.install) g.install();
}

/** Close the floating panels game modules opened (a module's optional `hideOverlays()`),
 *  on leaving a page. */
export function hideGameOverlays() {
  for (const g of Object.values(GAMES)) if (g.hideOverlays) g.hideOverlays();
}

/** Load every game's card catalogue (small; the table page does not know its game until
 *  the welcome). Resolves when all are in; a failed one leaves its cards unlabelled. */
export function loadCatalogues() {
  return Promise.all(Object.values(GAMES).map((g) => g.loadCatalogue().catch(() => null)));
}
