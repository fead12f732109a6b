// Texts of the tutorials' coach and offers (tutorial.js), merged into the languages of
// i18n.js. Each game's lesson texts live beside its lesson (games/<game>/lesson.js).
import { LANGS } from "./i18n.js";

const en = {
  tut_starting: "Setting up your tutorial table…",
  tut_coach: "Coach",
  tut_progress: (p) => `step ${p.n} of ${p.of}`,
  tut_wait: "The bot is playing its turn: watch the board and the log.",
  tut_wrong: "That is a legal move, but this lesson needs the highlighted one here.",
  tut_refused: (p) => `The server refused that move: ${p.reason}`,
  tut_close: "Hide the coach",
  tut_done_title: "Well played!",
  tut_done: "That was the lesson. Play on against the bot, or start a real game.",
  tut_remember: "What to remember",
  tut_rules: "Read the full rules",
  tut_play_real: "Play a real game",
  tut_play_on: "Play on against the bot",
  tut_stop: "Stop here",
  tut_learn: "Play the tutorial",
  tut_learn_of: (p) => `Learn ${p.game}: a tutorial`,
  tut_learn_title: "Learn to play",
  tut_learn_hint: "A short first game against a bot, with a coach that explains each step.",
  tut_offer_label: "Tutorial",
  tut_offer: (p) => `New to ${p.game}? A short tutorial game with a coach explains it step by step.`,
  tut_dismiss: "No, thanks",
  tut_badge: "Tutorial",
  bot_tutorial: "tutorial (scripted)",
};
const de = {
  tut_starting: "Dein Übungstisch wird vorbereitet …",
  tut_coach: "Trainer",
  tut_progress: (p) => `Schritt ${p.n} von ${p.of}`,
  tut_wait: "Der Bot ist am Zug: Sieh dir das Spielfeld und den Spielverlauf an.",
  tut_wrong: "Dieser Zug ist erlaubt, aber diese Lektion braucht hier den hervorgehobenen.",
  tut_refused: (p) => `Der Server hat diesen Zug abgelehnt: ${p.reason}`,
  tut_close: "Trainer ausblenden",
  tut_done_title: "Gut gespielt!",
  tut_done: "Das war die Lektion. Spiel gegen den Bot weiter oder beginne ein echtes Spiel.",
  tut_remember: "Das solltest du dir merken",
  tut_rules: "Die ganzen Regeln lesen",
  tut_play_real: "Ein echtes Spiel spielen",
  tut_play_on: "Gegen den Bot weiterspielen",
  tut_stop: "Hier aufhören",
  tut_learn: "Die Übung spielen",
  tut_learn_of: (p) => `${p.game} lernen: eine Übung`,
  tut_learn_title: "Spielen lernen",
  tut_learn_hint: "Ein kurzes erstes Spiel gegen einen Bot, mit einem Trainer, der jeden Schritt erklärt.",
  tut_offer_label: "Übung",
  tut_offer: (p) => `Neu bei ${p.game}? Ein kurzes Übungsspiel mit Trainer erklärt es Schritt für Schritt.`,
  tut_dismiss: "Nein, danke",
  tut_badge: "Übung",
  bot_tutorial: "Übung (nach Drehbuch)",
};

Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
