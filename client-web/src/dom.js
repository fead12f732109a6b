// Tiny DOM helpers: build elements declaratively without a framework.

/**
 * Create an element. `attrs` keys: `class`, `text`, `html` (trusted markup only, e.g. our
 * SVG icons), `on<event>` handlers, `dataset` object, `testid` (data-testid), anything else
 * becomes an attribute (false/null/undefined are left out). Children may be nodes, strings,
 * numbers, arrays or null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "html") el.append(fragment(v));
    else if (k === "testid") el.dataset.testid = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = !!v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

// Parsed markup by source text: icons repeat on every card, and cloning a parsed template
// is much cheaper than parsing the same SVG again on every render.
const templates = new Map();
function fragment(html) {
  let tpl = templates.get(html);
  if (!tpl) {
    tpl = document.createElement("template");
    tpl.innerHTML = html;
    if (templates.size < 500) templates.set(html, tpl);
  }
  return tpl.content.cloneNode(true);
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replace all children of `el` by `children`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Random hex string of `bytes` bytes from the browser's CSPRNG. */
export function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}
