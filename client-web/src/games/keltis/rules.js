// Keltis's rules page (/rules/keltis; English and German): a players' summary of
// RULES-keltis.md, its decisions included (docs/rules-keltis.md), nothing beyond it.
import { ol, p, table, term, ul } from "../../rulesdoc.js";

const ROWS = [["0", "0"], ["1", "−4"], ["2", "−3"], ["3", "−2"], ["4", "1"], ["5", "2"], ["6", "3"], ["7", "6"], ["8", "7"]];
const STONES = [["0", "−4"], ["1", "−1"], ["2", "0"], ["3", "4"], ["4", "6"]];
const COPIES = ["1", "1", "1", "2", "2", "2", "2", "2", "1", "1", "1"];

const EN = {
  title: "How to play Keltis: Das Kartenspiel",
  intro: "Keltis: Das Kartenspiel (Reiner Knizia, Kosmos 2009) is a card game for 2–4 players. You lay your cards in rows of one color, rising or falling; long rows score, short ones cost points. Wish stones and point cards add to your score. The highest total after the final scoring wins.",
  toc: "Contents",
  sections: {
    setup: ["Cards and setup", () => [
      p("The deck holds 101 cards: 80 number cards (5 colors — green, yellow, red, pink, blue — with 16 each, values 0 to 10), 10 end cards (2 per color, no value) and 11 grey point cards (values 0 to 10). Per color there are these number cards:"),
      table(["Value", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"], [["Copies", ...COPIES]], "rules-copies"),
      p("The 9 wish stones (values 1 to 9) lie face up in the middle; they are not in the deck. With 2 players, 30 cards are removed at random before the deal, unseen. Everyone is dealt 8 cards; seat #1 begins."),
    ]],
    turn: ["A turn", () => [
      p("On your turn you do exactly one of three things, then refill your hand:"),
      ol([term("Lay", " one card onto one of your own rows (below)."),
        term("Discard", " one card face up onto its discard pile: one pile per color, and a sixth pile for point cards."),
        term("Take a stone", ": discard two cards of the same value (colors do not matter) and take the wish stone of that value, if it is still in the middle. Point cards count with their value; end cards have none. Only values 1 to 9 have a stone.")]),
    ]],
    refill: ["Refilling", () => [
      p("After laying or discarding one card you draw 1 card; after taking a stone, 2 cards. Each draw is either the top card of the deck or the top card of any discard pile, one card at a time."),
      ul(["You may not draw a card you discarded in this same turn; cards discarded earlier, by anyone, may be drawn.",
        "After taking a stone both draws may come from discard piles, even twice from the same pile (the second takes the card the first uncovered).",
        "If the deck is empty, the draws may still come from discard piles; if no card can be drawn, your hand stays short."]),
    ]],
    rows: ["Your rows", () => [
      p("You lay cards only onto your own rows: at most one row per color and one point row. The first card of a color starts its row, with any value."),
      ul(["Each row is rising or falling, and its direction never changes. It is fixed by the first card whose value differs from the card before it; until then the row has no direction.",
        "A card may always be laid on a card of equal value. Otherwise a rising row takes a card of at least the last card’s value, a falling row one of at most it. Gaps are allowed.",
        "A point card may be laid on any of your color rows whose last card has the same value: it then belongs to that row and counts for its length. It cannot start a color row or be laid on an end card.",
        "Or you lay a point card on your point row, in any order, whatever its value."]),
      p("Examples: the rising row 0-5-5-5-6-7-9-10 is legal (the third 5 is a point card), and so is the falling row 7-7-4-4-3-1 (its direction is fixed by the 4). A grey 6 may be laid on a row ending in blue 6."),
    ]],
    "end-cards": ["End cards", () => [
      p("An end card may be laid at any time on your row of its color, if that row already holds at least one card. The row is then closed: only the second end card of that color may still be laid on it, no number or point card. The end cards count for the row’s length."),
      p("Example: after end-red-1 a red 3 may no longer be laid on that row, end-red-2 may; the row counts as one closed row for the end of the game."),
    ]],
    end: ["The end of the game", () => [
      p("The end is triggered when the last card of the deck has been drawn, or when 5 color rows are closed, counted over all players together (rows, not end cards: a second end card on a closed row does not count again). The turn in which this happens is finished normally, with its refill."),
      p("Then everyone has one final turn, in seat order starting with the player after the one who triggered the end (that player goes last). In it you may lay up to 2 more cards from your hand, one at a time, by the usual rules, without drawing. No stone can be taken and nothing is discarded. The final turn ends by itself after the second card or when no card can be laid; you may also end it earlier."),
    ]],
    scoring: ["Final scoring", () => [
      p("Each color row scores by the number of cards in it (number cards, point cards laid on it and end cards all count):"),
      table(["Cards in the row", "Points"], [...ROWS, ["9 or more", "10"]], "rules-row-points"),
      p("Each card on your point row scores 1 point. Your wish stones score by how many you hold:"),
      table(["Stones", "Points"], [...STONES, ["5 or more", "10"]], "rules-stone-points"),
      p("Cards left in your hand score nothing. The highest total wins; players tied for the highest total share the win (with 2 players a tie is a draw)."),
    ]],
    example: ["A worked example", () => [
      p("A player ends with green green-2, green-3, green-5, point-5, green-8, end-green-1 (6 cards: 3 points), red red-9, red-7 (2 cards: −3), the point row point-0, point-10 (2 points) and one wish stone (−1). Total: 3 − 3 + 2 − 1 = 1."),
    ]],
    public: ["What everyone sees", () => [
      p("Your hand is yours alone; everyone sees how many cards each player holds and how many are left in the deck. All rows (with their direction and whether closed), point rows, stones and the whole content of every discard pile are public. The removed cards of a 2-player game are never shown."),
    ]],
  },
  howto: ["Start. On your turn lay a card on one of your rows, discard one, or discard two of equal value for a wish stone; then draw back to 8.",
    "When the deck runs out or five rows are closed, everyone lays up to two more cards. Long rows, point cards and stones win."],
};

const DE = {
  title: "So spielt man Keltis: Das Kartenspiel",
  intro: "Keltis: Das Kartenspiel (Reiner Knizia, Kosmos 2009) ist ein Kartenspiel für 2–4 Spieler. Ihr legt eure Karten in Reihen einer Farbe an, aufsteigend oder absteigend; lange Reihen bringen Punkte, kurze kosten welche. Wunschsteine und Punktekarten zählen dazu. Wer nach der Wertung die meisten Punkte hat, gewinnt.",
  toc: "Inhalt",
  sections: {
    setup: ["Karten und Vorbereitung", () => [
      p("Der Nachziehstapel hat 101 Karten: 80 Zahlenkarten (5 Farben — Grün, Gelb, Rot, Rosa, Blau — mit je 16, Werte 0 bis 10), 10 Schlusskarten (2 je Farbe, ohne Wert) und 11 graue Punktekarten (Werte 0 bis 10). Je Farbe gibt es diese Zahlenkarten:"),
      table(["Wert", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"], [["Anzahl", ...COPIES]], "rules-copies"),
      p("Die 9 Wunschsteine (Werte 1 bis 9) liegen offen in der Tischmitte; sie gehören nicht zum Stapel. Zu zweit werden vor dem Austeilen 30 Karten zufällig und ungesehen aus dem Spiel genommen. Jeder erhält 8 Karten; Platz #1 beginnt."),
    ]],
    turn: ["Ein Spielzug", () => [
      p("In deinem Zug tust du genau eines von drei Dingen und füllst dann deine Hand auf:"),
      ol([term("Anlegen", ": eine Karte an eine deiner eigenen Reihen legen (unten)."),
        term("Abwerfen", ": eine Karte offen auf ihren Ablagestapel legen: ein Stapel je Farbe und ein sechster für Punktekarten."),
        term("Wunschstein nehmen", ": zwei Karten gleichen Werts abwerfen (die Farben sind egal) und den Wunschstein dieses Werts nehmen, wenn er noch in der Mitte liegt. Punktekarten zählen mit ihrem Wert; Schlusskarten haben keinen. Nur die Werte 1 bis 9 haben einen Stein.")]),
    ]],
    refill: ["Nachziehen", () => [
      p("Nach dem Anlegen oder Abwerfen einer Karte ziehst du 1 Karte nach, nach dem Nehmen eines Wunschsteins 2 Karten. Jede Karte kommt entweder oben vom Nachziehstapel oder oben von einem beliebigen Ablagestapel, eine nach der anderen."),
      ul(["Eine Karte, die du in diesem Zug abgeworfen hast, darfst du nicht ziehen; früher abgeworfene Karten, von wem auch immer, schon.",
        "Nach einem Wunschstein dürfen beide Karten von Ablagestapeln kommen, auch zweimal vom selben (die zweite ist die, die die erste freigelegt hat).",
        "Ist der Nachziehstapel leer, darfst du weiter von Ablagestapeln ziehen; geht gar nichts mehr, bleibt deine Hand kürzer."]),
    ]],
    rows: ["Deine Reihen", () => [
      p("Du legst nur an deine eigenen Reihen an: höchstens eine Reihe je Farbe und eine Punktekartenreihe. Die erste Karte einer Farbe beginnt ihre Reihe, mit beliebigem Wert."),
      ul(["Jede Reihe ist aufsteigend oder absteigend, und die Richtung ändert sich nie. Sie steht mit der ersten Karte fest, deren Wert sich von der Karte davor unterscheidet; bis dahin hat die Reihe keine Richtung.",
        "Eine Karte gleichen Werts darf immer angelegt werden. Sonst nimmt eine aufsteigende Reihe eine Karte mit mindestens dem Wert der letzten Karte, eine absteigende eine mit höchstens diesem Wert. Lücken sind erlaubt.",
        "Eine Punktekarte darf an jede deiner Farbreihen, deren letzte Karte denselben Wert hat: Sie gehört dann zu dieser Reihe und zählt für ihre Länge. Sie kann keine Farbreihe beginnen und nicht auf eine Schlusskarte gelegt werden.",
        "Oder du legst eine Punktekarte an deine Punktekartenreihe, in beliebiger Reihenfolge und gleich welchen Werts."]),
      p("Beispiele: Die aufsteigende Reihe 0-5-5-5-6-7-9-10 ist erlaubt (die dritte 5 ist eine Punktekarte), ebenso die absteigende Reihe 7-7-4-4-3-1 (ihre Richtung legt die 4 fest). Eine graue 6 darf an eine Reihe, die mit Blau-6 endet."),
    ]],
    "end-cards": ["Schlusskarten", () => [
      p("Eine Schlusskarte darf jederzeit an deine Reihe ihrer Farbe gelegt werden, wenn diese schon mindestens eine Karte hat. Die Reihe ist dann geschlossen: Nur noch die zweite Schlusskarte dieser Farbe darf angelegt werden, keine Zahlen- oder Punktekarte. Schlusskarten zählen für die Länge der Reihe."),
      p("Beispiel: Nach end-red-1 darf keine rote 3 mehr an diese Reihe, end-red-2 schon; die Reihe zählt für das Spielende als eine geschlossene Reihe."),
    ]],
    end: ["Das Spielende", () => [
      p("Das Ende wird ausgelöst, wenn die letzte Karte des Nachziehstapels gezogen ist oder wenn 5 Farbreihen geschlossen sind, über alle Spieler zusammen gezählt (Reihen, nicht Schlusskarten: eine zweite Schlusskarte an einer geschlossenen Reihe zählt nicht noch einmal). Der Zug, in dem das geschieht, wird normal beendet, mit dem Nachziehen."),
      p("Dann hat jeder einen letzten Zug, in Platzreihenfolge, beginnend mit dem Spieler nach dem, der das Ende ausgelöst hat (dieser ist zuletzt dran). Darin darfst du noch bis zu 2 Karten aus der Hand anlegen, eine nach der anderen, nach den üblichen Regeln, ohne nachzuziehen. Kein Wunschstein kann mehr genommen werden, abgeworfen wird nicht. Der letzte Zug endet von selbst nach der zweiten Karte oder wenn keine Karte mehr angelegt werden kann; du kannst ihn auch früher beenden."),
    ]],
    scoring: ["Wertung", () => [
      p("Jede Farbreihe zählt nach der Zahl ihrer Karten (Zahlenkarten, angelegte Punktekarten und Schlusskarten zählen alle mit):"),
      table(["Karten in der Reihe", "Punkte"], [...ROWS, ["9 oder mehr", "10"]], "rules-row-points"),
      p("Jede Karte deiner Punktekartenreihe bringt 1 Punkt. Deine Wunschsteine zählen nach ihrer Zahl:"),
      table(["Wunschsteine", "Punkte"], [...STONES, ["5 oder mehr", "10"]], "rules-stone-points"),
      p("Karten auf der Hand zählen nichts. Die höchste Summe gewinnt; wer gleichauf die höchste Summe hat, gewinnt gemeinsam (zu zweit ist Gleichstand ein Unentschieden)."),
    ]],
    example: ["Ein Rechenbeispiel", () => [
      p("Ein Spieler endet mit Grün green-2, green-3, green-5, point-5, green-8, end-green-1 (6 Karten: 3 Punkte), Rot red-9, red-7 (2 Karten: −3), der Punktekartenreihe point-0, point-10 (2 Punkte) und einem Wunschstein (−1). Summe: 3 − 3 + 2 − 1 = 1."),
    ]],
    public: ["Was alle sehen", () => [
      p("Deine Handkarten sieht nur du; alle sehen, wie viele Karten jeder hält und wie viele noch im Nachziehstapel sind. Alle Reihen (mit Richtung und ob geschlossen), Punktekartenreihen, Wunschsteine und der ganze Inhalt jedes Ablagestapels sind offen. Die zu zweit entfernten Karten werden nie gezeigt."),
    ]],
  },
  howto: ["Starte. In deinem Zug legst du eine Karte an eine deiner Reihen, wirfst eine ab oder wirfst zwei gleichen Werts für einen Wunschstein ab; dann ziehst du auf 8 nach.",
    "Ist der Nachziehstapel leer oder sind fünf Reihen geschlossen, legt jeder noch bis zu zwei Karten an. Lange Reihen, Punktekarten und Wunschsteine gewinnen."],
};

/** Keltis's rules document (rulesdoc.js): all text, nothing to load. */
export const keltisRules = {
  load: () => Promise.resolve(null),
  doc: (lang) => (lang === "de" ? DE : EN),
};
