// Einauge's tutorial lesson (tutorial.js): two turns on the chosen deal of the tutorial
// table (server/table/tutorial.py). The deal's display is gray 8, yellow 2, gray 5, blue 6,
// yellow 5, purple 3; the pirate table holds the purple 8. The learner buys the purple 3
// (a sabre), places the yellow 2, then buys the yellow 5 and wins the yellow 2 back with
// three sabres: a color row that pays out twice.
import { LANGS } from "../../i18n.js";
import { askStep, testid } from "../../lessonkit.js";

const display = testid("display");
/** The step that asks for `type` of `card`: its button (the display's cards carry theirs). */
const ask = (id, type, card, fallback, rest) => askStep({ id, text: `tut_einauge_${id}`, wrong: `tut_einauge_wrong_${id}`,
  want: { type, card }, button: testid(`act-${type}-${card}`), fallback, ...rest });

export const lesson = {
  steps: [
    ask("buy1", "buy", "purple-3", display, { term: "ducats", done: (m) => m.count("card_bought") >= 1 }),
    ask("place1", "place", "yellow-2", display, { term: "pirate_table", done: (m) => m.count("card_placed") >= 1 }),
    ask("buy2", "buy", "yellow-5", display, { done: (m) => m.count("card_bought") >= 2 }),
    ask("fight2", "fight", "yellow-2", testid("pirate-table"), { term: "sabres",
      // Won or declined; a fight step the rules skipped (too few sabres) ends with the place.
      done: (m) => m.count("fight_won", "fight_declined") >= 1 || m.count("card_placed") >= 2 }),
    { id: "place2", text: "tut_einauge_place2", free: true, target: () => display,
      done: (m) => m.count("card_placed") >= 2 },
  ],
  remember: ["tut_einauge_r1", "tut_einauge_r2", "tut_einauge_r3", "tut_einauge_r4", "tut_einauge_r5"],
};

const en = {
  tut_einauge_buy1: "Welcome aboard! A turn has three steps: buy, fight, place. You start with 20 ducats, 2 sabres and 1 jewel. Buy the purple 3 (highlighted): it costs 3 ducats, and its row pays out a sabre at once.",
  tut_einauge_wrong_buy1: "In this lesson, buy the purple 3 first: its sabre is what lets you fight next turn.",
  tut_einauge_place1: "Your fight step was skipped: the purple 8 on the pirate table shows a sabre, so it costs 4 sabres, and you have 3. Now place a card from the display onto the pirate table: put the yellow 2 there. Without a sabre it costs only 3 sabres to win back.",
  tut_einauge_wrong_place1: "Place the yellow 2 here: you will win it back next turn with your 3 sabres.",
  tut_einauge_buy2: "The bot has played its turn (see the log). Your turn again: buy the yellow 5. It pays out 3 ducats, and your yellow row has begun.",
  tut_einauge_wrong_buy2: "Buy the yellow 5 in this lesson: the yellow 2 on the pirate table will join it.",
  tut_einauge_fight2: "Fight: pay 3 sabres for the yellow 2 on the pirate table (4 for a card that shows a sabre). It joins your yellow row, and the whole row pays out again: both yellow cards.",
  tut_einauge_wrong_fight2: "Win the yellow 2 in this lesson: it makes your yellow row pay out twice this turn.",
  tut_einauge_place2: "Last step: place any card of the display onto the pirate table. A card that shows a sabre costs 4 sabres to win: the bot has few sabres left.",
  tut_einauge_r1: "A turn: buy a card (must), fight for one on the pirate table (may), place one on it (must).",
  tut_einauge_r2: "Each time a card joins a color row, the whole row pays out its sabres, ducats and jewels.",
  tut_einauge_r3: "Sabres win cards from the pirate table: 3, or 4 for a card that shows a sabre.",
  tut_einauge_r4: "Jewels win the game; treasure chests count only at the final scoring.",
  tut_einauge_r5: "When the ship cards appear, the end is near.",
};
const de = {
  tut_einauge_buy1: "Willkommen an Bord! Ein Zug hat drei Schritte: kaufen, kämpfen, legen. Du beginnst mit 20 Dukaten, 2 Säbeln und 1 Juwel. Kaufe die lila 3 (hervorgehoben): Sie kostet 3 Dukaten, und ihre Reihe zahlt sofort einen Säbel aus.",
  tut_einauge_wrong_buy1: "Kaufe in dieser Lektion zuerst die lila 3: Mit ihrem Säbel kannst du im nächsten Zug kämpfen.",
  tut_einauge_place1: "Dein Kampfschritt entfiel: Die lila 8 auf dem Piratentisch zeigt einen Säbel, kostet also 4 Säbel, und du hast 3. Lege jetzt eine Karte aus der Auslage auf den Piratentisch: die gelbe 2. Ohne Säbel kostet sie nur 3 Säbel, um sie zurückzuholen.",
  tut_einauge_wrong_place1: "Lege hier die gelbe 2: Im nächsten Zug holst du sie mit deinen 3 Säbeln zurück.",
  tut_einauge_buy2: "Der Bot hat seinen Zug gemacht (siehe Spielverlauf). Du bist wieder dran: Kaufe die gelbe 5. Sie zahlt 3 Dukaten aus, und deine gelbe Reihe hat begonnen.",
  tut_einauge_wrong_buy2: "Kaufe in dieser Lektion die gelbe 5: Die gelbe 2 vom Piratentisch kommt dazu.",
  tut_einauge_fight2: "Kämpfen: Zahle 3 Säbel für die gelbe 2 auf dem Piratentisch (4 für eine Karte mit Säbel). Sie kommt in deine gelbe Reihe, und die ganze Reihe zahlt noch einmal aus: beide gelben Karten.",
  tut_einauge_wrong_fight2: "Erkämpfe in dieser Lektion die gelbe 2: So zahlt deine gelbe Reihe in diesem Zug zweimal aus.",
  tut_einauge_place2: "Letzter Schritt: Lege eine beliebige Karte der Auslage auf den Piratentisch. Eine Karte mit Säbel kostet 4 Säbel: Der Bot hat kaum noch Säbel.",
  tut_einauge_r1: "Ein Zug: eine Karte kaufen (Pflicht), um eine auf dem Piratentisch kämpfen (freiwillig), eine darauf legen (Pflicht).",
  tut_einauge_r2: "Jedes Mal, wenn eine Karte in eine Farbreihe kommt, zahlt die ganze Reihe ihre Säbel, Dukaten und Juwelen aus.",
  tut_einauge_r3: "Säbel erkämpfen Karten vom Piratentisch: 3, oder 4 für eine Karte mit Säbel.",
  tut_einauge_r4: "Juwelen gewinnen das Spiel; Schatztruhen zählen erst bei der Endabrechnung.",
  tut_einauge_r5: "Wenn die Schiffskarten auftauchen, ist das Ende nah.",
};
Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
