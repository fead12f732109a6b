// Loot Island's rules page (/rules/loot-island; English and German): a players' summary of
// RULES-loot-island.md with the decisions of docs/rules-loot-island.md. Every designed
// number (minimum, actions, islets, events, healers, scoring values) is the engine's, from
// its data file through the catalogue (GET /api/games/loot-island/cards), never written
// here: "…" until it is in.
import { api } from "../../api.js";
import { h } from "../../dom.js";
import { LANGS } from "../../i18n.js";
import { ol, p, table, term, ul } from "../../rulesdoc.js";
import "./texts.js";

const WAIT = "…";

/** The numbers the text needs, each "…" while the catalogue is not in. */
function numbersOf(cat) {
  const n = (cat && cat.numbers) || {};
  const isl = (cat && cat.islet_numbers) || {};
  const v = (x) => (x === undefined || x === null ? WAIT : x);
  return {
    min: (k) => v(n.minimum && n.minimum[String(k)]), hand: v(n.hand_size), cubes: v(n.start_cubes), discs: v(n.discs),
    discardShed: v(n.discard_shed), elim: v(n.elimination_cubes), crowns: n.crowns || [], skulls: n.skulls || [],
    pair: v(n.jewels_pair), triple: v(n.jewels_triple), amulets: v(n.amulet_set), marker: v(n.start_marker),
    isletCost: v(isl.cost), spring: v(isl.spring_shed), lookout: v(isl.lookout_draw),
  };
}

/** The map cards' actions by value, copies a and b (the same in every colour). */
function actionRows(cat, L, head) {
  if (!cat) return [[head[0], WAIT], [head[1], WAIT]];
  const colour = cat.colours[0];
  const act = (v, c) => { const m = cat.map[`map-${colour}-${v}${c}`]; return m ? L.li_actions_short[m.action] || "–" : WAIT; };
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  return [[head[0], ...values.map((x) => act(x, "a")), "–"], [head[1], ...values.map((x) => act(x, "b")), "–"]];
}

function eventRows(cat, L) {
  if (!cat) return [[WAIT, WAIT]];
  return Object.entries(cat.events).map(([id, mods]) => {
    const parts = Object.entries(mods).map(([k, v]) => (L.li_mod[k] ? L.li_mod[k]({ v }) : `${k} ${v}`));
    const name = L.li_event_names && L.li_event_names[id];
    return [name ? h("span", {}, name, h("span", { class: "hint" }, ` (${id})`)) : id, parts.length ? parts.join("; ") : L.li_mod_nothing];
  });
}

function isletRows(cat, L) {
  if (!cat) return [[WAIT, WAIT]];
  return cat.islets.map((id) => [h("span", {}, L.li_islet_names[id] || id, h("span", { class: "hint" }, ` (${id})`)),
    L.li_islet_effects[id] ? L.li_islet_effects[id](cat.islet_numbers) : ""]);
}

function healerRows(cat, L) {
  if (!cat) return [[WAIT, WAIT]];
  return Object.values(cat.healers).map((x) => [x.id, L.li_healer_cost({ m: x.multiplier, f: x.fixed })]);
}

const crownText = (c, sep) => (c.length ? c.map((x, i) => `${i + 1} → ${x}`).join(sep) : WAIT);
const skullText = (s) => (s.length ? s.map((x, k) => `${k} → ${x}`).join(", ") : WAIT);

function en(cat) {
  const N = numbersOf(cat);
  const L = LANGS.en;
  const colours = cat ? cat.colours.map((c) => L.li_colours[c] || c).join(", ") : WAIT;
  return {
    title: "How to play Loot Island",
    intro: "Loot Island (Aaron Haag, What’s Your Game? / Pegasus 2017) is a card game for 2–5 treasure hunters. Over 5 rounds you lay map cards at the landings of an island; where the ship explores, the landings with enough cards yield loot. Loot brings gold and points, but also curse cubes, and at the end a healer takes payment for every cube. The highest total wins.",
    toc: "Contents",
    sections: {
      components: ["The island and the cards", () => [
        p("The island has 4 coasts — North, East, South, West, clockwise — with 2 landings each (North 1, North 2, East 1, …). A landing holds a row of map cards and a stack of compass discs. The ship lies at one corner, its bow pointing at the coast that is explored this round; it moves clockwise."),
        p(`The 88 map cards come in 4 colours (${colours}): each value 1 to 10 twice, and 2 jokers per colour. A joker takes a value 1 to 10 that you name when you play it. Many map cards carry an action (the same in every colour):`),
        table(["Value", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "joker"], actionRows(cat, L, ["copy a", "copy b"]), "rules-map-actions"),
        ul([term(L.li_actions_short.chest, ": a chest, worth loot in phase 3."), term(L.li_actions_short.plus1, ": the card counts as two cards."),
          term(L.li_actions_short.shed, " / ", L.li_actions_short.draw, ": when the card is laid, every player with a disc at that landing sheds 1 cube / draws 1 map card."),
          term(L.li_actions_short.one, ": the value-1 card (below).")]),
        p("The 74 loot cards lie in decks I to IV (I on top), each shuffled: gold bags, jewels, crowns (with crosses), skulls (3 kinds), books (with a multiplier) and amulets. Each shows its gold and its curse value."),
        p(`Everyone has ${N.discs} compass discs and starts with ${N.cubes} curse cubes. There are 7 islets, 18 events and 14 healers (tables below).`),
      ]],
      setup: ["Setup", () => [
        table(["Players", "2", "3", "4", "5"], [["Minimum (cards at a landing)", N.min(2), N.min(3), N.min(4), N.min(5)],
          ["Hand size", N.hand, N.hand, N.hand, N.hand], ["Healers set aside", "2", "3", "4", "5"]], "rules-setup"),
        p("The ship starts at North. Everyone is dealt the hand size in map cards; the rest is the map deck. As many healers as players are set aside face down until the end. One event A lies face up on four face-down events B: the events of rounds 1 to 5. The islets lie face up. Seat #1 takes the start marker. A table may replace the minimum (option) or play without events."),
      ]],
      round: ["A round", () => [
        p("The game has 5 rounds, each with up to three phases:"),
        ol([term("Preparation", " (rounds 2–5, automatic except the discard): the ship moves one space clockwise; all islets are turned face up; the round’s event is revealed. Then, from the start-marker holder clockwise, each player discards any cards from hand (possibly none) and draws up to the hand size. There is no hand limit."),
          term("Actions", ": from the start-marker holder clockwise, each player takes one action per turn — use an islet, play map cards, or pass — until everyone has passed. A player who passed acts no more this phase. The first to pass takes the start marker at once. If passing is your only option, you pass automatically."),
          term("Finding loot", ": the two landings of the coast the ship points at are explored (below).")]),
      ]],
      play: ["Playing map cards", () => [
        p("You may play at any landing, not only at the explored coast: one or more cards from your hand, in the order laid, all at one landing. It is legal when:"),
        ol(["All cards have one colour. If the landing holds cards, it is their colour; if it is empty, the colour must differ from that of the other landing of the same coast (if that one holds cards).",
          "You have a disc at the landing, or a free disc, which you then put on top of its stack. One disc per player per landing, so at most 3 landings each.",
          "In the order laid the values never decrease, and the first is at least the value of the landing’s top card. Gaps are allowed; the highest value is 10. A joker keeps its named value.",
          "Printed 1s only as described below."]),
        p("Then the laid cards act in the order laid: every shed or draw card makes each disc holder there, from the bottom of the stack up (passed or not, you included), shed 1 cube or draw 1 map card. Chests and plus-ones count in phase 3."),
      ]],
      "value-1": ["The value-1 card", () => [
        p("A printed 1 (never a joker) can be played in exactly two ways:"),
        ul([term("First card at an empty landing", ", alone or followed by more cards: every other player, passed or not, takes 1 cube."),
          term("Alone under a row", " of its colour, whatever the top value: it becomes the row’s bottom card (no cubes). You may then copy one shed or draw action printed on another card of that row and perform it yourself alone.")]),
      ]],
      islets: ["Islets", () => [
        p(`To use an islet, discard ${N.isletCost} map cards of one colour (jokers and 1s count as their colour). The islet is turned face down until the next preparation, so each is used at most once per round. You may also use it only to block it, without its effect.`),
        table(["Islet", "Effect"], isletRows(cat, L), "rules-islets"),
        p("A free disc is one not on the board."),
      ]],
      loot: ["Finding loot", () => [
        p("For each landing of the explored coast: its count is its cards plus its plus-ones; its chests are its chest cards. A landing qualifies when it has a disc and its count is at least the minimum (changed by the event in force, at least 1)."),
        ul(["If both qualify, the higher count gets the big loot and the other the small loot; on equal counts more chests is big, then more discs, then landing 1. If one qualifies, it gets the big loot.",
          "Big loot: as many loot cards as discs plus chests there (the event may add or remove one, at least 1). Small loot: as many as its chests.",
          `The loot cards are drawn face up. The disc holders there pick one each, from the bottom of the stack up, and again until none is left. Each either keeps the card, taking its curse value in cubes, or discards it out of the game and sheds ${N.discardShed} cubes plus 1 per amulet they own. The big loot is picked completely before the small loot.`,
          "Cleanup: the discs of both landings go back to their owners and their cards go to the map discard pile, scored or not. All other landings keep their cards and discs."]),
        p("Shedding never goes below 0 cubes. When the map deck is empty, the map discard pile is reshuffled into a new deck. The loot deck is never refilled: when it runs out, offers are short."),
      ]],
      events: ["Events", () => [
        p("Round 1’s event is in force from the start, each later one from its reveal, until the end of its round’s finding loot (never in the final exploration). “Start of phase 2” effects apply to each player from the start-marker holder clockwise."),
        table(["Event", "While in force"], eventRows(cat, L), "rules-events"),
      ]],
      end: ["The end of the game", () => [
        ol([term("Final exploration", ": after round 5, every landing with a disc and a count of at least the minimum (without event) gets the small loot (its chests), clockwise from landing 1 of the coast after the ship’s."),
          term("Elimination", `: a player with ${N.elim} or more cubes is eliminated and is not scored.`),
          term("Healers", ": the set-aside healers are turned face up. Every player not eliminated with at least 1 cube chooses one, fewest cubes first (ties clockwise from the start-marker holder); the last chooser with one healer left gets it. Players with 0 cubes take none."),
          term("Scoring", " of every player not eliminated (below), then the healer’s cost is subtracted.")]),
      ]],
      scoring: ["Scoring", () => [
        table(["Part", "Points"], [
          ["Gold", "the printed gold of all kept loot (books have none)"],
          ["Jewels", `per 3 jewels ${N.triple}, plus ${N.pair} for 2 left over`],
          ["Crowns", `the players with at least 1 cross are ranked by crosses (ties share a rank, the next rank drops out): ${crownText(N.crowns, ", ")}`],
          ["Skulls", `s × how many of gold bag, jewel, crown, amulet, book you hold at least one of, where s counts the different skull kinds held (kinds → s: ${skullText(N.skulls)}); extra copies of a kind add only gold`],
          ["Books", "each book may pair with one kept non-book loot card with curse ≥ 1 (each partner once): partner’s curse × the book’s multiplier, pairs chosen best for you"],
          ["Amulets", `${N.amulets} per complete set of amulets with gold 1, 2 and 3`],
          ["Start marker", `${N.marker} for its holder`]], "rules-scoring"),
        p("Total = the sum of the parts − the healer’s cost (multiplier × cubes + fixed). A player whose cost is more than their sum cannot pay and is eliminated. The highest total wins; ties: fewer cubes wins, still tied they share the win. If all are eliminated, nobody wins."),
        h("h3", {}, "Healers"),
        table(["Healer", "Cost"], healerRows(cat, L), "rules-healers"),
      ]],
      public: ["What everyone sees", () => [
        p("Your hand is yours alone (its size is public), as are the orders of the map and loot decks, the face-down events and which healers were set aside, until they are turned up. Everything laid on the island, the ship, the islets, each player’s cubes, kept loot and free discs, the offers and both discard piles are public. At the end every hand is shown."),
      ]],
    },
    howto: ["Start. On your turn play map cards of one colour at a landing, use an islet, or pass; where the ship explores, landings with enough cards share out loot.",
      "Loot brings gold, but also curse cubes; after 5 rounds a healer charges for your cubes. The highest total wins."],
  };
}

function de(cat) {
  const N = numbersOf(cat);
  const L = LANGS.de;
  const colours = cat ? cat.colours.map((c) => L.li_colours[c] || c).join(", ") : WAIT;
  return {
    title: "So spielt man Loot Island",
    intro: "Loot Island (Aaron Haag, What’s Your Game? / Pegasus 2017) ist ein Kartenspiel für 2–5 Schatzsucher. In 5 Runden legt ihr Schatzkarten an die Anlegestellen einer Insel; wo das Schiff erkundet, bringen Anlegestellen mit genug Karten Beute. Beute bringt Gold und Punkte, aber auch Fluchwürfel, und am Ende verlangt ein Heiler für jeden Würfel seinen Preis. Die höchste Summe gewinnt.",
    toc: "Inhalt",
    sections: {
      components: ["Die Insel und die Karten", () => [
        p("Die Insel hat 4 Küsten — Nord, Ost, Süd, West, im Uhrzeigersinn — mit je 2 Anlegestellen (Nord 1, Nord 2, Ost 1, …). An einer Anlegestelle liegt eine Reihe Schatzkarten und ein Stapel Kompass-Scheiben. Das Schiff liegt an einer Ecke, sein Bug zeigt auf die Küste, die in dieser Runde erkundet wird; es fährt im Uhrzeigersinn."),
        p(`Die 88 Schatzkarten gibt es in 4 Farben (${colours}): jeden Wert von 1 bis 10 zweimal und 2 Joker je Farbe. Ein Joker nimmt einen Wert von 1 bis 10 an, den du beim Ausspielen nennst. Viele Schatzkarten tragen eine Aktion (in jeder Farbe dieselbe):`),
        table(["Wert", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Joker"], actionRows(cat, L, ["Exemplar a", "Exemplar b"]), "rules-map-actions"),
        ul([term(L.li_actions_short.chest, ": eine Schatzkiste, bringt Beute in Phase 3."), term(L.li_actions_short.plus1, ": die Karte zählt als zwei Karten."),
          term(L.li_actions_short.shed, " / ", L.li_actions_short.draw, ": wird die Karte gelegt, wirft jeder mit Scheibe an dieser Anlegestelle 1 Fluchwürfel ab / zieht 1 Schatzkarte."),
          term(L.li_actions_short.one, ": die Eins (unten).")]),
        p("Die 74 Beutekarten liegen in den Stapeln I bis IV (I oben), jeder gemischt: Goldsäcke, Juwelen, Kronen (mit Kreuzen), Totenschädel (3 Arten), Bücher (mit Faktor) und Amulette. Jede zeigt ihr Gold und ihren Fluchwert."),
        p(`Jeder hat ${N.discs} Kompass-Scheiben und beginnt mit ${N.cubes} Fluchwürfeln. Dazu gibt es 7 Eilande, 18 Ereigniskarten und 14 Heiler (Tabellen unten).`),
      ]],
      setup: ["Vorbereitung des Spiels", () => [
        table(["Spieler", "2", "3", "4", "5"], [["Mindestzahl (Karten an einer Anlegestelle)", N.min(2), N.min(3), N.min(4), N.min(5)],
          ["Handkarten", N.hand, N.hand, N.hand, N.hand], ["Heiler beiseitegelegt", "2", "3", "4", "5"]], "rules-setup"),
        p("Das Schiff beginnt bei Nord. Jeder erhält so viele Schatzkarten wie die Handkartenzahl; der Rest ist der Nachziehstapel. So viele Heiler wie Spieler werden bis zum Ende verdeckt beiseitegelegt. Eine Ereigniskarte A liegt offen auf vier verdeckten Ereigniskarten B: die Ereignisse der Runden 1 bis 5. Die Eilande liegen offen. Platz #1 erhält das Startspielerplättchen. Ein Tisch kann die Mindestzahl ersetzen (Option) oder ohne Ereignisse spielen."),
      ]],
      round: ["Eine Runde", () => [
        p("Das Spiel hat 5 Runden mit je bis zu drei Phasen:"),
        ol([term("Vorbereitung", " (Runden 2–5, bis auf das Abwerfen automatisch): Das Schiff fährt ein Feld im Uhrzeigersinn; alle Eilande werden aufgedeckt; das Ereignis der Runde wird aufgedeckt. Dann wirft jeder, vom Startspieler im Uhrzeigersinn, beliebig viele Handkarten ab (auch keine) und zieht auf die Handkartenzahl nach. Ein Handkartenlimit gibt es nicht."),
          term("Schatzkarten spielen", ": Vom Startspieler im Uhrzeigersinn tut jeder in seinem Zug eine Aktion — ein Eiland nutzen, Schatzkarten ausspielen oder passen —, bis alle gepasst haben. Wer gepasst hat, ist in dieser Phase nicht mehr dran. Wer zuerst passt, nimmt sofort das Startspielerplättchen. Ist Passen dein einziger Zug, passt du automatisch."),
          term("Beute bergen", ": Die beiden Anlegestellen der Küste, auf die das Schiff zeigt, werden erkundet (unten).")]),
      ]],
      play: ["Schatzkarten ausspielen", () => [
        p("Du darfst an jeder Anlegestelle spielen, nicht nur an der erkundeten Küste: eine oder mehr Handkarten in der gelegten Reihenfolge, alle an eine Anlegestelle. Erlaubt ist das, wenn:"),
        ol(["Alle Karten eine Farbe haben. Liegen an der Anlegestelle Karten, ist es deren Farbe; ist sie leer, muss die Farbe sich von der der anderen Anlegestelle derselben Küste unterscheiden (wenn dort Karten liegen).",
          "Du an der Anlegestelle eine Scheibe hast oder eine freie Scheibe, die du dann oben auf ihren Stapel legst. Eine Scheibe je Spieler und Anlegestelle, also höchstens 3 Anlegestellen je Spieler.",
          "In der gelegten Reihenfolge die Werte nie sinken und der erste mindestens der Wert der obersten Karte der Anlegestelle ist. Lücken sind erlaubt; der höchste Wert ist 10. Ein Joker behält seinen genannten Wert.",
          "Gedruckte Einsen nur wie unten beschrieben."]),
        p("Dann wirken die gelegten Karten in der gelegten Reihenfolge: Jede Abwerfen- oder Ziehen-Karte lässt jeden mit Scheibe dort, von unten im Stapel nach oben (gepasst oder nicht, du eingeschlossen), 1 Fluchwürfel abwerfen oder 1 Schatzkarte ziehen. Schatzkisten und Plus-eins zählen in Phase 3."),
      ]],
      "value-1": ["Die Eins", () => [
        p("Eine gedruckte 1 (nie ein Joker) darf auf genau zwei Arten gespielt werden:"),
        ul([term("Als erste Karte an einer leeren Anlegestelle", ", allein oder mit weiteren Karten: Jeder andere Spieler, gepasst oder nicht, nimmt 1 Fluchwürfel."),
          term("Allein unter eine Reihe", " ihrer Farbe, gleich welcher oberste Wert: Sie wird die unterste Karte der Reihe (keine Würfel). Du darfst dann eine Abwerfen- oder Ziehen-Aktion einer anderen Karte dieser Reihe kopieren und allein ausführen.")]),
      ]],
      islets: ["Eilande", () => [
        p(`Um ein Eiland zu nutzen, wirfst du ${N.isletCost} Schatzkarten einer Farbe ab (Joker und Einsen zählen als ihre Farbe). Das Eiland wird bis zur nächsten Vorbereitung umgedreht, jedes also höchstens einmal je Runde genutzt. Du darfst es auch nur zum Blockieren nutzen, ohne seine Wirkung.`),
        table(["Eiland", "Wirkung"], isletRows(cat, L), "rules-islets"),
        p("Eine freie Scheibe ist eine, die nicht auf dem Spielplan liegt."),
      ]],
      loot: ["Beute bergen", () => [
        p("Für jede Anlegestelle der erkundeten Küste: Ihre Zahl sind ihre Karten plus ihre Plus-eins; ihre Schatzkisten sind ihre Kisten-Karten. Eine Anlegestelle zählt, wenn dort eine Scheibe liegt und ihre Zahl mindestens die Mindestzahl ist (durch das Ereignis in Kraft verändert, mindestens 1)."),
        ul(["Zählen beide, bekommt die höhere Zahl die große Beute und die andere die kleine; bei gleicher Zahl ist mehr Kisten groß, dann mehr Scheiben, dann Anlegestelle 1. Zählt nur eine, bekommt sie die große Beute.",
          "Große Beute: so viele Beutekarten wie Scheiben plus Kisten dort (das Ereignis kann eine mehr oder weniger geben, mindestens 1). Kleine Beute: so viele wie ihre Kisten.",
          `Die Beutekarten werden offen gezogen. Die Scheibenbesitzer dort wählen je eine, von unten im Stapel nach oben, und wieder, bis keine übrig ist. Jeder behält die Karte und nimmt ihren Fluchwert in Würfeln, oder wirft sie aus dem Spiel und wirft ${N.discardShed} Fluchwürfel ab, plus 1 je eigenem Amulett. Die große Beute wird ganz vor der kleinen verteilt.`,
          "Aufräumen: Die Scheiben beider Anlegestellen gehen an ihre Besitzer zurück, ihre Karten auf den Ablagestapel, gewertet oder nicht. Alle anderen Anlegestellen behalten Karten und Scheiben."]),
        p("Abwerfen geht nie unter 0 Würfel. Ist der Nachziehstapel leer, wird der Ablagestapel zu einem neuen gemischt. Der Beutestapel wird nie aufgefüllt: Ist er leer, fällt die Beute kleiner aus."),
      ]],
      events: ["Ereignisse", () => [
        p("Das Ereignis der Runde 1 gilt vom Spielbeginn an, jedes spätere ab seinem Aufdecken, bis zum Ende des Beutebergens seiner Runde (nie in der letzten Erkundung). Wirkungen zu „Beginn von Phase 2“ gelten für jeden Spieler vom Startspieler im Uhrzeigersinn."),
        table(["Ereignis", "Solange in Kraft"], eventRows(cat, L), "rules-events"),
      ]],
      end: ["Das Spielende", () => [
        ol([term("Letzte Erkundung", ": Nach Runde 5 bekommt jede Anlegestelle mit Scheibe und einer Zahl von mindestens der Mindestzahl (ohne Ereignis) die kleine Beute (ihre Kisten), im Uhrzeigersinn ab Anlegestelle 1 der Küste nach der des Schiffs."),
          term("Ausscheiden", `: Wer ${N.elim} oder mehr Fluchwürfel hat, scheidet aus und wird nicht gewertet.`),
          term("Heiler", ": Die beiseitegelegten Heiler werden aufgedeckt. Jeder nicht Ausgeschiedene mit mindestens 1 Würfel wählt einen, die wenigsten Würfel zuerst (Gleichstand im Uhrzeigersinn ab dem Startspieler); bleibt dem Letzten nur einer, bekommt er ihn. Wer 0 Würfel hat, nimmt keinen."),
          term("Wertung", " jedes nicht Ausgeschiedenen (unten), dann werden die Kosten des Heilers abgezogen.")]),
      ]],
      scoring: ["Wertung", () => [
        table(["Teil", "Punkte"], [
          ["Gold", "das gedruckte Gold aller behaltenen Beute (Bücher haben keins)"],
          ["Juwelen", `je 3 Juwelen ${N.triple}, plus ${N.pair} für 2 übrige`],
          ["Kronen", `die Spieler mit mindestens 1 Kreuz werden nach Kreuzen gereiht (Gleichstand teilt einen Platz, der nächste Platz entfällt): ${crownText(N.crowns, ", ")}`],
          ["Totenschädel", `s × wie viele von Goldsack, Juwel, Krone, Amulett, Buch du mindestens einmal hast, wobei s nach den verschiedenen Schädelarten zählt (Arten → s: ${skullText(N.skulls)}); weitere Exemplare einer Art bringen nur Gold`],
          ["Bücher", "jedes Buch darf mit einer behaltenen Nicht-Buch-Beutekarte mit Fluch ≥ 1 ein Paar bilden (jeder Partner einmal): Fluch des Partners × Faktor des Buchs, die Paare so gut wie möglich für dich"],
          ["Amulette", `${N.amulets} je vollständigem Satz Amulette mit Gold 1, 2 und 3`],
          ["Startspielerplättchen", `${N.marker} für seinen Besitzer`]], "rules-scoring"),
        p("Summe = die Teile zusammen − die Kosten des Heilers (Faktor × Würfel + fester Betrag). Wer mehr kosten würde, als er hat, kann nicht zahlen und scheidet aus. Die höchste Summe gewinnt; bei Gleichstand gewinnen weniger Würfel, sonst gewinnen sie gemeinsam. Scheiden alle aus, gewinnt niemand."),
        h("h3", {}, "Heiler"),
        table(["Heiler", "Kosten"], healerRows(cat, L), "rules-healers"),
      ]],
      public: ["Was alle sehen", () => [
        p("Deine Handkarten sieht nur du (ihre Zahl ist offen), ebenso geheim sind die Reihenfolge von Nachzieh- und Beutestapel, die verdeckten Ereignisse und welche Heiler beiseitegelegt wurden, bis sie aufgedeckt werden. Alles auf der Insel, das Schiff, die Eilande, die Würfel, die behaltene Beute und die freien Scheiben jedes Spielers, die Beuteauslagen und beide Ablagestapel sind offen. Am Ende werden alle Hände gezeigt."),
      ]],
    },
    howto: ["Starte. In deinem Zug spielst du Schatzkarten einer Farbe an eine Anlegestelle, nutzt ein Eiland oder passt; wo das Schiff erkundet, teilen Anlegestellen mit genug Karten Beute aus.",
      "Beute bringt Gold, aber auch Fluchwürfel; nach 5 Runden verlangt ein Heiler für deine Würfel seinen Preis. Die höchste Summe gewinnt."],
  };
}

/** Loot Island's rules document (rulesdoc.js): `load` fetches the catalogue (the data
 *  file's numbers), `doc(lang, cat)` the page, "…" in place of numbers until it is in. */
export const lootIslandRules = {
  load: () => api.cards("loot-island"),
  doc: (lang, cat) => (lang === "de" ? de(cat) : en(cat)),
};
