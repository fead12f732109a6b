// Tutorials (docs/games.md, "Tutorials"): /learn/<game> starts one (POST /api/tutorials) and
// opens its table; on that real table page the coach explains each step of the game's
// lesson (games/<game>/lesson.js), points at the card or button it talks about, asks for
// the lesson's move before it is sent, explains a refused one, and ends with what to
// remember. The first visit to a game's table offers its tutorial once per browser.
import "./i18n-tutorial.js";
import { call } from "./api.js";
import { h, mount } from "./dom.js";
import { errorText } from "./errors.js";
import { gameTitle } from "./gametitles.js";
import { currentLang, t } from "./i18n.js";
import { rulesHref } from "./rulesnav.js";
import { KEY, playerName, saveKey, saveSeat } from "./store.js";
import { matches } from "./lessonkit.js";

/** The bot kind of a tutorial table's scripted seats (server/table/tutorial.py). */
export const TUTORIAL_BOT = "tutorial";

/** True for the summary of a tutorial table (its bots play a lesson's script). */
export const isTutorial = (summary) => !!summary && (summary.seats || []).some((x) => x.kind === "bot" && x.bot === TUTORIAL_BOT);

/** The page that starts a tutorial of `game`. */
export const learnHref = (game) => `/learn/${encodeURIComponent(game)}`;

/** /learn/<game>: start a tutorial table (the browser's seat and invite secret kept as for
 *  any table) and open it in place of this page (the back button does not start another). */
export function learnPage(root, game) {
  let gone = false;
  mount(root, h("section", { class: "panel learn", testid: "learn-page" }, h("p", {}, t("tut_starting"))));
  const name = playerName();
  call("POST", "/api/tutorials", { body: { game, ...(name ? { name } : {}) } })
    .then((r) => {
      if (gone) return;
      saveSeat(r.table.id, { seat: r.seat, token: r.token, name: r.table.seats[r.seat].name });
      saveKey(r.table.id, r.invite_key);
      history.replaceState(null, "", `/table/${encodeURIComponent(r.table.id)}`);
      window.dispatchEvent(new PopStateEvent("popstate"));
    })
    .catch((e) => {
      if (gone) return;
      mount(root, h("section", { class: "panel learn", testid: "learn-page" },
        h("p", { role: "alert", testid: "learn-error" }, errorText(e.code, { message: e.message })),
        h("a", { class: "button", href: "/", "data-link": true }, t("back_to_lobby"))));
    });
  return () => { gone = true; };
}

// ---- the first visit's offer ----------------------------------------------------------
const offeredKey = (game) => `${KEY}tutorial_offered.${game}`;
function offeredBefore(game) {
  try { return localStorage.getItem(offeredKey(game)) !== null; } catch { return true; }
}
function markOffered(game) {
  try { localStorage.setItem(offeredKey(game), "1"); } catch { /* private mode: offered each time */ }
}

/** The offer of `game`'s tutorial on the first visit to one of its tables in this browser
 *  (marked as made once shown: a later visit shows none), or null. Dismissible. */
export function tutorialOffer(game, onDismiss) {
  if (!game || offeredBefore(game)) return null;
  markOffered(game);
  return h("section", { class: "panel tutorial-offer", testid: "tutorial-offer", "aria-label": t("tut_offer_label") },
    h("p", {}, t("tut_offer", { game: gameTitle(game) })),
    h("div", { class: "row" },
      h("a", { class: "button primary", href: learnHref(game), "data-link": true, testid: "tutorial-offer-start" }, t("tut_learn")),
      h("button", { type: "button", class: "ghost", testid: "tutorial-offer-dismiss", onclick: onDismiss }, t("tut_dismiss"))));
}

// ---- the coach ----------------------------------------------------------------------

const TARGET = "coach-target";
const TEXT_ID = "coach-text";

/**
 * The coach of one tutorial table. `lesson` (games/<game>/lesson.js): `{steps: [{id, text,
 * done(m, view), want(ctx)?, target(ctx, want)?, params(view)?, term?, free?}], remember:
 * [text keys]}` (lessonkit.js `askStep` makes the steps that ask for one move), where
 * `m` counts the learner's moves so far (`m.count(...types)`) and `ctx` is `{view, legal,
 * ownTurn, actions}`: the view shown, the prompt's legal actions (null when it is not the
 * learner's turn, or their move is sent and not yet answered: the coach points at nothing
 * then), whether the view's seat to move is the learner's (prompted or not) and the game
 * module's grouping of the actions. A step's `want` is the move the
 * lesson needs (matched key by key, `matches`); none, or `free`: any legal move goes.
 * `params(view)` gives a step's text the numbers it quotes, read from the view the page
 * shows (what the board's counters show). The coach moves on to the next step once the
 * learner is prompted for it: while the bot plays its turn, the step just done stays
 * (with "the bot is playing"), so a "your turn again" is never read before it is true.
 * Between two prompts of one turn of the learner (a card laid, then a draw) the step
 * just done stays until the next prompt, without that line: the learner is to move.
 * `game` is the game's module (its glossary and rules link); `onLeave` stops the lesson.
 */
export class Coach {
  constructor(lesson, game, onLeave) {
    this.lesson = lesson;
    this.game = game;
    this.onLeave = onLeave;
    this.closed = false;
    this.left = null; // the text key of why the lesson ended before its end (`end`)
    this.stepId = null;
    this.note = null; // {key, params}: why a move was not sent or was refused
    this.ctx = null;
    this.el = h("section", { class: "panel coach", testid: "coach", "aria-label": t("tut_coach") });
  }

  /** The learner's moves so far as counts by event type: `m.count(type, …)`. */
  static moves(events) {
    const byType = new Map();
    for (const e of events) byType.set(e.type, (byType.get(e.type) || 0) + 1);
    return { total: events.length, count: (...types) => types.reduce((n, x) => n + (byType.get(x) || 0), 0) };
  }

  /** The current step of the lesson, or null once every step is done. */
  step(m) {
    return this.lesson.steps.find((s) => !s.done(m, this.ctx && this.ctx.view)) || null;
  }

  /** Redraw for the shown state: `ctx` as the class says plus `moves` (the learner's move
   *  events) and `board` (the element the targets are looked up in). */
  update(ctx) {
    this.ctx = ctx;
    const m = Coach.moves(ctx.moves);
    const mine = !!ctx.legal && !this.left;
    // "The bot is playing" only while it is: not while the view's seat to move is the
    // learner's (`ownTurn`), prompt or not (between two prompts of one turn).
    const waiting = !mine && !ctx.ownTurn;
    let step = this.step(m);
    // The next step waits for the learner's prompt, since the bot may still be playing.
    const shown = this.lesson.steps.find((s) => s.id === this.stepId);
    if (step && !mine && shown && shown !== step) step = shown;
    const id = step ? step.id : "done";
    const changed = id !== this.stepId;
    if (changed) { this.stepId = id; this.note = null; }
    const want = step && mine && step.want ? step.want(ctx) : null;
    const selector = step && mine && !this.closed && step.target ? step.target(ctx, want) : null;
    const target = selector ? ctx.board.querySelector(selector) : null;
    // The outline moves only when its element changes (the board redraws often).
    for (const el of document.querySelectorAll(`.${TARGET}`)) {
      if (el !== target) { el.classList.remove(TARGET); el.removeAttribute("aria-describedby"); }
    }
    if (target && !target.classList.contains(TARGET)) {
      target.classList.add(TARGET);
      target.setAttribute("aria-describedby", TEXT_ID);
      if (changed || target !== this.target) target.scrollIntoView({ block: "nearest" });
    }
    this.target = target;
    // The panel is redrawn only when what it says changes: a redraw under a reader's or a
    // pointer's feet would repeat its text or lose a click.
    const params = step && step.params ? step.params(ctx.view) : {};
    const key = JSON.stringify([id, waiting, this.note, currentLang(), this.closed, this.left, params]);
    if (key === this.key) return;
    this.key = key;
    if (this.closed) { mount(this.el); this.el.hidden = true; return; }
    this.el.hidden = false;
    if (this.left) { this.renderLeft(); return; }
    if (!step) { this.renderEnd(); return; }
    const gloss = step.term && this.game.glossary ? this.game.glossary(step.term) : null;
    mount(this.el,
      h("h2", {}, t("tut_coach"), " ", h("span", { class: "hint", testid: "coach-progress" },
        t("tut_progress", { n: this.lesson.steps.indexOf(step) + 1, of: this.lesson.steps.length }))),
      h("p", { id: TEXT_ID, testid: "coach-text", dataset: { step: step.id }, "aria-live": "polite" }, t(step.text, params)),
      gloss ? h("p", { class: "hint", testid: "coach-term" }, gloss.text, " ",
        h("a", { href: `${rulesHref(this.game.name)}${gloss.section ? `#${gloss.section}` : ""}`, target: "_blank", rel: "noopener", testid: "coach-term-rules" }, t("rules_hint"))) : null,
      waiting ? h("p", { class: "hint", testid: "coach-wait" }, t("tut_wait")) : null,
      this.note ? h("p", { class: "coach-note", role: "alert", testid: "coach-refusal" }, t(this.note.key, this.note.params)) : null,
      h("div", { class: "row" }, h("button", { type: "button", class: "ghost small", testid: "coach-close", onclick: () => this.close() }, t("tut_close"))));
  }

  renderEnd() {
    mount(this.el,
      h("h2", {}, t("tut_done_title")),
      h("p", { testid: "coach-text", dataset: { step: "done" } }, t("tut_done")),
      h("h3", {}, t("tut_remember")),
      h("ul", { testid: "coach-remember" }, this.lesson.remember.map((k) => h("li", {}, t(k)))),
      this.links(true));
  }

  /** The lesson ended before its end (`end`): why, and the links of its last step. */
  renderLeft() {
    mount(this.el,
      h("h2", {}, t("tut_left_title")),
      h("p", { testid: "coach-text", dataset: { step: "left" }, "aria-live": "polite" }, t(this.left)),
      this.links(false));
  }

  /** The end's links: the rules, a real game, (`playOn`) playing on without the coach,
   *  leaving; else hiding the coach. */
  links(playOn) {
    return h("div", { class: "row" },
      h("a", { class: "button", href: rulesHref(this.game.name), "data-link": true, testid: "coach-rules" }, t("tut_rules")),
      h("a", { class: "button primary", href: "/", "data-link": true, testid: "coach-play-real" }, t("tut_play_real")),
      playOn ? h("button", { type: "button", class: "ghost", testid: "coach-play-on", onclick: () => this.close() }, t("tut_play_on"))
        : h("button", { type: "button", class: "ghost", testid: "coach-close", onclick: () => this.close() }, t("tut_close")),
      h("button", { type: "button", class: "ghost", testid: "coach-stop", onclick: () => this.onLeave() }, t("tut_stop")));
  }

  /** The learner's seat is no longer theirs to play (`why`: the text key, e.g. they
   *  resigned and a bot plays it): the lesson ends here, whatever step it was on. */
  end(why) {
    if (this.left === why) return;
    this.left = why;
    if (this.ctx) this.update(this.ctx);
  }

  /** Asked before a move is sent: true to send it; false (and why, in the coach) when the
   *  lesson needs another move here. */
  allows(action) {
    if (this.closed || this.left || !this.ctx) return true;
    const step = this.step(Coach.moves(this.ctx.moves));
    if (!step || step.free || !step.want) return true;
    const want = step.want(this.ctx);
    if (!want || matches(want, action)) return true;
    this.note = { key: step.wrong || "tut_wrong", params: {} };
    this.update(this.ctx);
    return false;
  }

  /** The server refused the learner's move with `code`: say why in the coach. */
  refused(code, message) {
    if (this.closed) return;
    this.note = { key: "tut_refused", params: { reason: errorText(code, { message }, this.game.errorTexts) } };
    if (this.ctx) this.update(this.ctx);
  }

  close() {
    this.closed = true;
    if (this.ctx) this.update(this.ctx);
  }
}
