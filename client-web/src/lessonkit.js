// What the tutorial's coach (tutorial.js) and the games' lessons (games/<game>/lesson.js)
// share: how a lesson's wanted move is compared with a move, found among the legal ones,
// and pointed at on the board ("select X, then its button").

/** True when every key of `want` has the same value in `action` (an action as sent). */
export function matches(want, action) {
  return Object.entries(want).every(([k, v]) => JSON.stringify(action[k]) === JSON.stringify(v));
}

/** `want` when the prompt offers it, else null: then any legal move goes (a learner who
 *  strayed where the lesson let them plays on). A prompt in a game's compact form
 *  (`ctx.form`, read by the game's module only) is taken to offer it: the server still
 *  refuses a move it does not allow, and the coach says why. */
export const offered = (ctx, want) => {
  if (ctx.form) return want;
  return (ctx.legal || []).some((a) => matches(want, a)) ? want : null;
};

const pressed = (el) => el.getAttribute("aria-pressed") === "true";

/**
 * A step of a lesson that asks for the move `want` (keys an action must have, `matches`):
 * `{id, text, want, select, button, dialog, fallback, done, …rest}` → the coach's step
 * shape (tutorial.js). The coach points at the first element of `select` (selectors of
 * things to choose first, e.g. cards of the hand) that is not pressed yet (`aria-pressed`),
 * then at `button`, the move's button. A move the board finishes in a dialog of its own
 * (`dialog: {open, choices, then}`: while the element `open` is on the board) is pointed
 * at there: each of its `choices` (toggles, e.g. a joker's value) not pressed yet, then its
 * button `then`. When the prompt does not offer `want`, the coach points at `fallback` and
 * any legal move goes. `rest` passes on (`term`, `wrong`, `params`, `done`).
 */
export function askStep({ want, select = [], button, dialog = null, fallback, ...rest }) {
  const unpressed = (board, sels) => sels.find((sel) => { const el = board.querySelector(sel); return el && !pressed(el); });
  return {
    ...rest,
    want: (ctx) => offered(ctx, want),
    target: (ctx, w) => {
      if (!w) return fallback;
      const b = ctx.board;
      if (dialog && b.querySelector(dialog.open)) return unpressed(b, dialog.choices || []) || dialog.then;
      return unpressed(b, select) || button;
    },
  };
}

/** The selector of the element of test id `id`. */
export const testid = (id) => `[data-testid="${id}"]`;
