// Live deltas shown at a pace people can follow. The connection folds every delta into the
// true view at once (so the game itself is never slowed, and a table of bots alone plays
// at the server's speed); this queue only decides when the page *shows* each of those
// views: another seat's moves at least `moveMs` apart, automatic events (reveals, skipped
// steps) faster, your own at once. A long queue (a reconnect, a fast table) plays faster,
// so the page never falls far behind.
import { paceSetting } from "./store.js";

/** Milliseconds between two shown moves of other seats, by the page's pace setting. */
export const PACES = { slow: 1500, normal: 850, off: 0 };
const CATCH_UP = 12; // queued views beyond which the pace quickens

/**
 * `show({view, event, seq})` draws one step; `mySeat()` is the viewer's seat (its own
 * events show at once); `isMove(event)` tells someone's decision (shown at the move pace,
 * the game module's) from an automatic event. `push` queues a step, `reset` shows a full view at once (welcome,
 * sync) and drops the queue.
 */
export class Pacer {
  constructor(show, mySeat, isMove) {
    this.show = show;
    this.mySeat = mySeat;
    this.isMove = isMove;
    this.queue = [];
    this.timer = null;
    this.last = 0; // time the last step was shown
    this.shown = null; // {view, event, seq} on screen
  }

  get behind() { return this.queue.length; }

  reset(view, seq) {
    this.queue = [];
    clearTimeout(this.timer);
    this.timer = null;
    this.shown = { view, event: null, seq };
    this.show(this.shown);
  }

  push(step) {
    const e = step.event;
    const own = e && this.isMove(e) && e.seat === this.mySeat();
    this.queue.push(step);
    if (own || PACES[paceSetting()] === 0 || document.hidden) this.flush();
    else this.pump();
  }

  /** Show every queued step now, in order (each still reaches the log). */
  flush() {
    while (this.queue.length) this.display(this.queue.shift());
  }

  gap(step) {
    const base = PACES[paceSetting()] ?? PACES.normal;
    const ms = step.event && this.isMove(step.event) ? base : base / 3;
    return this.queue.length > CATCH_UP ? ms / 4 : ms;
  }

  pump() {
    if (this.timer || !this.queue.length) return;
    const wait = Math.max(0, this.last + this.gap(this.queue[0]) - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      const step = this.queue.shift();
      if (step) this.display(step);
      this.pump();
    }, wait);
  }

  display(step) {
    clearTimeout(this.timer);
    this.timer = null;
    this.last = performance.now();
    this.shown = step;
    this.show(step);
    if (this.queue.length) this.pump();
  }

  stop() { clearTimeout(this.timer); this.queue = []; }
}
