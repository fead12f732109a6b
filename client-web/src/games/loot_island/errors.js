// Loot Island's refusals in the page's language: the codes only its rules raise (engine/
// loot_island/checks.py), read by errors.js before the shared ones when the table plays Loot
// Island. The words are RULES-loot-island's standard terms ("Standard terms"), as
// texts.js uses them. Not here: `bad_reshuffle` and `reshuffle_unknown`, raised
// only while a record without a seed is replayed (a live table always has its seed), which
// the replay viewer shows as a bad record.

/** `{en, de}`: per refusal code its text (errors.js's shape). */
export const lootIslandErrors = {
  en: {
    not_in_hand: () => "That card is not in your hand.",
    unknown_landing: () => "There is no such landing.",
    mixed_colours: () => "These map cards must all be of one color.",
    wrong_colour: () => "That landing holds map cards of another color.",
    colour_taken: () => "The other landing of this coast already holds that color.",
    no_free_disc: () => "You have no free disc.",
    jokers_blocked: () => "The event in force allows no joker at a landing.",
    joker_value_missing: () => "Name a value for every joker you play.",
    values_decrease: () => "Values never decrease in the order the cards are laid.",
    value_too_low: () => "Your first card must be at least the last value of the row.",
    one_misplaced: () => "A printed 1 goes only first at an empty landing, or alone under a row of its color.",
    copy_not_allowed: () => "Only a lone 1 pushed under a row may copy an action.",
    copy_unavailable: () => "No card of that row carries this action.",
    unknown_islet: () => "There is no such islet.",
    islet_used: () => "That islet has already been used this round.",
    islets_blocked: () => "The event in force allows no islet now.",
    bad_parameter: () => "That islet needs other details (a landing, or from and to).",
    no_disc_there: () => "You have no disc at that landing.",
    disc_already_there: () => "You already have a disc at that landing.",
    not_on_offer: () => "That loot card is not on offer.",
    unknown_healer: () => "That healer is not among the healers set aside.",
    healer_taken: () => "That healer has already been taken.",
  },
  de: {
    not_in_hand: () => "Diese Karte hast du nicht auf der Hand.",
    unknown_landing: () => "Diese Anlegestelle gibt es nicht.",
    mixed_colours: () => "Diese Schatzkarten müssen alle dieselbe Farbe haben.",
    wrong_colour: () => "An dieser Anlegestelle liegen Schatzkarten einer anderen Farbe.",
    colour_taken: () => "Die andere Anlegestelle dieser Küste hat schon diese Farbe.",
    no_free_disc: () => "Du hast keine freie Scheibe.",
    jokers_blocked: () => "Das aktuelle Ereignis erlaubt keinen Joker an einer Anlegestelle.",
    joker_value_missing: () => "Nenne für jeden Joker, den du spielst, einen Wert.",
    values_decrease: () => "Die Werte fallen nie in der Reihenfolge, in der die Karten gelegt werden.",
    value_too_low: () => "Deine erste Karte muss mindestens den letzten Wert der Reihe haben.",
    one_misplaced: () => "Eine gedruckte 1 kommt nur als erste Karte an eine leere Anlegestelle oder allein unter eine Reihe ihrer Farbe.",
    copy_not_allowed: () => "Nur eine einzelne 1 unter einer Reihe darf eine Aktion kopieren.",
    copy_unavailable: () => "Keine Karte dieser Reihe hat diese Aktion.",
    unknown_islet: () => "Dieses Eiland gibt es nicht.",
    islet_used: () => "Dieses Eiland wurde in dieser Runde schon genutzt.",
    islets_blocked: () => "Das aktuelle Ereignis erlaubt jetzt kein Eiland.",
    bad_parameter: () => "Dieses Eiland braucht andere Angaben (eine Anlegestelle oder von und nach).",
    no_disc_there: () => "An dieser Anlegestelle hast du keine Scheibe.",
    disc_already_there: () => "An dieser Anlegestelle hast du schon eine Scheibe.",
    not_on_offer: () => "Diese Beutekarte wird nicht angeboten.",
    unknown_healer: () => "Dieser Heiler liegt nicht bereit.",
    healer_taken: () => "Dieser Heiler ist schon vergeben.",
  },
};
