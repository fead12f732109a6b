// Einauge's refusals in the page's language: the codes only its rules raise (engine/einauge/
// rules.py), read by errors.js before the shared ones when the table plays Einauge.

/** `{en, de}`: per refusal code its text (errors.js's shape). */
export const einaugeErrors = {
  en: {
    cannot_afford: () => "You do not have enough ducats for that card.",
    not_enough_sabres: () => "You do not have enough sabres to win that card.",
    card_not_available: () => "That card is no longer there.",
    card_not_owned: () => "That card is not in your rows.",
    cannot_sell_ship: () => "Ship cards cannot be sold.",
    no_jewels: () => "You have no jewel to sell.",
    row_full: () => "That row already holds 7 cards.",
    no_such_row: () => "You hold no such row.",
    row_required: () => "A ship needs a row (or “alone”).",
    wrong_row: () => "An island card can only join its own color row.",
  },
  de: {
    cannot_afford: () => "Du hast nicht genug Dukaten für diese Karte.",
    not_enough_sabres: () => "Du hast nicht genug Säbel, um diese Karte zu erkämpfen.",
    card_not_available: () => "Diese Karte liegt nicht mehr da.",
    card_not_owned: () => "Diese Karte liegt nicht in deinen Reihen.",
    cannot_sell_ship: () => "Schiffskarten können nicht verkauft werden.",
    no_jewels: () => "Du hast kein Juwel zum Verkaufen.",
    row_full: () => "Diese Reihe hat schon 7 Karten.",
    no_such_row: () => "Eine solche Reihe hast du nicht.",
    row_required: () => "Ein Schiff braucht eine Reihe (oder „einzeln“).",
    wrong_row: () => "Eine Inselkarte kommt nur in die Reihe ihrer Farbe.",
  },
};
