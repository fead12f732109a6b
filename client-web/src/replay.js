// The replay viewer (/replay/<table id>, or /replay with a record file from disk). All
// views are precomputed by folding the deltas' RFC 6902 patches (patch.js), so any moment
// shows at once. It steps by turn, as players expect: one step is one player's turn, and the
// log lists each turn's events inside it, each a jump to that very event. Which event belongs
// to which turn comes from the server's views (the engine's `turn` counter), not from a
// rule here; a game whose views have no `turn` steps by decision (its module's `isMove`).
import { hideTerm, installGlossary } from "./glossary.js";
import { analysisButton, bySeq, luckChart, moveNote, summaryLines } from "./analysis.js";
import { branchPanel, tryBestButton } from "./branch.js";
import { api } from "./api.js";
import { errorText } from "./errors.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { patched } from "./patch.js";
import { h, mount } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { gameModule, loadCatalogues } from "./games/index.js";
import { namedView, seatName, viewNames } from "./names.js";
import { notFoundPage } from "./notfound.js";
import { rulesHref, setRulesGame } from "./rulesnav.js";

const SPEEDS = [0.5, 1, 2, 4, 8];
const TURN_MS = 1500; // one turn per this at 1x

/** The `deltas` frames of `GET …/deltas` or `POST /api/replay` (one event each) as one
 *  step per event: `{seq, event, head, patch}`; a frame's patch goes with its last event. */
export function perEvent(frames) {
  return frames.flatMap((f) => f.events.map((e, i) => ({ ...e, patch: i === f.events.length - 1 ? f.patch : [] })));
}

/** Fold the patches of `deltas` (seq 1…n): `views[k]` is the view after seq k, `views[0]` null. */
export function foldViews(deltas) {
  const views = [null];
  for (const d of deltas) views.push(patched(views[views.length - 1], d.patch));
  return views;
}

/**
 * The turns of a folded game, `[{turn, first, last}]` (seqs, 1-based): event k belongs to
 * the turn that the view before it shows (`views[k-1].turn`, the engine's count of turns
 * begun); the start joins turn 1. A game whose views carry no `turn` (its CONTRACT's view
 * has none) steps by decision: each event that `isMove` (the game
 * module's "someone decided") begins a step, and the automatic events after it join that
 * step; those before the first decision join the first step. `deltas[k-1].event` is event k.
 */
export function turnSteps(views, deltas, isMove) {
  const steps = [];
  let moves = 0;
  for (let k = 1; k < views.length; k += 1) {
    const hasTurn = views[k] && views[k].turn !== undefined;
    if (!hasTurn && isMove(deltas[k - 1].event)) moves += 1;
    const turn = hasTurn ? Math.max(1, (views[k - 1] && views[k - 1].turn) || 0) : Math.max(1, moves);
    const last = steps[steps.length - 1];
    if (last && last.turn === turn) last.last = k;
    else steps.push({ turn, first: k, last: k });
  }
  return steps;
}

/** Mount the replay viewer into `root` for table `id` (or null: open a file). */
export function replayPage(root, id) {
  // `seq`: the event shown; `step`: the index of its turn in `turns`; `loading`: a table's
  // deltas are on their way; `seats`: the table summary's seats (bot kinds and levels for
  // the names), null for a record file.
  const st = { deltas: [], views: [null], turns: [], step: 0, seq: 0, playing: false, speed: 1, timer: null, error: null, title: id || "", loading: !!id, seats: null, analysis: null, branch: null };
  window.__cardtable = {
    page: "replay",
    step: () => (st.turns.length ? st.step + 1 : 0),
    total: () => st.turns.length,
    seq: () => st.seq,
    events: () => st.deltas.length,
    turns: () => st.turns.map((x) => [x.first, x.last]),
    view: () => st.views[st.seq],
    seek: (k) => seekStep(k - 1),
    seekSeq: (k) => seekSeq(k),
  };
  /** The board module of the replayed game: a view names its game. */
  const game = () => gameModule((st.views[st.views.length - 1] || {}).game);
  installGlossary(game);  // the board's terms explain themselves (glossary.js)
  /** Nothing to replay and nothing coming: the page asks for a record file. */
  const isEmpty = () => !st.loading && st.deltas.length === 0;
  const lastStep = () => Math.max(0, st.turns.length - 1);
  const stepOf = (seq) => Math.max(0, st.turns.findIndex((x) => x.first <= seq && seq <= x.last));

  const els = {
    head: h("div", { class: "replay-head", testid: "replay-head" }),
    controls: h("div", { class: "replay-controls panel", role: "toolbar", "aria-label": t("replay_title") }),
    board: h("div", { class: "replay-board" }),
    score: h("div", {}),
    log: h("ol", { class: "log replay-log", testid: "replay-log" }),
    summary: h("div", {}),
  };
  const logHead = h("h2", {}, t("log"));
  const logPanel = h("section", { class: "panel log-panel", testid: "replay-log-panel" }, logHead, els.summary, els.log);
  const layout = h("div", { class: "layout" }, h("main", { class: "main-col" }, els.board, els.score), h("aside", { class: "side" }, logPanel));
  mount(root, h("div", { class: "replay-page" }, els.head, els.controls, layout));

  /** The file chooser: a ghost button in the head, a big one in the empty state. */
  function fileInput(big = false) {
    return h("label", { class: big ? "button primary big file" : "button ghost file" }, big ? t("replay_choose") : t("replay_open_file"),
      h("input", { type: "file", accept: "application/json,.json", class: "sr-only", testid: "replay-file", onchange: (e) => { openFile(e.target.files[0]); e.target.value = ""; } }));
  }

  function renderHead() {
    const named = st.views.length > 1; // the game is known once a view is in
    if (named) setRulesGame(game().name);
    // The game's title once a game is loaded (the page's title too).
    const gameName = named ? gameTitle(game().name) : null;
    if (gameName) document.title = `${t("replay_title")} · ${gameName}`;
    mount(els.head,
      h("h1", {}, t("replay_title"), gameName ? h("span", { class: "sub", testid: "replay-game" }, ` · ${gameName}`) : null,
        st.title ? h("span", { class: "sub" }, ` · ${st.title}`) : null),
      // In the empty state the big chooser below is the only one (one `replay-file` input).
      h("div", { class: "head-links" }, id ? h("a", { class: "button ghost", href: `/table/${id}`, "data-link": true, testid: "back-to-table" }, "↩ ", st.tableName || t("back_to_table")) : null,
        h("a", { class: "button ghost", href: rulesHref(named ? game().name : null), target: "_blank", rel: "noopener", testid: "replay-rules" }, t("rules")),
        isEmpty() ? null : fileInput(),
        // A finished table's analysis by the bots, on request (analysis.js).
        id && !st.analysis && (st.views[st.views.length - 1] || {}).result ? analysisButton(id, (a) => { st.analysis = a; renderHead(); renderLog(); renderView(false); }) : null,
        // Play on against bots from the position shown (branch.js).
        branchHere()),
      st.error ? h("p", { class: "error", role: "alert", testid: "replay-error" }, st.error) : null);
  }

  /** A finished table's "Play on from here" panel (kept in `st.branch`), else null. */
  function branchHere() {
    const last = st.views[st.views.length - 1];
    st.branch = id && last && last.result ? branchPanel(id, viewNames(last, st.seats), () => ({ seq: st.seq, toMove: (st.views[st.seq] || {}).current_seat })) : null;
    return st.branch ? st.branch.el : null;
  }

  /** The counter: the start position (the setup as dealt, before anyone decided) is
   *  "Start", not the first turn, which it is the beginning of: "Turn 1" is its end. */
  const atDeal = () => st.seq === 1 && !!st.turns.length && st.turns[0].last > 1;
  const stepLabel = () => (atDeal() ? t("replay_start", { n: st.turns.length })
    : t("replay_turn", { i: st.turns.length ? st.step + 1 : 0, n: st.turns.length }));

  function renderControls() {
    const n = st.turns.length;
    els.controls.hidden = isEmpty();
    els.controls.setAttribute("aria-label", t("replay_title"));
    const slider = h("input", {
      type: "range", min: 1, max: Math.max(1, n), value: st.step + 1, testid: "replay-slider", "aria-label": stepLabel(),
      oninput: (e) => seekStep(Number(e.target.value) - 1),
    });
    const speed = h("select", { testid: "replay-speed", "aria-label": t("speed"), onchange: (e) => { st.speed = Number(e.target.value); if (st.playing) { pause(); play(); } } },
      SPEEDS.map((s) => h("option", { value: s, selected: s === st.speed }, `${s}×`)));
    const b = (label, testid, fn, disabled) => h("button", { type: "button", testid, onclick: fn, disabled }, label);
    els.slider = slider;
    const atStart = st.step <= 0 && st.seq <= (st.turns[0] ? st.turns[0].first : 0);
    mount(els.controls,
      b(`⇤ ${t("first")}`, "replay-first", () => seekSeq(1), atStart),
      b(`◀ ${t("prev")}`, "replay-prev", prevStep, atStart),
      h("button", { type: "button", class: "primary", testid: "replay-play", onclick: () => (st.playing ? pause() : play()), disabled: n === 0 }, st.playing ? `⏸ ${t("pause")}` : `▶ ${t("play")}`),
      b(`${t("next")} ▶`, "replay-next", nextStep, st.seq >= st.deltas.length),
      b(`${t("last")} ⇥`, "replay-last", () => seekSeq(st.deltas.length), st.seq >= st.deltas.length),
      h("div", { class: "slider" }, slider, h("span", { class: "step-label", testid: "replay-step", dataset: { step: st.step + 1, seq: st.seq } }, stepLabel())),
      h("label", { class: "speed" }, t("speed"), " ", speed));
  }

  function renderEmpty() {
    return h("section", { class: "panel empty-board replay-empty", testid: "replay-empty" },
      h("h2", {}, t("replay_empty")),
      h("p", { class: "hint" }, t("replay_empty_hint")),
      fileInput(true));
  }

  function renderView(animate) {
    const v = namedView(st.views[st.seq], st.seats);
    logPanel.hidden = isEmpty();
    layout.classList.toggle("single", isEmpty());
    if (!v || !v.players || !v.players.length) {
      mount(els.board, isEmpty() ? renderEmpty()
        : h("div", { class: "panel empty-board", testid: st.loading ? "replay-loading" : "replay-before-start" }, st.loading ? t("loading") : t("before_start")));
      mount(els.score);
      return;
    }
    const d = st.deltas[st.seq - 1];
    const judged = st.analysis && d && id ? bySeq(st.analysis)[d.seq] : null;
    if (st.branch) st.branch.follow(v.current_seat);
    const ctx = { mySeat: null, actions: null, prev: st.seq > 0 ? st.views[st.seq - 1] : null, lastEvent: d ? d.event : null };
    const g = game();
    if (g.setCardContext) g.setCardContext(v); // a game with card details
    const ended = g.winnersText(v);
    const build = () => h("div", {},
      h("div", { class: `turn-banner${v.phase === "ended" ? " ended" : ""}`, testid: "replay-turn" },
        h("strong", {}, g.turnText(v, null)), ended ? h("span", { class: "hint", testid: "replay-winners" }, ended) : null,
        // The move just played, as the analysis judged it, with the best move found.
        st.analysis && d ? moveNote(bySeq(st.analysis)[d.seq], "analysis-board") : null,
        // A move that lost points: try the best one found, from just before it.
        judged && judged.loss > 0 ? tryBestButton(id, judged) : null),
      g.renderBoard(v, ctx));
    if (animate) g.flipRender(els.board, build);
    else mount(els.board, build());
    mount(els.score, v.result ? g.renderScore(v) : null);
  }

  function renderLog() {
    logHead.textContent = t("log");
    const names = viewNames(st.views[st.views.length - 1], st.seats);
    const g = game();
    const judged = bySeq(st.analysis);
    mount(els.summary, st.analysis ? [h("ul", { class: "analysis-summary", testid: "analysis-summary" }, summaryLines(st.analysis, names)), luckChart(st.analysis, names)] : null);
    mount(els.log, st.turns.map((turn, i) => {
      const evs = st.deltas.slice(turn.first - 1, turn.last);
      // Whose turn: the seat of its first decision (the game module's `isMove`), not of an
      // automatic event that names a seat.
      const actor = evs.map((d) => d.event).find((e) => typeof e.seat === "number" && g.isMove(e));
      const who = actor ? names[actor.seat] ?? `#${actor.seat + 1}` : "";
      return h("li", { class: `turn-group${actor ? ` seat-${actor.seat}` : ""}`, dataset: { step: i + 1 }, testid: `replay-turn-${i + 1}` },
        h("button", { type: "button", class: "turn-head", testid: `replay-turn-head-${i + 1}`, onclick: () => seekStep(i) },
          t("turn_n", { n: i + 1 }), who ? ` · ${who}` : ""),
        h("ol", { class: "turn-events" }, evs.map((d) => {
          const seat = g.eventSeat(d.event);
          return h("li", { class: `${g.isMajor(d.event) ? "major " : ""}${seat !== null ? `seat-${seat}` : ""}`, dataset: { seq: d.seq } },
            h("button", { type: "button", class: "log-jump", testid: `replay-log-${d.seq}`, onclick: () => seekSeq(d.seq) },
              h("span", { class: "lseq" }, d.seq), " ", g.describeEvent(d.event, names)), moveNote(judged[d.seq]));
        })));
    }));
    markLog();
  }

  function markLog() {
    for (const el of els.log.querySelectorAll(".current")) el.classList.remove("current");
    const group = els.log.querySelector(`li.turn-group[data-step="${st.step + 1}"]`);
    const li = els.log.querySelector(`li[data-seq="${st.seq}"]`);
    for (const el of els.log.querySelectorAll(".current-turn")) el.classList.remove("current-turn");
    if (group) group.classList.add("current-turn");
    // At the first step the log shows its top (the start), whatever was scrolled before.
    if (st.step <= 0) els.log.scrollTop = 0;
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop - els.log.offsetTop;
      if (top < els.log.scrollTop || top > els.log.scrollTop + els.log.clientHeight - 30) els.log.scrollTop = top - els.log.clientHeight / 3;
    }
  }

  /** Update the controls in place (cheaper than rebuilding them on every step). */
  function updateControls() {
    const q = (tid) => els.controls.querySelector(`[data-testid=${tid}]`);
    const label = q("replay-step");
    if (!label) return;
    label.textContent = stepLabel();
    label.dataset.step = st.step + 1;
    label.dataset.seq = st.seq;
    if (els.slider && Number(els.slider.value) !== st.step + 1) els.slider.value = st.step + 1;
    els.slider?.setAttribute("aria-label", stepLabel());
    const atStart = st.step <= 0 && st.seq <= (st.turns[0] ? st.turns[0].first : 0);
    q("replay-first").disabled = atStart;
    q("replay-prev").disabled = atStart;
    q("replay-next").disabled = st.seq >= st.deltas.length;
    q("replay-last").disabled = st.seq >= st.deltas.length;
  }

  // The turn is kept in the URL (shareable), written once the seeking settles: browsers
  // throttle frequent history updates.
  let urlTimer = null;
  function rememberStep() {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const url = new URL(location.href);
      url.searchParams.set("step", st.step + 1);
      history.replaceState(history.state, "", url);
    }, 400);
  }

  /** Show the event `seq` (1…n) inside its turn. */
  function seekSeq(k) {
    const n = st.deltas.length;
    const next = Math.max(Math.min(1, n), Math.min(n, k));
    const animate = Math.abs(next - st.seq) <= 8 && next !== st.seq && !st.playing;
    st.seq = next;
    st.step = stepOf(next);
    if (st.seq >= n) pause();
    renderView(animate);
    markLog();
    updateControls();
    rememberStep();
  }
  /** Show the end of turn `i` (0-based). */
  function seekStep(i) {
    if (!st.turns.length) return;
    seekSeq(st.turns[Math.max(0, Math.min(lastStep(), i))].last);
  }
  // Mid-turn (after a jump to an event), forward first finishes that turn.
  const nextStep = () => (st.turns[st.step] && st.seq < st.turns[st.step].last ? seekStep(st.step) : seekStep(st.step + 1));
  const prevStep = () => (st.step === 0 ? seekSeq(1) : seekStep(st.step - 1));

  function play() {
    if (st.seq >= st.deltas.length) seekSeq(1);
    st.playing = true;
    st.timer = setInterval(nextStep, TURN_MS / st.speed);
    renderControls();
  }
  function pause() {
    if (!st.playing) return;
    st.playing = false;
    clearInterval(st.timer);
    renderControls();
  }

  function load(frames, title, seats = null) {
    pause();
    const deltas = perEvent(frames);
    st.deltas = deltas;
    st.views = foldViews(deltas);
    st.turns = turnSteps(st.views, deltas, (e) => game().isMove(e));
    st.title = title ?? st.title;
    st.seats = seats;
    st.error = null;
    st.loading = false;
    const wanted = Number(new URL(location.href).searchParams.get("step"));
    if (Number.isFinite(wanted) && wanted > 0 && st.turns.length) {
      st.step = Math.min(wanted, st.turns.length) - 1;
      st.seq = st.turns[st.step].last;
    } else {
      st.step = 0;
      st.seq = Math.min(1, deltas.length); // the start: the setup as dealt
    }
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
      // A broken file replaces what was shown: its error, and no longer the old game.
      pause();
      st.deltas = [];
      st.views = [null];
      st.turns = [];
      st.step = 0;
      st.seq = 0;
      st.title = "";
      st.seats = null;
      st.error = `${t("bad_record")}: ${e.code && e.code !== "bad_record" ? errorText(e.code, { message: e.message }) : e.message}`;
      st.loading = false;
      renderAll();
    }
  }

  function renderAll() { renderHead(); renderControls(); renderView(false); renderLog(); }

  const onKey = (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    if (e.key === "ArrowRight") nextStep();
    else if (e.key === "ArrowLeft") prevStep();
    else if (e.key === "Home") seekSeq(1);
    else if (e.key === "End") seekSeq(st.deltas.length);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  const offLang = onLangChange(renderAll);
  let gone = null; // the not-found page's cleanup, once shown

  renderAll();
  loadGameTitles().then(renderHead);
  loadCatalogues().then(async () => {
    if (!id) { renderAll(); return; }
    try {
      // The table's name is shown as soon as it is known: a long game's deltas take longer.
      const summary = api.getTable(id).catch(() => null).then((s) => {
        st.tableName = s ? s.name || null : null;
        if (!gone) renderHead();
        return s;
      });
      const [r, s] = await Promise.all([api.deltas(id, 0), summary]);
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
  return () => { installGlossary(null); hideTerm(); pause(); clearTimeout(urlTimer); document.removeEventListener("keydown", onKey); offLang(); if (gone) gone(); };
}
