// Keltis's tutorial lesson (tutorial.js): three turns on the chosen deal of the tutorial
// table (server/table/tutorial.py). The learner's hand is green 10, red 3, red 6, red 8,
// red 9, red 10, pink 1 and a pink end card: a rising red row is there to be built. The
// learner lays the red 3, 6 and 8 and draws after each lay.
import { LANGS } from "../../i18n.js";
import { askStep, testid } from "../../lessonkit.js";

/** The step that asks to lay `card` on its `row`: the card in the hand, then its button. */
const lay = (id, card, row, rest) => askStep({ id, text: `tut_keltis_${id}`, wrong: `tut_keltis_wrong_${id}`,
  want: { type: "lay", card, row }, select: [testid(`hand-${card}`)], button: testid(`act-lay-${card}-${row}`),
  fallback: testid("hand-cards"), ...rest });
const draw = testid("act-draw-deck");
const lays = (m) => m.count("card_laid", "card_discarded", "stone_taken");

export const lesson = {
  steps: [
    lay("lay1", "red-3a", "red", { term: "direction", done: (m) => lays(m) >= 1 }),
    { id: "draw1", text: "tut_keltis_draw1", term: "pile", free: true, target: () => draw,
      done: (m) => m.count("card_drawn") >= 1 },
    lay("lay2", "red-6a", "red", { done: (m) => lays(m) >= 2 }),
    { id: "draw2", text: "tut_keltis_draw2", free: true, target: () => draw,
      done: (m) => m.count("card_drawn") >= 2 },
    lay("lay3", "red-8", "red", { term: "row_count", done: (m) => lays(m) >= 3 }),
    { id: "draw3", text: "tut_keltis_draw3", term: "stones", free: true, target: () => draw,
      done: (m) => m.count("card_drawn") >= 3 },
  ],
  remember: ["tut_keltis_r1", "tut_keltis_r2", "tut_keltis_r3", "tut_keltis_r4", "tut_keltis_r5"],
};

const en = {
  tut_keltis_lay1: "Welcome to Keltis! Each turn you lay, discard or take a wish stone, then draw back to 8 cards. You hold the red 3, 6, 8, 9 and 10: start a red row. Select the red 3 in your hand, then lay it on the red row.",
  tut_keltis_wrong_lay1: "In this lesson, start the red row with the red 3: the 6, 8, 9 and 10 can all follow it upwards.",
  tut_keltis_draw1: "Now draw back to 8 cards: the deck's top card, hidden, or the top card of a discard pile, which everyone sees.",
  tut_keltis_lay2: "The bot has played (see the log). Lay the red 6 on your red row. The first two different values set a row's direction: 3 then 6 makes red a rising row for the rest of the game.",
  tut_keltis_wrong_lay2: "Lay the red 6 here: it makes your red row rise, with room for the 8, 9 and 10.",
  tut_keltis_draw2: "Draw again, from the deck or a discard pile.",
  tut_keltis_lay3: "Lay the red 8: your red row rises on. A row of 1 to 3 cards costs points at the end; from 4 cards on it scores, 10 points for 9 cards or more.",
  tut_keltis_wrong_lay3: "Lay the red 8 in this lesson: the fourth red card makes the row score.",
  tut_keltis_draw3: "Last step: draw. Two cards of the same value, discarded together, take the wish stone of that value: 3 stones or more score.",
  tut_keltis_r1: "A turn: lay a card, discard one, or discard a pair of equal values for a wish stone; then draw back to 8.",
  tut_keltis_r2: "A row's first two different values set it rising or falling for good; an equal value always fits.",
  tut_keltis_r3: "Rows of 1 to 3 cards cost points, rows of 4 or more score: build a few long rows.",
  tut_keltis_r4: "A card you discard is open to everyone: the other players may draw it.",
  tut_keltis_r5: "The game ends when the deck is used up or five rows are closed by end cards.",
};
const de = {
  tut_keltis_lay1: "Willkommen bei Keltis! In jedem Zug legst du an, wirfst ab oder nimmst einen Wunschstein, dann ziehst du auf 8 Karten nach. Du hältst die rote 3, 6, 8, 9 und 10: Beginne eine rote Reihe. Wähle die rote 3 in deiner Hand und lege sie an die rote Reihe.",
  tut_keltis_wrong_lay1: "Beginne in dieser Lektion die rote Reihe mit der roten 3: Die 6, 8, 9 und 10 können ihr alle aufwärts folgen.",
  tut_keltis_draw1: "Zieh jetzt auf 8 Karten nach: die oberste Karte des Stapels, verdeckt, oder die oberste eines Ablagestapels, die alle sehen.",
  tut_keltis_lay2: "Der Bot hat gespielt (siehe Spielverlauf). Lege die rote 6 an deine rote Reihe. Die ersten zwei verschiedenen Werte bestimmen die Richtung: 3, dann 6 macht Rot für den Rest des Spiels aufsteigend.",
  tut_keltis_wrong_lay2: "Lege hier die rote 6 an: Deine rote Reihe steigt dann, mit Platz für 8, 9 und 10.",
  tut_keltis_draw2: "Zieh wieder nach, vom Stapel oder von einem Ablagestapel.",
  tut_keltis_lay3: "Lege die rote 8 an: Deine rote Reihe steigt weiter. Eine Reihe aus 1 bis 3 Karten kostet am Ende Punkte; ab 4 Karten bringt sie Punkte, 10 Punkte ab 9 Karten.",
  tut_keltis_wrong_lay3: "Lege in dieser Lektion die rote 8 an: Die vierte rote Karte bringt der Reihe Punkte.",
  tut_keltis_draw3: "Letzter Schritt: Zieh nach. Zwei Karten gleichen Werts, zusammen abgeworfen, bringen den Wunschstein dieses Werts: Ab 3 Steinen gibt es Punkte.",
  tut_keltis_r1: "Ein Zug: eine Karte anlegen, eine abwerfen oder ein Paar gleicher Werte für einen Wunschstein abwerfen; dann auf 8 nachziehen.",
  tut_keltis_r2: "Die ersten zwei verschiedenen Werte einer Reihe legen sie für immer auf- oder absteigend fest; ein gleicher Wert passt immer.",
  tut_keltis_r3: "Reihen aus 1 bis 3 Karten kosten Punkte, ab 4 Karten bringen sie Punkte: Baue wenige lange Reihen.",
  tut_keltis_r4: "Eine abgeworfene Karte liegt offen: Die anderen dürfen sie nachziehen.",
  tut_keltis_r5: "Das Spiel endet, wenn der Stapel aufgebraucht ist oder fünf Reihen mit Schlusskarten geschlossen sind.",
};
Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
