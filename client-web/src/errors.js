// The server's refusals in the page's language. The server sends a stable `code` and an
// English `message` (docs/protocol.md); people read the text for the code here, with seat
// numbers as the page shows them (#1 …). An unknown code (a newer server) falls back to
// the server's own words.
import { currentLang } from "./i18n.js";

const seat = (p) => (p.seat !== undefined && p.seat !== null ? ` #${p.seat + 1}` : "");

const en = {
  seat_taken: (p) => `Seat${seat(p)} is already taken.`,
  table_full: () => "Every seat of this table is taken.",
  no_seat: (p) => `This table has no seat${seat(p)}.`,
  not_a_bot: (p) => `Seat${seat(p)} holds no bot.`,
  bad_bot: () => "The server offers no such bot.",
  bad_token: () => "Your seat or host key was not accepted here.",
  not_host: () => "Only the table's host may do that.",
  not_a_person: (p) => `Seat${seat(p)} holds no person.`,
  own_seat: () => "The host leaves their own seat with “Leave seat”.",
  seated: () => "You already sit at this table.",
  blocked: () => "You blocked this player: unblock them first.",
  not_invited: () => "Your invitation to this table is no longer open.",
  ended: () => "This game has already ended.",
  started: () => "This game has already started.",
  not_ended: () => "The game has not ended yet.",
  seats_empty: () => "Every seat needs a player or a bot first.",
  bad_options: () => "These table options are not allowed.",
  not_started: () => "The game has not started yet.",
  game_over: () => "The game is over.",
  bad_index: () => "There is no such position in this game.",
  bad_seat: () => "This game has no such seat.",
  not_your_turn: () => "It is not your turn.",
  wrong_step: () => "That is not possible in this step of the turn.",
  unknown_card: () => "There is no such card.",
  bad_action: () => "The server did not understand that move.",
  bad_message: () => "The server did not understand that request.",
  stale: () => "The table moved on; please choose again.",
  rate_limited: () => "Too many requests; please wait a moment.",
  unavailable: () => "The server could not store that just now; please try again.",
  spectator: () => "Spectators cannot play; take a seat first.",
  not_your_seat: () => "That is not your seat.",
  seat_handed_over: () => "Your seat is played by a bot now.",
  no_table: () => "This table no longer exists.",
  internal: () => "Something went wrong on the server; nothing was changed.",
  too_large: () => "That request is too large.",
  bad_record: () => "This record could not be replayed.",
  network: () => "The server cannot be reached.",
  http_429: () => "Too many requests; please wait a moment.",
  unknown: (p) => `Not possible: ${p.message}`,
};

const de = {
  seat_taken: (p) => `Platz${seat(p)} ist schon besetzt.`,
  table_full: () => "Alle Plätze dieses Tisches sind besetzt.",
  no_seat: (p) => `Diesen Platz${seat(p)} gibt es an diesem Tisch nicht.`,
  not_a_bot: (p) => `Auf Platz${seat(p)} sitzt kein Bot.`,
  bad_bot: () => "Diesen Bot bietet der Server nicht an.",
  bad_token: () => "Dein Platz- oder Gastgeber-Schlüssel wurde hier nicht angenommen.",
  not_host: () => "Das darf nur, wer den Tisch leitet.",
  not_a_person: (p) => `Auf Platz${seat(p)} sitzt keine Person.`,
  own_seat: () => "Den eigenen Platz verlässt die Tischleitung mit „Platz verlassen“.",
  seated: () => "Du sitzt schon an diesem Tisch.",
  blocked: () => "Du hast diesen Spieler blockiert: hebe die Blockade zuerst auf.",
  not_invited: () => "Deine Einladung an diesen Tisch gilt nicht mehr.",
  ended: () => "Dieses Spiel ist schon zu Ende.",
  started: () => "Dieses Spiel hat schon begonnen.",
  not_ended: () => "Das Spiel ist noch nicht zu Ende.",
  seats_empty: () => "Erst braucht jeder Platz einen Spieler oder Bot.",
  bad_options: () => "Diese Tisch-Optionen sind nicht erlaubt.",
  not_started: () => "Das Spiel hat noch nicht begonnen.",
  game_over: () => "Das Spiel ist vorbei.",
  bad_index: () => "Diese Stelle gibt es in dieser Partie nicht.",
  bad_seat: () => "Diesen Platz gibt es in dieser Partie nicht.",
  not_your_turn: () => "Du bist nicht am Zug.",
  wrong_step: () => "Das geht in diesem Schritt des Zuges nicht.",
  unknown_card: () => "Diese Karte gibt es nicht.",
  bad_action: () => "Der Server hat diesen Zug nicht verstanden.",
  bad_message: () => "Der Server hat diese Anfrage nicht verstanden.",
  stale: () => "Der Tisch ist weiter; bitte wähle neu.",
  rate_limited: () => "Zu viele Anfragen; bitte einen Moment warten.",
  unavailable: () => "Der Server konnte das gerade nicht speichern; bitte noch einmal.",
  spectator: () => "Zuschauer spielen nicht mit; nimm zuerst einen Platz.",
  not_your_seat: () => "Das ist nicht dein Platz.",
  seat_handed_over: () => "Dein Platz wird jetzt von einem Bot gespielt.",
  no_table: () => "Diesen Tisch gibt es nicht mehr.",
  internal: () => "Auf dem Server ging etwas schief; nichts wurde geändert.",
  too_large: () => "Diese Anfrage ist zu groß.",
  bad_record: () => "Dieses Protokoll ließ sich nicht abspielen.",
  network: () => "Der Server ist nicht erreichbar.",
  http_429: () => "Zu viele Anfragen; bitte einen Moment warten.",
  unknown: (p) => `Nicht möglich: ${p.message}`,
};

const TEXTS = { en, de };

/**
 * The text for a server refusal: `code` as sent, `params.seat` (0-based, as in the API)
 * when the refusal is about a seat, `params.message` the server's English words.
 * `gameTexts`: the table's game module's own refusals (`{en: {code: fn}, de: …}`, its
 * `errorTexts`), read before these; a rule's refusal is worded by its game.
 */
export function errorText(code, params = {}, gameTexts = null) {
  const lang = currentLang();
  const own = gameTexts || {};
  const fn = (own[lang] || {})[code] || (TEXTS[lang] || en)[code] || (own.en || {})[code] || en[code];
  return fn ? fn(params) : (TEXTS[lang] || en).unknown({ message: params.message || code });
}

/** Every code this module translates for every game (for tests and docs). */
export const ERROR_CODES = Object.keys(en).filter((k) => k !== "unknown");
