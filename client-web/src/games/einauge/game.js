// Einauge's module: its board, cards, card details, row choice, score table, log, texts,
// refusal texts, rules page and styles (this folder), behind the shape every game module
// has (games/index.js).
import "./style.css";
import "./texts.js";
import { groupActions } from "./actions.js";
import { renderBoard, turnText, winnersText } from "./board.js";
import { flipRender } from "../../flip.js";
import { hideCardDetail, installCardDetails, setCardContext } from "./carddetail.js";
import { loadCards } from "./cards.js";
import { t } from "../../i18n.js";
import { describeEvent, isMajor } from "./log.js";
import { eventSeat } from "../../seatlog.js";
import { einaugeErrors } from "./errors.js";
import { einaugeRules } from "./rules.js";
import { chooseRow } from "./rowchoice.js";
import { renderScore } from "./score.js";
import { glossaryText } from "./texts.js";
import { lesson } from "./lesson.js";

/** The banner's hint on this seat's turn: what the step asks for. */
function turnHint(v) {
  if (v.step === "buy") return t("hint_buy");
  if (v.step === "fight") return v.phase === "final_round" ? t("hint_fight_final") : t("hint_fight");
  if (v.step === "place") return t("hint_place");
  return "";
}

// Events that are someone's decision (the pacer shows them at the move pace, and the banner
// names the last one); the rest are automatic.
const MOVES = new Set(["card_bought", "fight_won", "fight_declined", "card_placed", "card_sold", "jewel_sold"]);

/** The section of the rules page (/rules) for the moment `v` shows. */
function rulesAnchor(v) {
  return v.phase === "final_round" ? "final-round" : v.phase === "ended" ? "scoring" : v.step || "turn";
}

// Each term of the board (glossary.js) and the section of the rules page that says more.
const TERM_SECTIONS = {
  sabres: "fight", ducats: "buy", jewels: "scoring", chests: "chests", display: "turn",
  pirate_table: "fight", deck: "end", islands_left: "end", end_warning: "final-round",
  lone_ships: "ships", step: "turn",
};

/** A term's explanation and its rules section, or null (glossary.js). */
function glossary(key) {
  const text = glossaryText(key);
  return text ? { text, section: TERM_SECTIONS[key] } : null;
}

export const einauge = {
  name: "einauge",
  loadCatalogue: loadCards,
  // A ship's several rows are one button: its choice is this game's dialog, in the host's
  // dialog slot (ctx.openDialog, the table page's).
  renderBoard: (v, ctx = {}) => renderBoard(v, { ...ctx, onChoose: (card, list) => chooseRow(card, list, ctx) }),
  flipRender, turnText, winnersText, renderScore, describeEvent, eventSeat, isMajor,
  groupActions, turnHint, setCardContext, rulesAnchor, rules: einaugeRules,
  install: installCardDetails, hideOverlays: hideCardDetail, errorTexts: einaugeErrors,
  isMove: (e) => MOVES.has(e.type), glossary, lesson,
};
