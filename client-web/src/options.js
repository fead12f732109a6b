// Table options as the game describes them (GET /api/games: `options_schema`, JSON
// Schema): the lobby's and the host's forms are generated from it, so a game's options
// need no client change. Only enums (a select) and booleans (a checkbox) are offered;
// other options keep their defaults. The server's game checks what is sent.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const tr = (key, fallback) => { const v = t(key); return v === key ? fallback : v; };
const kebab = (key) => key.replace(/_/g, "-");

/** The options a form offers: `[[key, spec]]` of the enum and boolean properties. */
export function offered(schema) {
  return Object.entries((schema && schema.properties) || {})
    .filter(([, spec]) => spec.type === "boolean" || Array.isArray(spec.enum) && !spec.type);
}

/** Form fields for `schema` showing `values`; `onChange(key, value)` on each change (or
 *  null in a form read on submit, where each field is named `opt:<key>`). `ids(key)` gives
 *  `{id, testid}` of a field. */
export function optionFields(schema, values, onChange, ids) {
  return offered(schema).map(([key, spec]) => {
    const { id, testid } = ids(key, spec);
    const label = h("label", { for: id }, tr(key, spec.title || key));
    const current = values && key in values ? values[key] : spec.default;
    if (spec.type === "boolean") {
      const box = h("input", { type: "checkbox", id, name: `opt:${key}`, testid, checked: !!current,
        onchange: onChange ? () => onChange(key, box.checked) : undefined });
      return h("div", { class: "field check" }, box, label);
    }
    const sel = h("select", { id, name: `opt:${key}`, testid, onchange: onChange ? () => onChange(key, sel.value) : undefined },
      spec.enum.map((v) => h("option", { value: v, selected: v === current }, tr(`${key}_${v}`, String(v)))));
    return h("div", { class: "field" }, label, sel);
  });
}

/** The options chosen in a form built by `optionFields` without `onChange`. */
export function readOptions(schema, data) {
  const out = {};
  for (const [key, spec] of offered(schema)) {
    out[key] = spec.type === "boolean" ? data.get(`opt:${key}`) === "on" : data.get(`opt:${key}`);
  }
  return out;
}

/** "End rule: … · Color bonus: ✓" for `values` (defaults where absent). */
export function optionsText(schema, values) {
  return offered(schema).map(([key, spec]) => {
    const v = values && key in values ? values[key] : spec.default;
    const shown = spec.type === "boolean" ? (v ? "✓" : "–") : tr(`${key}_${v}`, String(v));
    return `${tr(key, spec.title || key)}: ${shown}`;
  }).join(" · ");
}

export { kebab };
