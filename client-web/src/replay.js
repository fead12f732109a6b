// The replay viewer (/replay/<table id>, or /replay with a record file from disk). All
// views are precomputed by folding the deltas' patches (shallow merge), so any step shows
// at once; the log entries jump to their step.
import { api } from "./api.js";
import { flipRender, renderBoard, turnText } from "./board.js";
import { loadCards } from "./cards.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { describeEvent, eventSeat, isMajor } from "./log.js";
import { renderScore } from "./score.js";

const SPEEDS = [0.5, 1, 2, 4, 8];

/** Fold the patches of `deltas` (seq 1…n): `views[k]` is the view after seq k, `views[0]` null. */
export function foldViews(deltas) {
  const views = [null];
  for (const d of deltas) views.push(Object.assign({}, views[views.length - 1] || {}, d.patch));
  return views;
}

/** Mount the replay viewer into `root` for table `id` (or null: open a file). */
export function replayPage(root, id) {
  const st = { deltas: [], views: [null], step: 0, playing: false, speed: 1, timer: null, error: null, title: id || "" };
  window.__einauge = {
    page: "replay",
    step: () => st.step,
    total: () => st.deltas.length,
    view: () => st.views[st.step],
    seek: (k) => seek(k),
  };

  const els = {
    head: h("div", { class: "replay-head", testid: "replay-head" }),
    controls: h("div", { class: "replay-controls panel", role: "toolbar", "aria-label": t("replay_title") }),
    board: h("div", { class: "replay-board" }),
    score: h("div", {}),
    log: h("ol", { class: "log replay-log", testid: "replay-log" }),
  };
  mount(root, h("div", { class: "replay-page" }, els.head, els.controls,
    h("div", { class: "layout" }, h("main", { class: "main-col" }, els.board, els.score),
      h("aside", { class: "side" }, h("section", { class: "panel log-panel" }, h("h2", {}, t("log")), els.log)))));

  function fileInput() {
    return h("label", { class: "button ghost file" }, t("replay_open_file"),
      h("input", { type: "file", accept: "application/json,.json", class: "sr-only", testid: "replay-file", onchange: (e) => openFile(e.target.files[0]) }));
  }

  function renderHead() {
    mount(els.head,
      h("h1", {}, t("replay_title"), st.title ? h("span", { class: "sub" }, ` · ${st.title}`) : null),
      h("div", { class: "head-links" }, id ? h("a", { class: "button ghost", href: `/table/${id}`, "data-link": true }, "↩ ", id) : null, fileInput()),
      st.error ? h("p", { class: "error", role: "alert", testid: "replay-error" }, st.error) : null);
  }

  function renderControls() {
    const n = st.deltas.length;
    const slider = h("input", {
      type: "range", min: 0, max: n, value: st.step, testid: "replay-slider", "aria-label": t("replay_step", { i: st.step, n }),
      oninput: (e) => seek(Number(e.target.value)),
    });
    const speed = h("select", { testid: "replay-speed", "aria-label": t("speed"), onchange: (e) => { st.speed = Number(e.target.value); if (st.playing) { pause(); play(); } } },
      SPEEDS.map((s) => h("option", { value: s, selected: s === st.speed }, `${s}×`)));
    const b = (label, testid, fn, disabled) => h("button", { type: "button", testid, onclick: fn, disabled }, label);
    els.slider = slider;
    mount(els.controls,
      b(`⇤ ${t("first")}`, "replay-first", () => seek(0), st.step === 0),
      b(`◀ ${t("prev")}`, "replay-prev", () => seek(st.step - 1), st.step === 0),
      h("button", { type: "button", class: "primary", testid: "replay-play", onclick: () => (st.playing ? pause() : play()), disabled: n === 0 }, st.playing ? `⏸ ${t("pause")}` : `▶ ${t("play")}`),
      b(`${t("next")} ▶`, "replay-next", () => seek(st.step + 1), st.step >= n),
      b(`${t("last")} ⇥`, "replay-last", () => seek(n), st.step >= n),
      h("div", { class: "slider" }, slider, h("span", { class: "step-label", testid: "replay-step", dataset: { step: st.step } }, t("replay_step", { i: st.step, n }))),
      h("label", { class: "speed" }, t("speed"), " ", speed));
  }

  function renderView(animate) {
    const v = st.views[st.step];
    if (!v || !v.players || !v.players.length) {
      mount(els.board, h("div", { class: "panel empty-board" }, st.deltas.length ? t("before_start") : t("loading")));
      mount(els.score);
      return;
    }
    const ctx = { mySeat: null, actions: null, prev: st.step > 0 ? st.views[st.step - 1] : null };
    const build = () => h("div", {}, h("div", { class: "turn-banner", testid: "replay-turn" }, h("strong", {}, turnText(v, null))), renderBoard(v, ctx));
    if (animate) flipRender(els.board, build);
    else mount(els.board, build());
    mount(els.score, v.result ? renderScore(v) : null);
  }

  function renderLog() {
    const last = st.views[st.views.length - 1];
    const names = last && last.players ? last.players.map((p) => p.name) : [];
    mount(els.log, st.deltas.map((d) => {
      const seat = eventSeat(d.event);
      return h("li", { class: `${isMajor(d.event) ? "major " : ""}${seat !== null ? `seat-${seat}` : ""}`, dataset: { seq: d.seq } },
        h("button", { type: "button", class: "log-jump", testid: `replay-log-${d.seq}`, onclick: () => seek(d.seq) },
          h("span", { class: "lseq" }, d.seq), " ", describeEvent(d.event, names)));
    }));
    markLog();
  }

  function markLog() {
    const cur = els.log.querySelector(".current");
    if (cur) cur.classList.remove("current");
    const li = els.log.querySelector(`li[data-seq="${st.step}"]`);
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
    q("replay-first").disabled = st.step === 0;
    q("replay-prev").disabled = st.step === 0;
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
    const next = Math.max(0, Math.min(n, k));
    const animate = Math.abs(next - st.step) === 1 && !st.playing;
    st.step = next;
    if (st.step >= n) pause();
    renderView(animate);
    markLog();
    updateControls();
    rememberStep();
  }

  function play() {
    if (st.step >= st.deltas.length) seek(0);
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

  function load(deltas, title) {
    st.deltas = deltas;
    st.views = foldViews(deltas);
    st.title = title ?? st.title;
    st.error = null;
    const wanted = Number(new URL(location.href).searchParams.get("step"));
    st.step = Number.isFinite(wanted) && wanted > 0 ? Math.min(wanted, deltas.length) : Math.min(1, deltas.length);
    renderAll();
  }

  async function openFile(file) {
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      const r = await api.replayRecord(record);
      load(r.deltas, `${file.name}${record.players ? ` (${record.players.join(", ")})` : ""}`);
    } catch (e) {
      st.error = `${t("bad_record")}: ${e.message}`;
      renderHead();
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

  renderAll();
  loadCards().catch(() => {}).then(async () => {
    if (!id) { renderAll(); return; }
    try {
      const [r, s] = await Promise.all([api.deltas(id, 0), api.getTable(id).catch(() => null)]);
      load(r.deltas, s ? s.name : id);
    } catch (e) {
      st.error = e.message;
      renderHead();
    }
  });
  return () => { pause(); clearTimeout(urlTimer); document.removeEventListener("keydown", onKey); offLang(); };
}
