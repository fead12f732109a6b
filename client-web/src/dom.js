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

/** `mount`, except that those of `children` already in `el` are never taken out of the
 *  document (a node taken out loses its focus, and a number field its caret): the others
 *  are removed and inserted around them. The kept ones must come in their present order. */
export function remount(el, ...children) {
  const list = [];
  const flat = (cs) => {
    for (const c of cs) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) flat(c);
      else list.push(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  };
  flat(children);
  const kept = new Set(list.filter((c) => c.parentNode === el));
  for (const c of [...el.childNodes]) if (!kept.has(c)) c.remove();
  let next = el.firstChild; // the next kept node: the new ones before it go in front of it
  for (const c of list) {
    if (kept.has(c)) next = c.nextSibling;
    else el.insertBefore(c, next);
  }
  return el;
}

/** Random hex string of `bytes` bytes from the browser's CSPRNG. */
export function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}
