// The replay viewer (/replay/<table id>, or /replay with a record file from disk). All
// views are precomputed by folding the deltas' RFC 6902 patches (patch.js), so any step shows
// at once; the log entries jump to their step. The first step is the game's start (seq 1):
// the view before it is empty, so there is nothing to show at seq 0.
import { api } from "./api.js";
import { patched } from "./patch.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { gameModule, loadCatalogues } from "./games/index.js";
import { namedView, seatName, viewNames } from "./names.js";
import { notFoundPage } from "./notfound.js";

const SPEEDS = [0.5, 1, 2, 4, 8];

/** Fold the patches of `deltas` (seq 1…n): `views[k]` is the view after seq k, `views[0]` null. */
export function foldViews(deltas) {
  const views = [null];
  for (const d of deltas) views.push(patched(views[views.length - 1], d.patch));
  return views;
}

/** Mount the replay viewer into `root` for table `id` (or null: open a file). */
export function replayPage(root, id) {
  // `loading`: a table's deltas are on their way; `seats`: the table summary's seats (bot
  // kinds and levels for the names), null for a record file.
  const st = { deltas: [], views: [null], step: 0, playing: false, speed: 1, timer: null, error: null, title: id || "", loading: !!id, seats: null };
  window.__einauge = {
    page: "replay",
    step: () => st.step,
    total: () => st.deltas.length,
    view: () => st.views[st.step],
    seek: (k) => seek(k),
  };
  /** The board module of the replayed game: a view names its game (Einauge's none). */
  const game = () => gameModule((st.views[st.views.length - 1] || {}).game);
  /** The first step shown: the game's start (seq 1), or 0 when there is no game. */
  const firstStep = () => Math.min(1, st.deltas.length);
  /** Nothing to replay and nothing coming: the page asks for a record file. */
  const isEmpty = () => !st.loading && st.deltas.length === 0;

  const els = {
    head: h("div", { class: "replay-head", testid: "replay-head" }),
    controls: h("div", { class: "replay-controls panel", role: "toolbar", "aria-label": t("replay_title") }),
    board: h("div", { class: "replay-board" }),
    score: h("div", {}),
    log: h("ol", { class: "log replay-log", testid: "replay-log" }),
  };
  const logHead = h("h2", {}, t("log"));
  const logPanel = h("section", { class: "panel log-panel", testid: "replay-log-panel" }, logHead, els.log);
  const layout = h("div", { class: "layout" }, h("main", { class: "main-col" }, els.board, els.score), h("aside", { class: "side" }, logPanel));
  mount(root, h("div", { class: "replay-page" }, els.head, els.controls, layout));

  /** The file chooser: a ghost button in the head, a big one in the empty state. */
  function fileInput(big = false) {
    return h("label", { class: big ? "button primary big file" : "button ghost file" }, big ? t("replay_choose") : t("replay_open_file"),
      h("input", { type: "file", accept: "application/json,.json", class: "sr-only", testid: "replay-file", onchange: (e) => { openFile(e.target.files[0]); e.target.value = ""; } }));
  }

  function renderHead() {
    mount(els.head,
      h("h1", {}, t("replay_title"), st.title ? h("span", { class: "sub" }, ` · ${st.title}`) : null),
      // In the empty state the big chooser below is the only one (one `replay-file` input).
      h("div", { class: "head-links" }, id ? h("a", { class: "button ghost", href: `/table/${id}`, "data-link": true }, "↩ ", id) : null, isEmpty() ? null : fileInput()),
      st.error ? h("p", { class: "error", role: "alert", testid: "replay-error" }, st.error) : null);
  }

  function renderControls() {
    const n = st.deltas.length;
    els.controls.hidden = isEmpty();
    els.controls.setAttribute("aria-label", t("replay_title"));
    const first = firstStep();
    const slider = h("input", {
      type: "range", min: first, max: n, value: st.step, testid: "replay-slider", "aria-label": t("replay_step", { i: st.step, n }),
      oninput: (e) => seek(Number(e.target.value)),
    });
    const speed = h("select", { testid: "replay-speed", "aria-label": t("speed"), onchange: (e) => { st.speed = Number(e.target.value); if (st.playing) { pause(); play(); } } },
      SPEEDS.map((s) => h("option", { value: s, selected: s === st.speed }, `${s}×`)));
    const b = (label, testid, fn, disabled) => h("button", { type: "button", testid, onclick: fn, disabled }, label);
    els.slider = slider;
    mount(els.controls,
      b(`⇤ ${t("first")}`, "replay-first", () => seek(firstStep()), st.step <= first),
      b(`◀ ${t("prev")}`, "replay-prev", () => seek(st.step - 1), st.step <= first),
      h("button", { type: "button", class: "primary", testid: "replay-play", onclick: () => (st.playing ? pause() : play()), disabled: n === 0 }, st.playing ? `⏸ ${t("pause")}` : `▶ ${t("play")}`),
      b(`${t("next")} ▶`, "replay-next", () => seek(st.step + 1), st.step >= n),
      b(`${t("last")} ⇥`, "replay-last", () => seek(n), st.step >= n),
      h("div", { class: "slider" }, slider, h("span", { class: "step-label", testid: "replay-step", dataset: { step: st.step } }, t("replay_step", { i: st.step, n }))),
      h("label", { class: "speed" }, t("speed"), " ", speed));
  }

  function renderEmpty() {
    return h("section", { class: "panel empty-board replay-empty", testid: "replay-empty" },
      h("h2", {}, t("replay_empty")),
      h("p", { class: "hint" }, t("replay_empty_hint")),
      fileInput(true));
  }

  function renderView(animate) {
    const v = namedView(st.views[st.step], st.seats);
    logPanel.hidden = isEmpty();
    layout.classList.toggle("single", isEmpty());
    if (!v || !v.players || !v.players.length) {
      mount(els.board, isEmpty() ? renderEmpty()
        : h("div", { class: "panel empty-board", testid: st.loading ? "replay-loading" : "replay-before-start" }, st.loading ? t("loading") : t("before_start")));
      mount(els.score);
      return;
    }
    const ctx = { mySeat: null, actions: null, prev: st.step > 0 ? st.views[st.step - 1] : null };
    const g = game();
    const ended = g.winnersText(v);
    const build = () => h("div", {},
      h("div", { class: `turn-banner${v.phase === "ended" ? " ended" : ""}`, testid: "replay-turn" },
        h("strong", {}, g.turnText(v, null)), ended ? h("span", { class: "hint", testid: "replay-winners" }, ended) : null),
      g.renderBoard(v, ctx));
    if (animate) g.flipRender(els.board, build);
    else mount(els.board, build());
    mount(els.score, v.result ? g.renderScore(v) : null);
  }

  function renderLog() {
    logHead.textContent = t("log");
    const names = viewNames(st.views[st.views.length - 1], st.seats);
    const g = game();
    mount(els.log, st.deltas.map((d) => {
      const seat = g.eventSeat(d.event);
      return h("li", { class: `${g.isMajor(d.event) ? "major " : ""}${seat !== null ? `seat-${seat}` : ""}`, dataset: { seq: d.seq } },
        h("button", { type: "button", class: "log-jump", testid: `replay-log-${d.seq}`, onclick: () => seek(d.seq) },
          h("span", { class: "lseq" }, d.seq), " ", g.describeEvent(d.event, names)));
    }));
    markLog();
  }

  function markLog() {
    const cur = els.log.querySelector(".current");
    if (cur) cur.classList.remove("current");
    const li = els.log.querySelector(`li[data-seq="${st.step}"]`);
    // At the first step the log shows its top (the start), whatever was scrolled before.
    if (st.step <= firstStep()) els.log.scrollTop = 0;
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop - els.log.offsetTop;
      if (top < els.log.scrollTop || top > els.log.scrollTop + els.log.clientHeight - 30) els.log.scrollTop = top - els.log.clientHeight / 3;
    }
  }

  /** Update the controls in place (cheaper than rebuilding them on every step). */
  function updateControls() {
    const n = st.deltas.length;
    const q = (id) => els.controls.querySelector(`[data-testid=${id}]`);
    const label = q("replay-step");
    if (!label) return;
    label.textContent = t("replay_step", { i: st.step, n });
    label.dataset.step = st.step;
    if (els.slider && Number(els.slider.value) !== st.step) els.slider.value = st.step;
    els.slider?.setAttribute("aria-label", t("replay_step", { i: st.step, n }));
    q("replay-first").disabled = st.step <= firstStep();
    q("replay-prev").disabled = st.step <= firstStep();
    q("replay-next").disabled = st.step >= n;
    q("replay-last").disabled = st.step >= n;
  }

  // The step is kept in the URL (shareable), written once the seeking settles: browsers
  // throttle frequent history updates.
  let urlTimer = null;
  function rememberStep() {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const url = new URL(location.href);
      url.searchParams.set("step", st.step);
      history.replaceState(history.state, "", url);
    }, 400);
  }

  function seek(k) {
    const n = st.deltas.length;
    const next = Math.max(firstStep(), Math.min(n, k));
    const animate = Math.abs(next - st.step) === 1 && !st.playing;
    st.step = next;
    if (st.step >= n) pause();
    renderView(animate);
    markLog();
    updateControls();
    rememberStep();
  }

  function play() {
    if (st.step >= st.deltas.length) seek(firstStep());
    st.playing = true;
    st.timer = setInterval(() => seek(st.step + 1), 1000 / st.speed);
    renderControls();
  }
  function pause() {
    if (!st.playing) return;
    st.playing = false;
    clearInterval(st.timer);
    renderControls();
  }

  function load(deltas, title, seats = null) {
    pause();
    st.deltas = deltas;
    st.views = foldViews(deltas);
    st.title = title ?? st.title;
    st.seats = seats;
    st.error = null;
    st.loading = false;
    const wanted = Number(new URL(location.href).searchParams.get("step"));
    st.step = Number.isFinite(wanted) && wanted > 0 ? Math.min(wanted, deltas.length) : firstStep();
    renderAll();
  }

  async function openFile(file) {
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      const r = await api.replayRecord(record);
      const players = Array.isArray(record.players) ? record.players.map((p, i) => seatName(String(p), i)) : null;
      load(r.deltas, `${file.name}${players ? ` (${players.join(", ")})` : ""}`);
    } catch (e) {
      st.error = `${t("bad_record")}: ${e.message}`;
      st.loading = false;
      renderAll();
    }
  }

  function renderAll() { renderHead(); renderControls(); renderView(false); renderLog(); }

  const onKey = (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") seek(st.step + 1);
    else if (e.key === "ArrowLeft") seek(st.step - 1);
    else if (e.key === "Home") seek(0);
    else if (e.key === "End") seek(st.deltas.length);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  const offLang = onLangChange(renderAll);
  let gone = null; // the not-found page's cleanup, once shown

  renderAll();
  loadCatalogues().then(async () => {
    if (!id) { renderAll(); return; }
    try {
      const [r, s] = await Promise.all([api.deltas(id, 0), api.getTable(id).catch(() => null)]);
      load(r.deltas, s ? s.name || id : id, s ? s.seats : null);
    } catch (e) {
      if (e.code === "no_table") { // unknown, expired, or private without its secret
        offLang();
        gone = notFoundPage(root);
        return;
      }
      st.error = e.message;
      st.loading = false;
      renderAll();
    }
  });
  return () => { pause(); clearTimeout(urlTimer); document.removeEventListener("keydown", onKey); offLang(); if (gone) gone(); };
}
