// Move clocks as the server tells them (docs/protocol.md, "clock"): the page only counts
// down to the server's deadline. The server's `now` (ms) comes with every welcome, clock
// and presence message; the difference to this browser's clock is kept, so a browser
// whose clock is off by minutes still shows the right time left.
import { t } from "./i18n.js";

/** The server's clock as seen from this browser: `sync(serverNow)` at each message. */
export class ServerClock {
  constructor() { this.offset = 0; }
  sync(serverNow) { if (typeof serverNow === "number") this.offset = serverNow - Date.now(); }
  now() { return Date.now() + this.offset; }
}

/**
 * What `seat`'s clock shows at server time `now`: `{running, move, reserve}` in ms (the
 * move time and the reserve left), or null without a clock. Only the seat whose move time
 * runs (`clock.seat`) counts down; the others show their reserve.
 */
export function clockFor(clock, seat, now) {
  if (!clock || !clock.reserve || seat >= clock.reserve.length) return null;
  const reserve = clock.reserve[seat];
  if (clock.seat !== seat || clock.deadline === null || clock.deadline === undefined) return { running: false, move: clock.per_move, reserve };
  const left = Math.max(0, clock.deadline - now);
  return { running: true, move: Math.max(0, left - reserve), reserve: Math.min(reserve, left) };
}

/** A duration for a clock face: "0:42", "1:05:09", or "2 d 3 h" for days. */
export function formatMs(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86400) return t("days_hours", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return hh ? `${hh}:${pad(mm)}:${pad(ss)}` : `${mm}:${pad(ss)}`;
}

/** The text of a clock face. */
export function clockText(c) {
  if (!c) return "";
  if (!c.running) return t("clock_reserve", { r: formatMs(c.reserve) });
  return c.reserve > 0 || c.move > 0 ? t("clock_running", { m: formatMs(c.move), r: formatMs(c.reserve) }) : t("clock_out");
}

/** The time control of a table summary in words ("Live · fast", "2 days per move"). */
export function timeControlText(tc) {
  if (!tc || tc.kind === "none") return t("tc_none");
  if (tc.kind === "live") return t("tc_live", { preset: t(`tc_${tc.preset}`), m: formatMs(tc.per_move), r: formatMs(tc.reserve) });
  return t("tc_async", { n: tc.days });
}
