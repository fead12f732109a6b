// Loot Island's tutorial lesson (tutorial.js): the first round on the chosen deal of the
// tutorial table (server/table/tutorial.py). The ship explores the north coast, 3 cards
// make a landing's loot; the learner holds red 5, red 8, a red joker, blue 9, green 5,
// green 7 and a green joker. The learner plays the green 5 and 7 at North 1, then the
// green joker there as a 10, passes, and picks from the loot offered at North 1.
import { LANGS } from "../../i18n.js";

/** The next click of a play of `cards` at `landing`: each card of the hand not chosen
 *  yet, then the landing's play button, then in its chooser each joker's `values` and
 *  the play. */
const playTarget = (cards, landing, values = {}) => (ctx) => {
  const b = ctx.board;
  if (b.querySelector("[data-testid=chooser]")) {
    for (const [card, v] of Object.entries(values)) {
      const sel = `[data-testid="joker-${card}-${v}"]`;
      const el = b.querySelector(sel);
      if (el && el.getAttribute("aria-pressed") !== "true") return sel;
    }
    return "[data-testid=chooser-play]";
  }
  for (const c of cards) {
    const el = b.querySelector(`[data-testid="hand-${c}"]`);
    if (el && el.getAttribute("aria-pressed") !== "true") return `[data-testid="hand-${c}"]`;
  }
  return `[data-testid="play-${landing}"]`;
};
const acted = (m) => m.count("map_cards_played", "islet_used", "passed");

export const lesson = {
  steps: [
    { id: "play1", text: "tut_li_play1", term: "minimum", wrong: "tut_li_wrong_play1",
      want: () => ({ type: "play", landing: "north-1" }), target: playTarget(["map-green-5a", "map-green-7a"], "north-1"),
      done: (m) => acted(m) >= 1 },
    { id: "play2", text: "tut_li_play2", term: "count", wrong: "tut_li_wrong_play2",
      want: () => ({ type: "play", landing: "north-1" }),
      target: playTarget(["map-green-star-a"], "north-1", { "map-green-star-a": 10 }),
      done: (m) => acted(m) >= 2 },
    { id: "pass", text: "tut_li_pass", wrong: "tut_li_wrong_pass",
      want: () => ({ type: "pass" }), target: () => "[data-testid=pass]",
      done: (m) => m.count("passed") >= 1 },
    { id: "loot", text: "tut_li_loot", term: "cubes", free: true, target: () => "[data-testid^=take-]",
      // Or the round ended without an offer to the learner: the bot, which does not wait
      // for the learner's clicks, may have taken North 1's loot first.
      done: (m, view) => m.count("loot_taken", "loot_discarded") >= 1 || !!(view && view.round > 1) },
  ],
  remember: ["tut_li_r1", "tut_li_r2", "tut_li_r3", "tut_li_r4", "tut_li_r5"],
};

const en = {
  tut_li_play1: "Ahoy! The ship explores the north coast this round: only its two landings find loot, and only with at least 3 map cards and your disc. Choose the green 5 and the green 7 in your hand, then play them at North 1: one color, values never falling, and your disc goes there.",
  tut_li_wrong_play1: "In this lesson, play your green cards at North 1: that landing is explored this round.",
  tut_li_play2: "The bot has acted (see the log). North 1 holds 2 cards: one short of loot. Choose your green joker, play it at North 1 and name its value: 10 keeps the row rising.",
  tut_li_wrong_play2: "Play the green joker at North 1 here: the third card makes that landing qualify for loot.",
  tut_li_pass: "Enough for this round: pass. The first player to pass takes the start marker; once everyone has passed, the explored coast finds its loot.",
  tut_li_wrong_pass: "Pass now in this lesson: North 1 is ready for its loot.",
  tut_li_loot: "Loot! The disc holders pick from the offer in turn, from the bottom disc up. Keep a card (you take its curse in cubes) or discard it (you shed 2 cubes). Keep the highlighted one, or choose yourself.",
  tut_li_r1: "On your turn: play map cards of one color at one landing, use an islet with 2 cards of one color, or pass.",
  tut_li_r2: "Only the landings of the coast the ship explores find loot, each needing the round's minimum of cards and a disc.",
  tut_li_r3: "At a landing the values never fall; a joker takes the value you name.",
  tut_li_r4: "Loot brings gold but also curse cubes: too many cubes can cost you the game.",
  tut_li_r5: "The ship moves on each round; after round 5 the loot is scored, and 13 or more cubes knock a player out.",
};
const de = {
  tut_li_play1: "Ahoi! Das Schiff erkundet in dieser Runde die Nordküste: Nur ihre beiden Anlegestellen finden Beute, und nur mit mindestens 3 Schatzkarten und deiner Scheibe. Wähle die grüne 5 und die grüne 7 in deiner Hand und spiele sie an Nord 1: eine Farbe, Werte nie fallend, und deine Scheibe kommt dorthin.",
  tut_li_wrong_play1: "Spiele in dieser Lektion deine grünen Karten an Nord 1: Diese Anlegestelle wird in dieser Runde erkundet.",
  tut_li_play2: "Der Bot hat gehandelt (siehe Spielverlauf). An Nord 1 liegen 2 Karten: eine zu wenig für Beute. Wähle deinen grünen Joker, spiele ihn an Nord 1 und nenne seinen Wert: 10 hält die Reihe steigend.",
  tut_li_wrong_play2: "Spiele hier den grünen Joker an Nord 1: Die dritte Karte bringt diese Anlegestelle zur Beute.",
  tut_li_pass: "Genug für diese Runde: Passe. Wer zuerst passt, wird Startspieler; haben alle gepasst, findet die erkundete Küste ihre Beute.",
  tut_li_wrong_pass: "Passe jetzt in dieser Lektion: Nord 1 ist bereit für die Beute.",
  tut_li_loot: "Beute! Die Scheibenbesitzer wählen reihum aus dem Angebot, von der untersten Scheibe an. Behalte eine Karte (du nimmst ihren Fluch in Würfeln) oder wirf sie ab (du gibst 2 Würfel ab). Behalte die hervorgehobene oder wähle selbst.",
  tut_li_r1: "In deinem Zug: Schatzkarten einer Farbe an einer Anlegestelle spielen, mit 2 Karten einer Farbe ein Eiland nutzen, oder passen.",
  tut_li_r2: "Nur die Anlegestellen der Küste, die das Schiff erkundet, finden Beute, jede mit der Mindestzahl Karten der Runde und einer Scheibe.",
  tut_li_r3: "An einer Anlegestelle fallen die Werte nie; ein Joker hat den Wert, den du nennst.",
  tut_li_r4: "Beute bringt Gold, aber auch Fluchwürfel: Zu viele Würfel können dich das Spiel kosten.",
  tut_li_r5: "Das Schiff zieht jede Runde weiter; nach Runde 5 wird die Beute gewertet, und wer 13 oder mehr Würfel hat, scheidet aus.",
};
Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
