// The fairness panel: the published commitment, the players' seed contributions and, once
// the game has ended, the revealed server seed checked against the commitment in the browser.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "./names.js";

async function sha256Hex(text) {
  if (!crypto.subtle) return null;
  const buf = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `summary` is the table summary; `record` the ended game's record (with `server_seed` and
 * `seed`) or null; `open` unfolds the panel (before the start, and always with a record).
 * Returns the panel element; the check fills in asynchronously.
 */
export function renderFairness(summary, record, open = false) {
  if (!summary) return null;
  const check = h("span", { class: "check", testid: "commitment-check" });
  if (record && record.server_seed) {
    sha256Hex(record.server_seed).then((hex) => {
      if (hex === null) return;
      const ok = hex === summary.commitment;
      check.textContent = ok ? t("commitment_ok") : t("commitment_bad");
      check.className = `check ${ok ? "ok" : "bad"}`;
    });
  }
  // Each seat's contribution by the name people see (the list numbers the seats); a bot
  // adds none, and says so.
  const seats = summary.seats || [];
  const contributions = (summary.contributions || []).map((c, i) => {
    const x = seats[i] || {};
    const name = seatName(x.name, i, x) || `#${i + 1}`;
    return h("li", { testid: `contribution-${i}` }, h("span", { class: "who" }, `${name}: `),
      c ? h("code", {}, c) : h("span", { class: "muted" }, x.kind === "bot" ? t("bot_no_seed") : t("seed_not_given")));
  });
  return h("details", { class: "panel fairness", testid: "fairness", open: open || !!record },
    h("summary", {}, h("h2", {}, t("fairness"))),
    h("p", { class: "hint" }, t("fairness_hint")),
    h("div", { class: "kv" }, h("span", {}, t("commitment")), h("code", { testid: "commitment" }, summary.commitment || "")),
    contributions.length ? h("div", { class: "kv" }, h("span", {}, t("contributions")), h("ol", { class: "seeds" }, contributions)) : null,
    record && record.server_seed ? [
      h("div", { class: "kv" }, h("span", {}, t("server_seed")), h("code", { testid: "revealed-seed" }, record.server_seed), check),
      h("details", { class: "kv raw-seed" }, h("summary", {}, t("raw_seed")),
        h("p", { class: "hint" }, t("game_seed_hint")),
        h("code", { testid: "game-seed" }, record.seed || "")),
    ] : null);
}
