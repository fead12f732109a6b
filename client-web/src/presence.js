// The seats panel of a running table: for every seat who plays it (its player or a bot),
// whether the player is online, away ("away for 40 s") or gone, the seat's clock, and the
// spectator count; and the calls a seated player may make: claim a gone player's seat for
// a bot, resign, take one's seat back. The server decides who may (server/play/seat_rules.py);
// the page only offers what the state shown suggests and reports the server's refusal.
import { clockFor, clockText } from "./clock.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** How long ago, in the largest whole unit: "40 s", "3 min", "2 h", "1 d". */
export function ago(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return t("dur_days", { n: Math.floor(s / 86400) });
}

/** The presence words for a seat at server time `now`. */
export function presenceText(p, now) {
  if (!p) return "";
  if (p.state === "online") return t("online");
  if (p.state === "bot") return "";
  const key = p.state === "gone" ? "gone_for" : "away_for";
  return t(key, { d: ago(now - p.since) });
}

/**
 * The panel element. `s`: {summary, view, over (true once the game has ended, whatever
 * `view` shows yet), presence, clock, now, ratings (per seat the
 * rating text of a rated table, or null), mySeat (the seat this browser holds, bot-played
 * or not), onClaim(seat), onResign(), onReturn(), onReport(seat summary): the report
 * button of another account's seat, or null}.
 */
export function renderSeatsPanel(s) {
  const seats = (s.summary && s.summary.seats) || [];
  const pres = (s.presence && s.presence.seats) || [];
  const running = s.view && s.view.phase !== "ended" && !s.over;
  const me = s.mySeat;
  const iPlay = me !== null && me !== undefined && seats[me] && seats[me].kind === "human";
  const rows = seats.map((x) => {
    const p = pres[x.seat];
    const name = (s.view && s.view.players && s.view.players[x.seat] && s.view.players[x.seat].name) || x.name;
    const c = clockFor(s.clock, x.seat, s.now);
    const byBot = x.kind === "bot";
    const buttons = [];
    if (running && x.seat === me) {
      if (byBot && !x.resigned) buttons.push(h("button", { type: "button", class: "primary small", testid: "take-back", onclick: s.onReturn }, t("take_back")));
      if (!x.resigned) buttons.push(h("button", { type: "button", class: "ghost small", testid: "resign", onclick: s.onResign }, t("resign")));
    } else if (running && iPlay && !byBot && p && p.state === "gone") {
      buttons.push(h("button", { type: "button", class: "small", testid: `claim-${x.seat}`, onclick: () => s.onClaim(x.seat, name) }, t("claim_seat")));
    }
    return h("li", { class: `pseat${x.seat === me ? " mine" : ""}`, testid: `presence-${x.seat}`, dataset: { state: p ? p.state : "", bot: byBot ? "1" : "0" } },
      h("span", { class: `pdot p-${p ? p.state : "unknown"}`, "aria-hidden": "true" }),
      h("b", {}, name), " ",
      s.ratings && s.ratings[x.seat] ? h("span", { class: "badge rating", testid: `seat-rating-${x.seat}` }, s.ratings[x.seat]) : null,
      p && p.state !== "bot" ? h("span", { class: "pstate", testid: `presence-text-${x.seat}`, dataset: p.since ? { since: p.since, state: p.state } : {} }, presenceText(p, s.now)) : null,
      byBot && p && p.state !== "bot" ? h("span", { class: "badge", testid: `by-bot-${x.seat}` }, x.resigned ? t("resigned_bot") : t("played_by_bot")) : null,
      c ? h("span", { class: `pclock${c.running ? " running" : ""}`, testid: `clock-${x.seat}`, dataset: { seat: x.seat } }, clockText(c)) : null,
      x.account && x.seat !== me && s.onReport ? s.onReport(x) : null,
      buttons.length ? h("div", { class: "pbuttons" }, buttons) : null);
  });
  const spectators = s.presence ? s.presence.spectators : 0;
  return h("section", { class: "panel seats-panel", testid: "seats-panel", "aria-label": t("seats") },
    h("h2", {}, t("seats")),
    h("ul", { class: "pseats" }, rows),
    h("p", { class: "hint", testid: "spectator-count" }, t("spectators_n", { n: spectators })));
}

/** Update the ticking texts of a mounted panel in place (no re-render: buttons stay). */
export function tickSeatsPanel(root, s) {
  for (const el of root.querySelectorAll("[data-testid^=clock-]")) {
    el.textContent = clockText(clockFor(s.clock, Number(el.dataset.seat), s.now));
  }
  for (const el of root.querySelectorAll("[data-since]")) {
    el.textContent = presenceText({ state: el.dataset.state, since: Number(el.dataset.since) }, s.now);
  }
}
