// "Play on from here" in the replay viewer of a finished table (docs/protocol.md, "Branch
// from here"): a new private table against bots at the position shown, the caller in the
// chosen seat; what that seat could not see there is dealt anew by the server. The page
// then opens the new table with its seat token and invite secret remembered, as a rematch
// does.
import { api } from "./api.js";
import { h, randomHex } from "./dom.js";
import { errorText } from "./errors.js";
import { t } from "./i18n.js";
import { playerName, saveKey, saveOwner, saveSeat } from "./store.js";

/** Branch table `id` at `where` (`{seq}`: a replay position, or `{index}`: actions
 *  played) for `seat`, then open the new table. `status` shows progress and refusals. */
export async function branchTo(id, where, seat, status) {
  status.textContent = t("branch_busy");
  status.classList.remove("error");
  try {
    const name = playerName() || undefined;
    const r = await api.branch(id, where, seat, name, randomHex(32));
    saveSeat(r.table.id, { seat: r.seat, token: r.token, name: r.table.seats[r.seat].name });
    saveOwner(r.table.id, r.token);
    saveKey(r.table.id, r.invite);
    history.pushState(null, "", `/table/${encodeURIComponent(r.table.id)}`);
    window.dispatchEvent(new PopStateEvent("popstate"));
  } catch (e) {
    status.textContent = errorText(e.code, { message: e.message });
    status.classList.add("error");
  }
}

/**
 * The panel: a seat chooser (the players' `names`) and the button. `position()` is the
 * viewer's current `{seq, toMove}` (`toMove`: the seat whose turn it is there, or null),
 * read when the button is pressed; the chooser follows the seat to move until the person
 * picks one. Returns `{el, follow(seat)}`: `follow` is called on every step.
 */
export function branchPanel(id, names, position) {
  const status = h("span", { class: "hint", role: "status", testid: "branch-status" });
  let picked = false;
  const select = h("select", { testid: "branch-seat", "aria-label": t("branch_as"), onchange: () => { picked = true; } },
    names.map((name, i) => h("option", { value: i }, name ?? `#${i + 1}`)));
  const button = h("button", { type: "button", class: "ghost", testid: "branch-play", title: t("branch_hint"), onclick: async () => {
    button.disabled = true;
    try {
      await branchTo(id, { seq: position().seq }, Number(select.value), status);
    } finally {
      button.disabled = false;
    }
  } }, `⑂ ${t("branch_play")}`);
  const follow = (seat) => {
    if (!picked && typeof seat === "number" && seat >= 0 && seat < names.length) select.value = String(seat);
  };
  follow(position().toMove);
  return { el: h("span", { class: "branch-panel", testid: "branch-panel" }, button, " ", h("label", {}, t("branch_as"), " ", select), " ", status), follow };
}

/** The analysis' judged decision `d` (`index`, `seat`): a button that plays on from just
 *  before it in that seat, to try the best move found instead. */
export function tryBestButton(id, d) {
  const status = h("span", { class: "hint", role: "status", testid: "branch-best-status" });
  const button = h("button", { type: "button", class: "ghost small", testid: "branch-best", onclick: async () => {
    button.disabled = true;
    try {
      await branchTo(id, { index: d.index }, d.seat, status);
    } finally {
      button.disabled = false;
    }
  } }, t("branch_try_best"));
  return h("span", { class: "branch-best" }, button, " ", status);
}
