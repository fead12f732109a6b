// The refusal texts the client shows, per language, as errors.js's errorText returns them
// (tests/client/test_errors.py). Usage: node error_texts.mjs <client src dir> <a game's
// refusal table under src/games/ (<package>/errors.js)> <sentinel> <code>…; prints JSON
// {own: [codes of the module], shared: [codes of errors.js], texts: {lang: {code: text}}}.
// The page's globals that i18n.js reads at import (document, navigator, localStorage) are stubbed: no DOM is used.
globalThis.document = { documentElement: {} };
globalThis.localStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {}, length: 0 };
if (!globalThis.navigator) globalThis.navigator = { language: "en" };

const [src, moduleFile, sentinel, ...codes] = process.argv.slice(2);
const { errorText, ERROR_CODES } = await import(`${src}/errors.js`);
const { setLang } = await import(`${src}/i18n.js`);
const exported = Object.values(await import(`${src}/games/${moduleFile}`));
if (exported.length !== 1) throw new Error(`${moduleFile}: expected one export, got ${exported.length}`);
const own = exported[0];
const langs = Object.keys(own);
const texts = {};
for (const lang of ["en", "de"]) {
  setLang(lang);
  texts[lang] = Object.fromEntries(codes.map((c) => [c, errorText(c, { message: sentinel }, own)]));
}
console.log(JSON.stringify({ langs, own: Object.fromEntries(langs.map((l) => [l, Object.keys(own[l])])), shared: ERROR_CODES, texts }));
