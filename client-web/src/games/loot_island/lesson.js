// Loot Island's tutorial lesson (tutorial.js): the first round on the chosen deal of the
// tutorial table (server/table/tutorial.py). The ship explores the north coast, 3 cards
// make a landing's loot; the learner holds red 5, red 8, a red joker, blue 9, green 5,
// green 7 and a green joker. The learner plays the green 5 and 7 at North 1, then the
// green joker there as a 10, passes, and picks from the loot offered at North 1.
import { LANGS } from "../../i18n.js";
import { askStep, testid } from "../../lessonkit.js";

/** The step that asks to play `cards` at `landing`: each card of the hand, then the
 *  landing's play button, then in its chooser each joker's `values` and the play. */
const play = (id, cards, landing, values, rest) => askStep({ id, text: `tut_li_${id}`, wrong: `tut_li_wrong_${id}`,
  want: { type: "play", landing }, select: cards.map((c) => testid(`hand-${c}`)), button: testid(`play-${landing}`),
  dialog: { open: testid("chooser"), choices: Object.entries(values).map(([c, v]) => testid(`joker-${c}-${v}`)), then: testid("chooser-play") },
  fallback: testid(`landing-${landing}`), ...rest });
const acted = (m) => m.count("map_cards_played", "islet_used", "passed");
/** North 1's count as its counter shows it (the view's: cards plus plus-ones) and the
 *  round's minimum: the coach says what the board says. */
const north1 = (view) => {
  const x = (view && view.landings && view.landings["north-1"]) || { count: 0 };
  const min = (view && view.min_cards) || 0;
  return { n: x.count, min, short: Math.max(0, min - x.count) };
};

export const lesson = {
  steps: [
    play("play1", ["map-green-5a", "map-green-7a"], "north-1", {}, { term: "minimum", done: (m) => acted(m) >= 1 }),
    play("play2", ["map-green-star-a"], "north-1", { "map-green-star-a": 10 }, { term: "count", params: north1,
      done: (m) => acted(m) >= 2 }),
    askStep({ id: "pass", text: "tut_li_pass", wrong: "tut_li_wrong_pass", want: { type: "pass" }, button: testid("pass"),
      fallback: testid("pass"), done: (m) => m.count("passed") >= 1 }),
    { id: "loot", text: "tut_li_loot", term: "cubes", free: true, target: () => "[data-testid^=take-]",
      // Or the round ended without an offer to the learner.
      done: (m, view) => m.count("loot_taken", "loot_discarded") >= 1 || !!(view && view.round > 1) },
  ],
  remember: ["tut_li_r1", "tut_li_r2", "tut_li_r3", "tut_li_r4", "tut_li_r5"],
};

const en = {
  tut_li_play1: "Ahoy! The ship explores the north coast this round: only its two landings find loot, and only with at least 3 map cards and your disc. Choose the green 5 and the green 7 in your hand, then play them at North 1: one color, values never falling, and your disc goes there.",
  tut_li_wrong_play1: "In this lesson, play your green cards at North 1: that landing is explored this round.",
  tut_li_play2: (p) => `The bot has acted (see the log). North 1 counts ${p.n} (its counter: each card, and each plus-one card once more) and the minimum is ${p.min}: ${p.short ? `${p.short === 1 ? "one card" : `${p.short} cards`} short of loot` : "it qualifies for loot"}. ${p.short ? "" : "When both landings qualify, the higher count takes the big loot. "}Choose your green joker, play it at North 1 and name its value: 10 keeps the row rising.`,
  tut_li_wrong_play2: "Play the green joker at North 1 here: one more card raises that landing's count.",
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
  tut_li_play2: (p) => `Der Bot hat gehandelt (siehe Spielverlauf). Der Zähler von Nord 1 steht auf ${p.n} (jede Karte, jede Plus-eins-Karte noch einmal), das Minimum ist ${p.min}: ${p.short ? `${p.short === 1 ? "eine Karte" : `${p.short} Karten`} zu wenig für Beute` : "Nord 1 bekommt Beute"}. ${p.short ? "" : "Bekommen beide Anlegestellen Beute, nimmt die mit dem höheren Zähler die große. "}Wähle deinen grünen Joker, spiele ihn an Nord 1 und nenne seinen Wert: 10 hält die Reihe steigend.`,
  tut_li_wrong_play2: "Spiele hier den grünen Joker an Nord 1: Eine Karte mehr erhöht den Zähler dieser Anlegestelle.",
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
