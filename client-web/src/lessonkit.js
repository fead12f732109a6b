// What the tutorial's coach (tutorial.js) and the games' lessons (games/<game>/lesson.js)
// share: how a lesson's wanted move is compared with a move, and found among the legal ones.

/** True when every key of `want` has the same value in `action` (an action as sent). */
export function matches(want, action) {
  return Object.entries(want).every(([k, v]) => JSON.stringify(action[k]) === JSON.stringify(v));
}

/** `want` when one of the prompt's legal actions (`ctx.legal`) matches it, else null: then
 *  any legal move goes (a learner who strayed where the lesson let them plays on). */
export const offered = (ctx, want) => ((ctx.legal || []).some((a) => matches(want, a)) ? want : null);
