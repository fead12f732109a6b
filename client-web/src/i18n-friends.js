// Texts of friends and invitations (friends.js), merged into the languages of i18n.js.
import { LANGS } from "./i18n.js";

const en = {
  fr_invited: (p) => `${p.by} invites you to the table “${p.name}”.`,
  fr_take_seat: "Take the seat",
  fr_dismiss: "Dismiss",
  fr_log_in_first: "Log in to take the seat you were invited to.",
  fr_invite_name: "Invite by username",
  fr_invite: "Invite",
  fr_invite_sent: (p) => `${p.name} is invited.`,
  fr_follow: "Follow",
  fr_unfollow: "Stop following",
  fr_block: "Block",
  fr_unblock: "Unblock",
  fr_err_no_player: "There is no player of that name.",
  fr_err_not_invited: "Your invitation to this table is no longer open.",
  fr_err_table_full: "Every seat is taken.",
  fr_err_not_open: "The game has started.",
  fr_err_seated: "That player already sits here.",
  fr_err_rate_limited: "Too many invitations: wait a while.",
  fr_err_blocked: "You blocked this player: unblock them first.",
  fr_err_too_many_follows: "You follow as many players as one may: stop following one first.",
};

const de = {
  fr_invited: (p) => `${p.by} lädt dich an den Tisch „${p.name}“ ein.`,
  fr_take_seat: "Platz nehmen",
  fr_dismiss: "Ausblenden",
  fr_log_in_first: "Melde dich an, um den Platz einzunehmen, zu dem du eingeladen wurdest.",
  fr_invite_name: "Per Benutzername einladen",
  fr_invite: "Einladen",
  fr_invite_sent: (p) => `${p.name} ist eingeladen.`,
  fr_follow: "Folgen",
  fr_unfollow: "Nicht mehr folgen",
  fr_block: "Blockieren",
  fr_unblock: "Nicht mehr blockieren",
  fr_err_no_player: "Einen Spieler dieses Namens gibt es nicht.",
  fr_err_not_invited: "Deine Einladung an diesen Tisch gilt nicht mehr.",
  fr_err_table_full: "Alle Plätze sind besetzt.",
  fr_err_not_open: "Das Spiel hat begonnen.",
  fr_err_seated: "Dieser Spieler sitzt schon hier.",
  fr_err_rate_limited: "Zu viele Einladungen: warte eine Weile.",
  fr_err_blocked: "Du hast diesen Spieler blockiert: hebe die Blockade zuerst auf.",
  fr_err_too_many_follows: "Du folgst schon so vielen Spielern wie erlaubt: entfolge zuerst einem.",
};

Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
