// What the browser remembers: seat tokens per table, owner tokens and private tables'
// invite secrets, the player's name, the language.

export const KEY = "cardtable.";
/** The prefix before the service was called Cardtable: what a browser saved under it is
 *  moved to `KEY` when the page loads (`migrateKeys`). */
const OLD_KEY = "einauge.";

/** Move every entry under the old prefix to `cardtable.*` (an entry already under the new name
 *  wins) and remove the old one, so saved seats, owner tokens, invite secrets, the name,
 *  the language and the chat settings survive the rename. Runs once, as this module loads
 *  (before any page reads the store). Returns the number of entries moved. */
export function migrateKeys() {
  let moved = 0;
  try {
    const old = [];
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(OLD_KEY)) old.push(k);
    }
    for (const k of old) {
      const target = KEY + k.slice(OLD_KEY.length);
      if (localStorage.getItem(target) === null) { localStorage.setItem(target, localStorage.getItem(k)); moved++; }
      localStorage.removeItem(k);
    }
  } catch { /* private mode: nothing stored */ }
  return moved;
}
migrateKeys();

function get(key) {
  try { return JSON.parse(localStorage.getItem(KEY + key)); } catch { return null; }
}
function set(key, value) {
  try {
    if (value === null) localStorage.removeItem(KEY + key);
    else localStorage.setItem(KEY + key, JSON.stringify(value));
  } catch { /* private mode: nothing remembered */ }
}

/** `{seat, token, name}` of this browser's seat at table `id`, or null. */
export const seatFor = (id) => get(`seat.${id}`);
export const saveSeat = (id, seat) => set(`seat.${id}`, seat);
export const forgetSeat = (id) => set(`seat.${id}`, null);
/** The owner token of a table this browser created (may start it without a seat). */
export const ownerFor = (id) => get(`owner.${id}`);
export const saveOwner = (id, token) => set(`owner.${id}`, token);
/** The invite secret of a private table this browser was invited to (or created). */
export const keyFor = (id) => get(`key.${id}`);
export const saveKey = (id, key) => set(`key.${id}`, key);
export const playerName = () => get("name") || "";
export const savePlayerName = (name) => set("name", name);
export const savedLang = () => get("lang");
export const saveLang = (lang) => set("lang", lang);

/** Every seat and creator token this browser holds, as `[{table, token?, owner?}]` (a
 *  guest's, handed to the account it signs up or logs in with). */
export function heldTokens() {
  const out = new Map();
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      const m = k && k.startsWith(KEY) && k.slice(KEY.length).match(/^(seat|owner)\.(.+)$/);
      if (!m) continue;
      const v = get(`${m[1]}.${m[2]}`);
      const row = out.get(m[2]) || { table: m[2] };
      if (m[1] === "seat" && v && v.token) row.token = v.token;
      if (m[1] === "owner" && typeof v === "string") row.owner = v;
      out.set(m[2], row);
    }
  } catch { /* private mode */ }
  return [...out.values()].filter((r) => r.token || r.owner).slice(0, 50);
}
/** How fast other seats' moves are shown: "slow", "normal" (default) or "off" (at once). */
export const paceSetting = () => get("pace") || "normal";
export const savePace = (pace) => set("pace", pace);
