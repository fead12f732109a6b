// Table options as the game describes them (GET /api/games: `options_schema`, JSON
// Schema): the lobby's and the host's forms are generated from it, so a game's options
// need no client change. Offered: enums (a select), booleans (a checkbox), integers and
// numbers (a number field with the schema's minimum/maximum; empty is `null` where the
// schema allows it) and strings (a text field). The server's game checks what is sent.
//
// Titles: the schema's `title` is English; a game module's texts may name an option in
// every language as `<game>:<key>` (and an enum value as `<game>:<key>_<value>`); the
// bare `<key>` still counts.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const tr = (key, fallback) => { const v = t(key); return v === key ? fallback : v; };
const kebab = (key) => key.replace(/_/g, "-");

/** The schema's types of `spec` as a list (`"type": ["integer", "null"]` is two). */
const types = (spec) => (Array.isArray(spec.type) ? spec.type : spec.type ? [spec.type] : []);
/** The input kind of an option: "enum", "boolean", "integer", "number", "string" or null. */
export function kindOf(spec) {
  if (Array.isArray(spec.enum)) return "enum";
  const ts = types(spec).filter((x) => x !== "null");
  return ts.length === 1 && ["boolean", "integer", "number", "string"].includes(ts[0]) ? ts[0] : null;
}
const nullable = (spec) => types(spec).includes("null");

/** The options a form offers: `[[key, spec]]` of the properties it can show. */
export function offered(schema) {
  return Object.entries((schema && schema.properties) || {}).filter(([, spec]) => kindOf(spec));
}

/** The title of option `key` of `game` in the current language. */
export const optionTitle = (game, key, spec) => tr(`${game}:${key}`, tr(key, spec.title || key));
const valueText = (game, key, v) => tr(`${game}:${key}_${v}`, tr(`${key}_${v}`, String(v)));

/** A number field's value as sent: a number, `null` (empty, where allowed) or the raw
 *  text (the server refuses it with a clear error). */
function numberOf(spec, raw) {
  const s = String(raw ?? "").trim();
  if (s === "") return nullable(spec) ? null : undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

/** Form fields for `schema` of `game` showing `values`; `onChange(key, value)` on each
 *  change (or null in a form read on submit, where each field is named `opt:<key>`).
 *  `ids(key, spec)` gives `{id, testid}` of a field. */
export function optionFields(schema, values, onChange, ids, game = "") {
  return offered(schema).map(([key, spec]) => {
    const { id, testid } = ids(key, spec);
    const kind = kindOf(spec);
    const title = optionTitle(game, key, spec);
    const label = h("label", { for: id }, title);
    const current = values && key in values ? values[key] : spec.default;
    if (kind === "boolean") {
      const box = h("input", { type: "checkbox", id, name: `opt:${key}`, testid, checked: !!current,
        onchange: onChange ? () => onChange(key, box.checked) : undefined });
      return h("div", { class: "field check" }, box, label);
    }
    if (kind === "enum") {
      const sel = h("select", { id, name: `opt:${key}`, testid, onchange: onChange ? () => onChange(key, sel.value) : undefined },
        spec.enum.map((v) => h("option", { value: v, selected: v === current }, valueText(game, key, v))));
      return h("div", { class: "field" }, label, sel);
    }
    const num = kind === "integer" || kind === "number";
    const input = h("input", {
      type: num ? "number" : "text", id, name: `opt:${key}`, testid,
      value: current === null || current === undefined ? "" : String(current),
      min: num ? spec.minimum : undefined, max: num ? spec.maximum : undefined,
      step: kind === "integer" ? 1 : num ? "any" : undefined,
      maxlength: kind === "string" ? spec.maxLength : undefined,
      // Empty means the game's default (`null`): said in the field, not guessed here.
      placeholder: nullable(spec) || current === undefined ? t("option_default") : undefined,
      onchange: onChange ? () => onChange(key, num ? numberOf(spec, input.value) : input.value) : undefined,
    });
    const range = num && (spec.minimum !== undefined || spec.maximum !== undefined)
      ? h("small", { class: "hint" }, ` ${spec.minimum ?? "…"}–${spec.maximum ?? "…"}`) : null;
    return h("div", { class: "field" }, label, input, range);
  });
}

/** The options chosen in a form built by `optionFields` without `onChange` (a number
 *  field left empty: `null` where the schema allows it, else left out: the default). */
export function readOptions(schema, data) {
  const out = {};
  for (const [key, spec] of offered(schema)) {
    const kind = kindOf(spec);
    const raw = data.get(`opt:${key}`);
    const v = kind === "boolean" ? raw === "on" : kind === "integer" || kind === "number" ? numberOf(spec, raw) : raw;
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** "End rule: … · Color bonus: ✓" for `values` of `game` (defaults where absent). */
export function optionsText(schema, values, game = "") {
  return offered(schema).map(([key, spec]) => {
    const v = values && key in values ? values[key] : spec.default;
    const kind = kindOf(spec);
    const shown = kind === "boolean" ? (v ? "✓" : "–") : v === null || v === undefined ? t("option_default")
      : kind === "enum" ? valueText(game, key, v) : String(v);
    return `${optionTitle(game, key, spec)}: ${shown}`;
  }).join(" · ");
}

export { kebab };
