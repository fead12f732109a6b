// Keltis's refusals in the page's language: the codes only its rules raise (engine/keltis/
// rules.py), read by errors.js before the shared ones when the table plays Keltis. The
// words are RULES-keltis's standard terms ("Standard terms"), as texts.js's k… texts use them.

/** `{en, de}`: per refusal code its text (errors.js's shape). */
export const keltisErrors = {
  en: {
    card_not_in_hand: () => "That card is not in your hand.",
    unknown_row: () => "You have no such row.",
    not_a_point_card: () => "Only point cards go on the point row.",
    no_row: () => "You have no row of that color yet: a row starts with a number card.",
    row_closed: () => "That row is closed: only its second end card may still be laid on it.",
    value_mismatch: () => "A point card goes on a color row only onto a card of its own value.",
    wrong_color: () => "That card goes only on the row of its own color.",
    out_of_order: () => "That row runs the other way: a rising row takes equal or higher values, a falling row equal or lower ones.",
    same_card: () => "A wish stone needs two different cards.",
    no_value: () => "End cards have no value: they cannot take a wish stone.",
    values_differ: () => "A wish stone needs two cards of the same value.",
    no_stone: () => "There is no wish stone of that value: the stones are 1 to 9.",
    stone_gone: () => "That wish stone has already been taken.",
    deck_empty: () => "The deck is used up: draw from a discard pile.",
    unknown_source: () => "There is no such pile to draw from.",
    pile_empty: () => "That discard pile is empty.",
    pile_blocked: () => "You discarded onto that pile this turn: you may not draw from it now.",
  },
  de: {
    card_not_in_hand: () => "Diese Karte hast du nicht auf der Hand.",
    unknown_row: () => "Eine solche Reihe hast du nicht.",
    not_a_point_card: () => "An die Punktekartenreihe kommen nur Punktekarten.",
    no_row: () => "Eine Reihe dieser Farbe hast du noch nicht: eine Reihe beginnt mit einer Zahlenkarte.",
    row_closed: () => "Diese Reihe ist geschlossen: nur ihre zweite Schlusskarte kann noch angelegt werden.",
    value_mismatch: () => "Eine Punktekarte kommt an eine Farbreihe nur auf eine Karte gleichen Werts.",
    wrong_color: () => "Diese Karte kommt nur an die Reihe ihrer Farbe.",
    out_of_order: () => "Diese Reihe läuft in die andere Richtung: an eine aufsteigende Reihe nur gleiche oder höhere Werte, an eine absteigende nur gleiche oder niedrigere.",
    same_card: () => "Für einen Wunschstein brauchst du zwei verschiedene Karten.",
    no_value: () => "Schlusskarten haben keinen Wert: mit ihnen nimmst du keinen Wunschstein.",
    values_differ: () => "Für einen Wunschstein brauchst du zwei Karten gleichen Werts.",
    no_stone: () => "Einen Wunschstein dieses Werts gibt es nicht: die Steine haben die Werte 1 bis 9.",
    stone_gone: () => "Dieser Wunschstein ist schon genommen.",
    deck_empty: () => "Der Nachziehstapel ist aufgebraucht: zieh von einem Ablagestapel nach.",
    unknown_source: () => "Einen solchen Stapel zum Nachziehen gibt es nicht.",
    pile_empty: () => "Dieser Ablagestapel ist leer.",
    pile_blocked: () => "Hierhin hast du in diesem Zug abgeworfen: von diesem Stapel darfst du jetzt nicht ziehen.",
  },
};
