// Texts of the account page's API tokens and bot account part (apitokens.js), merged into
// the languages of i18n.js.
import { LANGS } from "./i18n.js";

const en = {
  tok_title: "API tokens",
  tok_hint: "A token lets a program act as your account: a “play” token creates and joins tables and plays over the websocket, a “read” token only reads. The service's bot API is described in docs/bot-api.md.",
  tok_name: "Name",
  tok_scope: "Scope",
  tok_scope_play: "play",
  tok_scope_read: "read only",
  tok_created: "Created",
  tok_last_used: "Last used",
  tok_never: "never",
  tok_none: "No tokens yet.",
  tok_create: "Create token",
  tok_revoke: "Revoke",
  tok_revoke_q: (p) => `Revoke the token “${p.name}”? A program that uses it stops at once; this cannot be undone.`,
  tok_shown_once: (p) => `Your new token “${p.name}”. Copy it now: it is shown only this once.`,
  bot_title: "Bot account",
  bot_convert: "Turn this account into a bot account…",
  bot_warning: "This cannot be undone. The account becomes a bot account for good: it is marked as a bot on its profile, at every seat and on the leaderboard, and it is for a program, not for you to play in person. Only an account that has not played a rated game may become one. Rated play with an API token needs a bot account.",
  bot_confirm: "Make it a bot account for good",
  bot_cancel: "Cancel",
  bot_is_bot: "This is a bot account: a program plays it, on the same ladder as people and the service's bots.",
  err_already_bot: "This account is a bot account already.",
  err_has_roles: "An account with a role cannot become a bot.",
  err_rated_as_person: "This account has played a rated game as a person: create a new account for your bot.",
  err_too_many_tokens: "You hold the most tokens allowed: revoke one first.",
  err_no_token: "That token no longer exists.",
};

const de = {
  tok_title: "API-Tokens",
  tok_hint: "Mit einem Token handelt ein Programm für dein Konto: ein „spielen“-Token legt Tische an, setzt sich und spielt über den Websocket, ein „lesen“-Token liest nur. Die Bot-Schnittstelle beschreibt docs/bot-api.md.",
  tok_name: "Name",
  tok_scope: "Umfang",
  tok_scope_play: "spielen",
  tok_scope_read: "nur lesen",
  tok_created: "Angelegt",
  tok_last_used: "Zuletzt benutzt",
  tok_never: "nie",
  tok_none: "Noch keine Tokens.",
  tok_create: "Token anlegen",
  tok_revoke: "Widerrufen",
  tok_revoke_q: (p) => `Den Token „${p.name}“ widerrufen? Ein Programm, das ihn benutzt, hört sofort auf; das lässt sich nicht rückgängig machen.`,
  tok_shown_once: (p) => `Dein neues Token „${p.name}“. Kopiere es jetzt: es wird nur dieses eine Mal gezeigt.`,
  bot_title: "Bot-Konto",
  bot_convert: "Dieses Konto in ein Bot-Konto umwandeln…",
  bot_warning: "Das lässt sich nicht rückgängig machen. Das Konto wird für immer ein Bot-Konto: im Profil, an jedem Platz und in der Rangliste als Bot gekennzeichnet, und es ist für ein Programm, nicht zum Selbstspielen. Nur ein Konto, das noch keine gewertete Partie gespielt hat, kann eines werden. Gewertetes Spielen mit einem API-Token braucht ein Bot-Konto.",
  bot_confirm: "Endgültig zum Bot-Konto machen",
  bot_cancel: "Abbrechen",
  bot_is_bot: "Dies ist ein Bot-Konto: ein Programm spielt es, in derselben Rangliste wie Menschen und die Bots des Dienstes.",
  err_already_bot: "Dieses Konto ist schon ein Bot-Konto.",
  err_has_roles: "Ein Konto mit einer Rolle kann kein Bot werden.",
  err_rated_as_person: "Dieses Konto hat schon gewertet als Mensch gespielt: lege für deinen Bot ein neues Konto an.",
  err_too_many_tokens: "Du hast schon die meisten erlaubten Tokens: widerrufe zuerst eines.",
  err_no_token: "Dieses Token gibt es nicht mehr.",
};

Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
