// Einauge's rules page (/rules, /rules/einauge; English and German): the whole game for
// someone who has never played it, with the tables of the final scoring and a worked
// example. Sections have stable anchors (#buy, #fight, #ships, #scoring, …) that the
// table's hints, the card details and the score table link to. The card list is the
// server's card data; the page computes nothing.
import { api } from "../../api.js";
import { h } from "../../dom.js";
import { cardName } from "./texts.js";
import { COLOR_GLYPH } from "../../icons.js";
import { ol, p, table, ul } from "../../rulesdoc.js";

const EN = {
  title: "How to play Einauge sei wachsam!",
  intro: "Einauge sei wachsam! (“One-Eye, be watchful!”, Kramer & Kiesling, Amigo 2009) is a card game for 2–5 pirates. You collect island cards in color rows; every time a row grows it pays out sabres, ducats and jewels. The player with the most jewels after the final scoring wins.",
  toc: "Contents",
  sections: {
    setup: ["Setup", () => [
      p("Everyone starts with 2 sabres, 1 jewel and 20 ducats. Not every color is in play:"),
      table(["Players", "Colors in play", "Island cards"], [["2", "5", "35"], ["3", "6", "42"], ["4", "7", "49"], ["5", "8", "56"]], "rules-colors"),
      p("Each color has 7 island cards, priced 2 to 8 ducats. The 8 ship cards lie under the deck. Six cards are laid face up as the display, one onto Einauge’s pirate table. Seat #1 begins."),
    ]],
    turn: ["A turn", () => [
      p("On your turn you do four steps, in this order. The page shows the step you are in and offers only the moves the rules allow."),
      ol([h("span", {}, h("b", {}, "Buy"), " (must): pay a display card’s price and put it into its color row. The row pays out."),
        h("span", {}, h("b", {}, "Fight"), " (may): win one card from the pirate table with sabres. The row pays out. Or pass."),
        h("span", {}, h("b", {}, "Place"), " (must): move one display card onto the pirate table (skipped when it already holds 6)."),
        h("span", {}, h("b", {}, "Refill"), " (automatic): cards from the deck fill the display up to 6 again.")]),
    ]],
    buy: ["Buying and the row payout", () => [
      p("You pay the card’s price in ducats and add it to your row of its color. Then the whole row pays out: you receive the sabres, ducats and jewels printed on every card in that row, the new card included. So a long row pays more each time it grows."),
      p("Example (from the rules): Barbara buys blue-5 (pays 5, receives 1 sabre and 2 ducats). Later she buys blue-4 (pays 4; the row blue-5 + blue-4 pays 2 sabres, 3 ducats). Then blue-8 (pays 8; the row pays 2 sabres, 3 ducats and 2 jewels)."),
      p("A row holds at most 7 cards. Treasure chests on the cards pay nothing during the game; they count only in the final scoring."),
    ]],
    selling: ["Selling", () => [
      p("In the buy step, before you buy, you may sell as often as you like:"),
      table(["You sell", "You receive"], [["1 jewel", "3 ducats"], ["1 island card from your rows", "5 ducats (nothing pays out; the card leaves the game)"]], "rules-selling"),
      p("Ship cards cannot be sold. If no display card is affordable even after selling everything, the buy step is skipped. If you sell the last island card of a row that holds ships, those ships become lone ships."),
    ]],
    fight: ["Fighting (the pirate table)", () => [
      p("After buying you may win one card from the pirate table. It costs sabres, not ducats:"),
      table(["Card", "Fight cost"], [["shows no sabre symbol", "3 sabres"], ["shows a sabre symbol", "4 sabres"], ["ship", "3 sabres"]], "rules-fight"),
      p("The card joins its row and the row pays out, as when buying. Cards on the pirate table cannot be bought. If you cannot win any card, the step is skipped; otherwise choose a card or pass. Each card on the pirate table shows its fight cost."),
    ]],
    place: ["Placing and refilling", () => [
      p("You must move one card of the display onto the pirate table (it then holds up to 6 cards; with 6 the step is skipped). Then the display is refilled from the deck. The counter under the deck tells how many island cards are left before the ships."),
    ]],
    ships: ["Ships and lone ships", () => [
      p("A ship is a joker, priced 5 ducats. When you buy or win one, you put it into any of your color rows: that row pays out as usual (the ship itself yields nothing, so the row pays what its cards yield). The ship dialog lists each row with what it would pay out now."),
      p("Or you lay it alone: nothing pays out. Lone ships wait for the next color row you start: they join it (up to the row limit of 7). A lone ship is no color row."),
    ]],
    end: ["The end of the game", () => [
      p("The end begins when the first ship is revealed into the display. How it continues depends on the table’s end rule:"),
      ul([h("span", {}, h("b", {}, "Finish the round"), " (standard, yucata.de): the round is played to its end, so that everyone has had the same number of turns; then the final round starts with seat #1."),
        h("span", {}, h("b", {}, "One more turn each"), " (first edition): after the turn in which the ship appeared, every player takes exactly one more turn, ending with the one who revealed it; then the final round starts with the next seat.")]),
      p("Turns before the final round are normal turns; more ships may appear."),
    ]],
    "final-round": ["The final round", () => [
      p("Each player, in turn, may win one card from the pirate table or the display, paying 3 sabres, or 4 if the card shows a sabre. Its row pays out as usual. Or pass. Nothing else happens: no buying, selling, placing or refilling."),
    ]],
    scoring: ["Final scoring", () => [
      ol(["Every sabre becomes 3 ducats.", "Every full 5 ducats become 1 jewel (the rest is lost).", "Treasure chests are scored color by color (below).", "With the color bonus variant: jewels for the number of color rows (below)."]),
      p("The most jewels wins; a tie is a shared win. The score table at the end shows every one of these numbers per player."),
    ]],
    chests: ["Treasure chests", () => [
      p("For each color, the players who hold at least one chest in that color are ranked by their number of chests:"),
      table(["Rank in a color", "Jewels"], [["1st (most chests)", "7"], ["2nd", "4"], ["3rd", "1"], ["4th and below", "0"]], "rules-chests"),
      p("Tied players all get their rank’s full award, and the following rank(s) drop out. Players with no chest in a color get nothing for it. Examples from the rules:"),
      table(["Chests in red", "Jewels"], [["5 / 3 / 0", "7 / 4 / 0"]], "rules-chests-ex1"),
      table(["Chests in green", "Jewels"], [["3 / 3 / 1", "7 / 7 / 1"]], "rules-chests-ex2"),
    ]],
    "color-bonus": ["Color bonus (variant)", () => [
      p("Only when the table was created with the color bonus variant: jewels for the number of color rows you hold at the end (lone ships are no row)."),
      table(["Color rows", "Jewels"], [["0–2", "0"], ["3", "3"], ["4", "6"], ["5", "10"], ["6", "15"], ["7", "21"], ["8", "28"]], "rules-bonus"),
    ]],
    example: ["A worked example of the final scoring", () => [
      p("Three players end like this: Anna holds 3 sabres, 13 ducats, 6 jewels, 3 chests in blue and 2 in red. Ben has 3 chests in blue and 4 in red; Cleo 1 chest in blue."),
      ol(["Anna’s 3 sabres become 9 ducats: 13 + 9 = 22 ducats.",
        "22 ducats are 4 full fives: 4 jewels (2 ducats are lost).",
        "Blue: Anna 3, Ben 3, Cleo 1 chests. Anna and Ben tie for 1st: 7 jewels each; 2nd drops out; Cleo is 3rd: 1 jewel.",
        "Red: Ben 4 chests is 1st (7 jewels), Anna 2 chests is 2nd: 4 jewels.",
        "Anna’s total: 6 + 4 + 7 + 4 = 21 jewels."]),
    ]],
    cards: ["The cards", () => [p("Every island card with its price, what it adds to its row’s payout and its treasure chests (S sabres, D ducats, J jewels, C chests), and what it costs to win from the pirate table.")]],
  },
  cardHead: ["Card", "Price", "S", "D", "J", "C", "Fight cost"],
  back: "Back to the table",
};

const DE = {
  title: "So spielt man Einauge sei wachsam!",
  intro: "Einauge sei wachsam! (Kramer & Kiesling, Amigo 2009) ist ein Kartenspiel für 2–5 Piraten. Ihr sammelt Inselkarten in Farbreihen; jedes Mal, wenn eine Reihe wächst, zahlt sie Säbel, Dukaten und Juwelen aus. Wer nach der Endabrechnung die meisten Juwelen hat, gewinnt.",
  toc: "Inhalt",
  sections: {
    setup: ["Vorbereitung", () => [
      p("Jeder beginnt mit 2 Säbeln, 1 Juwel und 20 Dukaten. Nicht alle Farben sind im Spiel:"),
      table(["Spieler", "Farben im Spiel", "Inselkarten"], [["2", "5", "35"], ["3", "6", "42"], ["4", "7", "49"], ["5", "8", "56"]], "rules-colors"),
      p("Jede Farbe hat 7 Inselkarten mit Preisen von 2 bis 8 Dukaten. Die 8 Schiffskarten liegen unter dem Stapel. Sechs Karten liegen offen als Auslage aus, eine auf Einauges Piratentisch. Platz #1 beginnt."),
    ]],
    turn: ["Ein Spielzug", () => [
      p("In deinem Zug machst du vier Schritte in dieser Reihenfolge. Die Seite zeigt, in welchem Schritt du bist, und bietet nur erlaubte Züge an."),
      ol([h("span", {}, h("b", {}, "Kaufen"), " (Pflicht): Zahle den Preis einer Karte der Auslage und lege sie in ihre Farbreihe. Die Reihe zahlt aus."),
        h("span", {}, h("b", {}, "Erkämpfen"), " (freiwillig): Gewinne mit Säbeln eine Karte vom Piratentisch. Die Reihe zahlt aus. Oder passe."),
        h("span", {}, h("b", {}, "Legen"), " (Pflicht): Lege eine Karte der Auslage auf den Piratentisch (entfällt, wenn dort schon 6 liegen)."),
        h("span", {}, h("b", {}, "Aufdecken"), " (automatisch): Karten vom Stapel füllen die Auslage wieder auf 6 auf.")]),
    ]],
    buy: ["Kaufen und die Auszahlung der Reihe", () => [
      p("Du zahlst den Preis in Dukaten und legst die Karte in deine Reihe ihrer Farbe. Dann zahlt die ganze Reihe aus: Du erhältst die Säbel, Dukaten und Juwelen aller Karten dieser Reihe, die neue eingeschlossen. Eine lange Reihe zahlt also bei jedem Wachsen mehr."),
      p("Beispiel (aus der Regel): Barbara kauft Blau-5 (zahlt 5, erhält 1 Säbel und 2 Dukaten). Später kauft sie Blau-4 (zahlt 4; die Reihe Blau-5 + Blau-4 zahlt 2 Säbel und 3 Dukaten). Dann Blau-8 (zahlt 8; die Reihe zahlt 2 Säbel, 3 Dukaten und 2 Juwelen)."),
      p("Eine Reihe hat höchstens 7 Karten. Schatztruhen auf den Karten zahlen während des Spiels nichts; sie zählen erst in der Endabrechnung."),
    ]],
    selling: ["Verkaufen", () => [
      p("Im Kaufschritt darfst du vor dem Kauf beliebig oft verkaufen:"),
      table(["Du verkaufst", "Du erhältst"], [["1 Juwel", "3 Dukaten"], ["1 Inselkarte aus deinen Reihen", "5 Dukaten (nichts zahlt aus; die Karte verlässt das Spiel)"]], "rules-selling"),
      p("Schiffskarten kann man nicht verkaufen. Ist selbst nach dem Verkauf von allem keine Karte der Auslage bezahlbar, entfällt der Kauf. Verkaufst du die letzte Inselkarte einer Reihe mit Schiffen, werden diese Schiffe zu einzelnen Schiffen."),
    ]],
    fight: ["Erkämpfen (der Piratentisch)", () => [
      p("Nach dem Kauf darfst du eine Karte vom Piratentisch erkämpfen. Sie kostet Säbel, keine Dukaten:"),
      table(["Karte", "Kosten"], [["ohne Säbel-Symbol", "3 Säbel"], ["mit Säbel-Symbol", "4 Säbel"], ["Schiff", "3 Säbel"]], "rules-fight"),
      p("Die Karte kommt in ihre Reihe und die Reihe zahlt aus, wie beim Kauf. Karten vom Piratentisch kann man nicht kaufen. Kannst du keine Karte erkämpfen, entfällt der Schritt; sonst wähle eine Karte oder passe. Jede Karte auf dem Piratentisch zeigt ihre Kosten."),
    ]],
    place: ["Legen und Aufdecken", () => [
      p("Du musst eine Karte der Auslage auf den Piratentisch legen (dort liegen bis zu 6 Karten; bei 6 entfällt der Schritt). Dann wird die Auslage vom Stapel aufgefüllt. Unter dem Stapel steht, wie viele Inselkarten noch vor den Schiffen liegen."),
    ]],
    ships: ["Schiffe und einzelne Schiffe", () => [
      p("Ein Schiff ist ein Joker und kostet 5 Dukaten. Kaufst oder erkämpfst du eines, legst du es in eine beliebige deiner Farbreihen: Diese Reihe zahlt wie üblich aus (das Schiff selbst bringt nichts, die Reihe zahlt also, was ihre Karten bringen). Der Schiffsdialog zeigt jede Reihe mit ihrer jetzigen Auszahlung."),
      p("Oder du legst es einzeln ab: Nichts zahlt aus. Einzelne Schiffe warten auf die nächste Farbreihe, die du beginnst, und kommen in sie (bis zur Grenze von 7 Karten). Ein einzelnes Schiff ist keine Farbreihe."),
    ]],
    end: ["Das Spielende", () => [
      p("Das Ende beginnt, sobald das erste Schiff in die Auslage aufgedeckt wird. Wie es weitergeht, bestimmt die Spielende-Regel des Tisches:"),
      ul([h("span", {}, h("b", {}, "Runde zu Ende spielen"), " (Standard, yucata.de): Die Runde wird zu Ende gespielt, damit alle gleich viele Züge hatten; dann beginnt die Schlussrunde mit Platz #1."),
        h("span", {}, h("b", {}, "Jeder noch ein Zug"), " (1. Auflage): Nach dem Zug, in dem das Schiff erschien, macht jeder genau noch einen Zug, zuletzt wer es aufgedeckt hat; dann beginnt die Schlussrunde mit dem nächsten Platz.")]),
      p("Die Züge vor der Schlussrunde sind normale Züge; weitere Schiffe können erscheinen."),
    ]],
    "final-round": ["Die Schlussrunde", () => [
      p("Reihum darf jeder eine Karte vom Piratentisch oder aus der Auslage erkämpfen, für 3 Säbel, oder 4, wenn die Karte einen Säbel zeigt. Ihre Reihe zahlt wie üblich aus. Oder passen. Sonst passiert nichts: kein Kaufen, Verkaufen, Legen oder Aufdecken."),
    ]],
    scoring: ["Endabrechnung", () => [
      ol(["Jeder Säbel wird zu 3 Dukaten.", "Je volle 5 Dukaten werden zu 1 Juwel (der Rest verfällt).", "Schatztruhen werden Farbe für Farbe gewertet (unten).", "Mit der Variante Farbbonus: Juwelen für die Zahl der Farbreihen (unten)."]),
      p("Die meisten Juwelen gewinnen; bei Gleichstand gibt es mehrere Sieger. Die Wertungstabelle am Ende zeigt jede dieser Zahlen für jeden Spieler."),
    ]],
    chests: ["Schatztruhen", () => [
      p("In jeder Farbe werden die Spieler, die dort mindestens eine Truhe haben, nach der Zahl ihrer Truhen gereiht:"),
      table(["Platz in einer Farbe", "Juwelen"], [["1. (meiste Truhen)", "7"], ["2.", "4"], ["3.", "1"], ["4. und dahinter", "0"]], "rules-chests"),
      p("Gleichauf liegende Spieler erhalten alle den vollen Wert ihres Platzes, der oder die folgenden Plätze entfallen. Wer in einer Farbe keine Truhe hat, erhält dafür nichts. Beispiele aus der Regel:"),
      table(["Truhen in Rot", "Juwelen"], [["5 / 3 / 0", "7 / 4 / 0"]], "rules-chests-ex1"),
      table(["Truhen in Grün", "Juwelen"], [["3 / 3 / 1", "7 / 7 / 1"]], "rules-chests-ex2"),
    ]],
    "color-bonus": ["Farbbonus (Variante)", () => [
      p("Nur wenn der Tisch mit der Variante Farbbonus erstellt wurde: Juwelen für die Zahl deiner Farbreihen am Ende (einzelne Schiffe sind keine Reihe)."),
      table(["Farbreihen", "Juwelen"], [["0–2", "0"], ["3", "3"], ["4", "6"], ["5", "10"], ["6", "15"], ["7", "21"], ["8", "28"]], "rules-bonus"),
    ]],
    example: ["Ein Rechenbeispiel zur Endabrechnung", () => [
      p("Drei Spieler enden so: Anna hat 3 Säbel, 13 Dukaten, 6 Juwelen, 3 Truhen in Blau und 2 in Rot. Ben hat 3 Truhen in Blau und 4 in Rot; Cleo 1 Truhe in Blau."),
      ol(["Annas 3 Säbel werden zu 9 Dukaten: 13 + 9 = 22 Dukaten.",
        "22 Dukaten sind 4 volle Fünfer: 4 Juwelen (2 Dukaten verfallen).",
        "Blau: Anna 3, Ben 3, Cleo 1 Truhe. Anna und Ben teilen Platz 1: je 7 Juwelen; Platz 2 entfällt; Cleo ist Dritte: 1 Juwel.",
        "Rot: Ben mit 4 Truhen ist Erster (7 Juwelen), Anna mit 2 Truhen Zweite: 4 Juwelen.",
        "Annas Summe: 6 + 4 + 7 + 4 = 21 Juwelen."]),
    ]],
    cards: ["Die Karten", () => [p("Jede Inselkarte mit Preis, ihrem Beitrag zur Auszahlung ihrer Reihe und ihren Schatztruhen (S Säbel, D Dukaten, J Juwelen, T Truhen) und was sie auf dem Piratentisch kostet.")]],
  },
  cardHead: ["Karte", "Preis", "S", "D", "J", "T", "Kampfkosten"],
  back: "Zurück zum Tisch",
};

/** Every island card in color order, then by price: the card table (from the server's data). */
function cardTable(text, cards) {
  if (!cards) return null;
  const colors = cards.colors || [];
  const ids = Object.keys(cards.cards).filter((id) => cards.cards[id].color)
    .sort((a, b) => colors.indexOf(cards.cards[a].color) - colors.indexOf(cards.cards[b].color) || cards.cards[a].price - cards.cards[b].price);
  return table(text.cardHead, ids.map((id) => {
    const c = cards.cards[id];
    return [h("span", {}, h("span", { "aria-hidden": "true" }, `${COLOR_GLYPH[c.color] || ""} `), cardName(id)), c.price, c.sabres, c.ducats, c.jewels, c.chests, c.fight_cost];
  }), "rules-card-table");
}

const HOWTO = {
  en: ["Start. On your turn buy a card from the display, win one from the pirate table with sabres if you like, then place a display card onto the pirate table.",
    "When the ships appear the end is near. Most jewels after the final scoring wins."],
  de: ["Starte. In deinem Zug kaufst du eine Karte aus der Auslage, erkämpfst nach Wunsch eine vom Piratentisch mit Säbeln und legst dann eine Karte der Auslage auf den Piratentisch.",
    "Tauchen die Schiffe auf, naht das Ende. Wer nach der Endabrechnung die meisten Juwelen hat, gewinnt."],
};

/** Einauge's rules document (rulesdoc.js): `load` fetches the card data, `doc(lang, cards)`
 *  the page in that language (the card table once the data is in). */
export const einaugeRules = {
  load: () => api.cards("einauge"),
  doc(lang, cards) {
    const text = lang === "de" ? DE : EN;
    const sections = { ...text.sections, cards: [text.sections.cards[0], () => [...text.sections.cards[1](), cardTable(text, cards)]] };
    return { title: text.title, intro: text.intro, toc: text.toc, sections, howto: HOWTO[lang] || HOWTO.en };
  },
};
