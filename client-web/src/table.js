// The table page (/table/<id>): seating before the start, then the live board for players
// and spectators, the game log, fairness, and the final scoring.
import { hideTerm, installGlossary } from "./glossary.js";
import { tableName } from "./tablename.js";
import { adoptSeat, askNotifyOnce, currentAccount, tellTurn } from "./account.js";
import { api } from "./api.js";
import { gameTitle, loadGameTitles } from "./gametitles.js";
import { ServerClock, timeControlText } from "./clock.js";
import { TableConnection } from "./connection.js";
import { confirmDialog } from "./confirm.js";
import { errorText } from "./errors.js";
import { renderFairness } from "./fairness.js";
import { h, mount, randomHex, remount } from "./dom.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { gameModule, loadCatalogues } from "./games/index.js";
import { namedView, seatName, viewNames } from "./names.js";
import { kebab, optionFields, optionsText } from "./options.js";
import { notFoundPage } from "./notfound.js";
import { acceptInvitation, inviteForm } from "./friends.js";
import { ago, renderSeatsPanel, tickSeatsPanel } from "./presence.js";
import { ratingText } from "./profile.js";
import { PACES, Pacer } from "./pacer.js";
import { chatHello, chatPanel } from "./chat.js";
import { reportButton } from "./report.js";
import { renderResult } from "./result.js";
import { rulesHref, setRulesGame } from "./rulesnav.js";
import { Coach, isTutorial, tutorialOffer } from "./tutorial.js";
import { forgetSeat, keyFor, ownerFor, paceSetting, playerName, saveKey, saveOwner, savePace, saveSeat, savePlayerName, seatFor } from "./store.js";

/** True once the game has started (before, the server's view has no players). */
const started = (v) => !!(v && v.players && v.players.length);

const botLabel = (kind) => { const v = t(`bot_${kind}`); return v === `bot_${kind}` ? kind : v; };
/** The bot badge of a seat: its kind and, for mcts, its level. */
const botBadge = (x) => `${t("bot")}: ${botLabel(x.bot || "")}${x.level ? ` · ${t("level")} ${x.level}` : ""}`;

/** Mount the table page for table `id` into `root`; returns a cleanup function. */
export function tablePage(root, id) {
  // An invite link to a private table carries its secret after `#k=`; kept for reloads.
  const invited = new URLSearchParams(location.hash.slice(1)).get("k");
  if (invited) saveKey(id, invited);
  const saved = seatFor(id);
  const st = {
    summary: null,
    view: null,
    prev: null,
    events: new Map(), // seq -> projected event (the game log)
    record: null,
    botKinds: [{ kind: "random" }],
    games: {}, // name -> GET /api/games entry (its bot kinds)
    dialog: false, // a game's dialog is open (openDialog)
    focusKey: null, // the test id of the board's control last focused (restoreFocus)
    focusHand: false, // an action was sent: the focus goes to the hand (restoreFocus)
    notice: null,
    connState: "connecting",
    retryIn: null,
    logLoadedTo: 0,
    ratings: null, // per seat {username, rating, games, provisional} or null (guests)
    turnTold: false,
    lastMove: null, // the last shown move of a player (highlighted on the board)
    endedLive: false, // the game ended on this page: scroll its result into view once
  };
  const conn = new TableConnection(id, saved ? saved.token : null, keyFor(id));
  conn.seat = saved ? saved.seat : null; // until the welcome confirms (or refuses) it
  conn.helloExtra = chatHello();
  // Other seats' moves are shown at a pace people can follow (pacer.js); `conn.view` is
  // the true view at once, `pacer.shown` what the page shows now.
  const pacer = new Pacer((step) => showStep(step), () => mySeat(), (e) => game().isMove(e));
  const shownLog = []; // [seq, ms] of each shown step (tests read how the page paced)
  window.__cardtable = {
    page: "table", conn, view: () => conn.view, seq: () => conn.seq, seat: () => conn.seat, turnsTold: [],
    shown: () => (pacer.shown ? pacer.shown.seq : null), shownLog: () => shownLog, behind: () => pacer.behind,
  };

  const els = {
    top: h("div", { class: "topbar" }),
    banner: h("div", { class: "turn-banner", testid: "turn-banner", role: "status", "aria-live": "polite" }),
    main: h("div", { class: "table-main" }),
    score: h("div", { class: "score-area" }),
    result: h("div", { class: "result-area" }),
    side: h("aside", { class: "side" }),
    // The game log is read out as it grows: a polite live region of its additions (the
    // role `log` is not one a list may take, so the list keeps its own).
    log: h("ol", { class: "log", testid: "log", "aria-live": "polite", "aria-relevant": "additions" }),
    fair: h("div", {}),
    endLinks: h("div", {}),
    owner: h("div", {}),
    seats: h("div", {}),
    toast: h("div", { class: "toast", role: "alert", "aria-live": "assertive", testid: "toast" }),
    dialog: h("div", { class: "dialog-host" }),
    coach: h("div", { class: "coach-slot" }), // a tutorial's coach (tutorial.js)
    offer: h("div", { class: "offer-slot" }), // the first visit's offer of the game's tutorial, beside the board
  };
  const logHead = h("h2", {}, t("log"));
  const logPanel = h("section", { class: "panel log-panel", "aria-label": t("log"), testid: "log-panel" }, logHead, els.log);
  const chat = chatPanel(id, conn, () => viewNames(conn.view, seatsInfo()), { quiet: () => isTutorial(st.summary || conn.table) });
  mount(els.side, els.endLinks, els.seats, els.offer, chat.el, logPanel, els.owner, els.fair);
  mount(root, h("div", { class: "table-page" }, els.top, els.banner,
    h("div", { class: "layout" }, h("main", { class: "main-col" }, els.coach, els.result, els.main, els.score), els.side),
    els.toast, els.dialog));

  const seatsInfo = () => (st.summary || conn.table || {}).seats || null;
  /** The board module of this table's game (games/index.js). */
  const game = () => gameModule((st.summary || conn.table || {}).game || (conn.view && conn.view.game));
  installGlossary(game);  // the board's terms explain themselves (glossary.js)
  /** True when this browser's seat was handed to a bot mid-game (by the table's creator). */
  const handedOver = () => conn.seat !== null && ((seatsInfo() || [])[conn.seat] || {}).kind === "bot";
  /** This browser's seat; null for a spectator, and once the seat plays as a bot. */
  const mySeat = () => (handedOver() ? null : conn.seat);
  /** The view the page shows now (the pacer's, behind `conn.view` while moves queue). */
  const shownRaw = () => (pacer.shown && pacer.shown.view) || conn.view;
  /** The view as shown: bot seats named in the current language (names only: a rating
   *  is a badge of its own, never part of a name in banners or the log). */
  const shownView = () => namedView(shownRaw(), seatsInfo());
  /** The rating text of each seat of a rated table (its account's, or its bot's), or null. */
  const ratingTexts = () => ((st.summary || {}).rated && st.ratings ? st.ratings.map((r) => (r ? ratingText(r) : null)) : null);
  /** Ratings of a rated table's seats, shown as badges next to their names. */
  async function loadRatings() {
    const s = st.summary;
    if (!s || !s.rated) return;
    let body;
    try { body = await api.ratings(id); } catch { return; }
    st.ratings = body.seats;
    st.ratingVerdict = body.verdict || null;
    renderAll();
    // An ended rated game is settled in the background: ask again until its verdict is in.
    if (s.status === "ended" && !st.ratingVerdict && (st.ratingTries = (st.ratingTries || 0) + 1) <= 10) {
      setTimeout(loadRatings, 1000);
    }
  }
  /** The host's seat (null: the host holds none, so the creator's owner token is it). */
  const hostSeat = () => { const s = st.summary || conn.table; return s && s.host !== undefined ? s.host : null; };
  /** True when this browser holds the host role: it sits in the host's seat, or it
   *  created the table and the role is still the creator's (server/play/roles.py). */
  const isHost = () => (hostSeat() !== null ? mySeat() !== null && mySeat() === hostSeat() : !!ownerFor(id));
  /** The token to send for host calls. */
  const hostToken = () => (hostSeat() !== null && mySeat() === hostSeat() ? (seatFor(id) || {}).token : ownerFor(id));
  /** Only the host may start the game. */
  const canStart = () => isHost();
  const promptActions = () => {
    const p = conn.prompt;
    // `ackSeq > p.seq`: our answer to this prompt is stored, its deltas are on their way.
    if (!p || !conn.view || p.seq !== conn.seq || conn.ackSeq > p.seq || conn.view.phase === "ended" || handedOver()) return null;
    if (pacer.shown && pacer.shown.seq !== p.seq) return null; // the page is still showing earlier moves
    // A game may describe its legal actions compactly (`legal_form`, docs/protocol.md §2):
    // only its module reads that form.
    return game().groupActions(p.legal_actions ?? null, p.details ?? null, p.legal_form ?? null);
  };

  function notify(text) {
    st.notice = text;
    els.toast.textContent = text || "";
    els.toast.classList.toggle("show", !!text);
    clearTimeout(notify.timer);
    if (text) notify.timer = setTimeout(() => notify(null), 5000);
  }

  // ---- top bar -------------------------------------------------------------------
  function renderTop() {
    const s = st.summary;
    const known = st.summary || conn.table;
    setRulesGame(game().name);
    const key = keyFor(id);
    const link = `${location.origin}/table/${id}${key ? `#k=${key}` : ""}`;
    const copyBtn = h("button", { type: "button", class: "ghost small", testid: "copy-link", onclick: async () => {
      try { await navigator.clipboard.writeText(link); copyBtn.textContent = t("copied"); } catch { linkInput.select(); }
    } }, t("copy"));
    const linkInput = h("input", { class: "link", id: "share-link", readonly: true, value: link, testid: "share-link", onfocus: (e) => e.target.select() });
    const stateText = st.connState === "open" ? t("conn_open") : st.connState === "closed" ? t("conn_closed", { s: st.retryIn ?? 1 })
      : st.connState === "gone" ? t("conn_gone") : st.connState === "suspended" ? t("conn_suspended") : t("conn_connecting");
    mount(els.top,
      // The game's title and the table's name (tablename.js: one made for it when it has none).
      h("div", { class: "tname" }, h("h1", {}, s ? [h("span", { testid: "table-game" }, gameTitle(game().name)), " · "] : null,
        h("span", { testid: "table-title" }, s ? tableName(s, { withGame: false }) : id)),
        s ? h("span", { class: `badge st-${s.status}`, testid: "table-status" }, t(`status_${s.status}`)) : null,
        s && s.rated ? h("span", { class: "badge rated", testid: "rated-badge" }, t("rated")) : null,
        isTutorial(s) ? h("span", { class: "badge", testid: "tutorial-badge" }, t("tut_badge")) : null,
        // A tutorial table is private to its learner: no "private" badge, no invite link.
        s && s.private && !isTutorial(s) ? h("span", { class: "badge", testid: "private-badge", title: t("private_hint") }, t("private_badge")) : null,
        // The host who has not sat down yet is about to play, not watching: no badge then.
        conn.seat === null && (started(conn.view) || !isHost()) ? h("span", { class: "badge spectator", testid: "spectator-badge" }, t("spectator"))
          : handedOver() ? h("span", { class: "badge me", testid: "me-bot-badge" }, t("you_bot_plays")) : null),
      h("a", { class: "button ghost small", href: rulesHref(game().name), target: "_blank", rel: "noopener", testid: "table-rules" }, t("rules")),
      h("label", { class: "pace" }, t("pace"), " ", h("select", { testid: "pace", "aria-label": t("pace"), onchange: (e) => savePace(e.target.value) },
        Object.keys(PACES).map((k) => h("option", { value: k, selected: k === paceSetting() }, t(`pace_${k}`))))),
      // Only once the page knows the table is no tutorial (before its summary came, the
      // link would flash on a tutorial table).
      !known || isTutorial(known) ? null : h("div", { class: "share", testid: "share" }, h("label", { for: "share-link", testid: "share-label" }, t("share_link")), linkInput, copyBtn),
      h("div", { class: `conn conn-${st.connState}`, testid: "conn-status", dataset: { state: st.connState } }, h("span", { class: "dot", "aria-hidden": "true" }), stateText));
  }

  /** A choice of the bots the server offers (`kind` or `kind:level`) for `seat`. */
  /** The options schema of this table's game (GET /api/games). */
  const schema = () => (st.games[game().name] || {}).options_schema || null;
  const botKinds = () => (st.games[game().name] || {}).bots || st.botKinds;
  // The seating is redrawn on every table update: a choice made just before one must survive it.
  const botChoice = new Map();
  let nameDraft = null; // the name being typed, likewise
  let nameField = null; // its field, kept in the page while shown (focus and caret stay)
  const botSelect = (seat) => h("select", { testid: `bot-kind-${seat}`, "aria-label": t("bot_kind"), onchange: (e) => botChoice.set(seat, e.target.value) },
    botKinds().flatMap((k) => (k.levels && k.levels.length ? k.levels.map((l) => `${k.kind}:${l}`) : [k.kind])
      .map((value) => h("option", { value, selected: botChoice.get(seat) === value },
        value.includes(":") ? `${botLabel(value.split(":")[0])} · ${t("level")} ${value.split(":")[1]}` : botLabel(value)))));

  // ---- seating (before the start) ------------------------------------------------
  let invite = null; // the "invite by name" form, kept across redraws (friends.js)
  function renderSeating() {
    const s = st.summary;
    if (!s) return mount(els.main, h("p", {}, t("loading")));
    const mine = mySeat();
    const host = isHost();
    // A logged-in account sits under its own name (the server seats it so): no name field.
    const account = currentAccount();
    if (!nameField || nameField.lang !== currentLang() || !nameField.el.isConnected) {
      const input = h("input", { id: "player-name", testid: "name-input", maxlength: 32, value: nameDraft ?? playerName(), autocomplete: "nickname", "aria-label": t("your_name"), oninput: (e) => { nameDraft = e.target.value; } });
      nameField = { lang: currentLang(), input, el: h("div", { class: "field" }, h("label", { for: "player-name" }, t("your_name")), input) };
    }
    const nameInput = nameField.input;
    const allFilled = s.seats.every((x) => x.kind && !x.waiting);
    const seats = s.seats.map((x) => {
      const isMe = mine === x.seat;
      let body;
      if (!x.kind) {
        const kindSel = host ? botSelect(x.seat) : null;
        body = [
          h("div", { class: "occupant empty" }, t("empty_seat")),
          h("div", { class: "seat-actions" },
            mine === null ? h("button", { type: "button", class: "primary", testid: `take-seat-${x.seat}`, onclick: () => takeSeat(x.seat, account ? account.username : nameInput.value) }, t("take_seat")) : null,
            host ? h("div", { class: "bot-add" }, kindSel, h("button", { type: "button", testid: `add-bot-${x.seat}`, onclick: () => addBot(x.seat, kindSel.value) }, t("add_bot"))) : null),
        ];
      } else {
        const name = seatName(x.name, x.seat, x);
        body = [
          h("div", { class: "occupant" }, h("b", { testid: `seat-name-${x.seat}` }, name), " ",
            x.kind === "bot" ? h("span", { class: "badge", testid: `bot-badge-${x.seat}` }, botBadge(x)) : null,
            ratingTexts() && ratingTexts()[x.seat] ? h("span", { class: "badge rating", testid: `seat-rating-${x.seat}` }, ratingTexts()[x.seat]) : null,
            s.host === x.seat ? h("span", { class: "badge host", testid: `host-badge-${x.seat}` }, t("host")) : null,
            isMe ? h("span", { class: "badge me" }, t("you")) : null,
            x.waiting ? h("span", { class: "badge waiting", testid: `waiting-${x.seat}` }, t("rematch_waiting")) : null,
            x.kind === "human" ? h("span", { class: `seeded ${x.seeded ? "yes" : "no"}` }, x.seeded ? t("seeded") : t("not_seeded")) : null),
          h("div", { class: "seat-actions" },
            host && x.kind === "bot" ? h("button", { type: "button", class: "ghost", testid: `remove-bot-${x.seat}`, onclick: () => removeBot(x.seat) }, t("remove_bot")) : null,
            host && x.kind === "human" && !isMe ? h("button", { type: "button", class: "ghost", testid: `kick-${x.seat}`, onclick: () => kickSeat(x.seat, name) }, t("kick")) : null,
            isMe ? h("button", { type: "button", class: "ghost", testid: "leave-seat", onclick: leaveSeat }, t("leave_seat")) : null),
        ];
      }
      return h("li", { class: `seat${isMe ? " mine" : ""}`, testid: `seat-${x.seat}` }, h("span", { class: "seat-no" }, x.seat + 1), h("div", { class: "seat-body" }, body));
    });
    const opts = s.options || {};
    const form = host ? optionsForm(opts) : null;
    const children = [
      h("h2", {}, t("seats")),
      form || h("p", { class: "opts", testid: "options-text" }, optionsText(schema(), opts, game().name)),
      h("p", { class: "opts", testid: "time-control-text" }, `${t("time_control")}: ${timeControlText(s.time_control)}`),
      host ? h("p", { class: "hint", testid: "host-hint" }, t("you_host")) : null,
      mine === null && !account ? nameField.el : null,
      mine === null && account ? h("p", { class: "hint", testid: "sit-as" }, t("sit_as", { name: account.username })) : null,
      h("ol", { class: "seats" }, seats),
      // A seated account (or the creator) invites an account by name while a seat is free.
      account && (mine !== null || ownerFor(id)) && s.seats.some((x) => !x.kind) ? (invite ||= inviteForm(id, () => ownerFor(id))) : null,
      h("div", { class: "start-row" },
        host ? h("button", { type: "button", class: "primary big", testid: "start", disabled: !allFilled, onclick: startGame }, t("start_game")) : null,
        h("span", { class: "hint", testid: "start-hint" }, !host ? t("start_by_others") : allFilled ? "" : t("start_needs"))),
    ];
    // The host's form stays in the page while its options do, the name field while it is
    // shown: a field being typed in keeps its text, focus and caret when someone joins.
    const section = els.main.firstElementChild;
    if (section && section.dataset.testid === "seating") remount(section, children);
    else mount(els.main, h("section", { class: "panel seating", testid: "seating" }, children));
  }

  // The host's options form and what it was drawn from (game, language, schema, options):
  // the seating is redrawn on every table update, the form only when one of these changes
  // (another tab of the host changed an option) or after the host's own change was answered.
  let optsForm = null;
  /** The host's options (before the start): each change is sent at once. */
  function optionsForm(opts) {
    const key = JSON.stringify([game().name, currentLang(), schema(), opts]);
    if (!optsForm || optsForm.key !== key || !optsForm.el.isConnected) {
      optsForm = { key, el: h("div", { class: "opts-form", testid: "options-form" },
        optionFields(schema(), opts, (k, value) => setOptions({ [k]: value }),
          (k) => ({ id: `opt-${kebab(k)}`, testid: `opt-${kebab(k)}` }), game().name)) };
    }
    return optsForm.el;
  }

  async function guard(fn) {
    try { await fn(); } catch (e) { notify(errorText(e.code, { message: e.message, seat: e.seat }, game().errorTexts)); }
  }
  const takeSeat = (seat, rawName) => guard(async () => {
    askNotifyOnce(); // the click is the moment a browser lets a page ask
    const name = (rawName || "").trim();
    if (!name || name.length > 32) { notify(t("name_required")); return; }
    if (!currentAccount()) savePlayerName(name); // a guest's name for the next table
    // The creator sits with its owner token, so the server knows the host's seat.
    let r;
    try {
      r = await api.join(id, name, seat, ownerFor(id) || undefined);
    } catch (e) {
      if (e.code !== "seated" && e.code !== "bad_token") throw e;
      r = await api.join(id, name, seat); // that token sits elsewhere already: a fresh one
    }
    saveSeat(id, { seat: r.seat, token: r.token, name });
    notify(null); // an earlier complaint (no name) is answered now
    // Our share of the randomness: drawn here, committed before the start (CONTRACT §2).
    st.summary = await api.seed(id, r.token, randomHex(32));
    conn.reconnectNow(r.token);
    renderAll();
  });
  const addBot = (seat, choice) => guard(async () => {
    const [kind, level] = choice.split(":");
    st.summary = await api.addBot(id, seat, kind, level ? Number(level) : undefined, hostToken());
    renderAll();
  });
  const removeBot = (seat) => guard(async () => { st.summary = await api.removeBot(id, seat, hostToken()); renderAll(); });
  const kickSeat = (seat, name) => guard(async () => {
    if (!(await ask(t("kick_confirm", { name }), t("kick")))) return;
    st.summary = await api.kick(id, seat, hostToken());
    renderAll();
  });
  const setOptions = (change) => guard(async () => {
    try {
      st.summary = await api.setOptions(id, hostToken(), change);
    } finally {
      optsForm = null;
      renderAll(); // a refused change shows the options as they are
    }
  });
  const leaveSeat = () => guard(async () => {
    const s = seatFor(id);
    if (s) await api.leave(id, s.token);
    forgetSeat(id);
    conn.reconnectNow(null);
    st.summary = await api.getTable(id);
    renderAll();
  });
  const startGame = () => guard(async () => {
    st.summary = await api.start(id, hostToken());
    renderAll();
  });

  // ---- the game ------------------------------------------------------------------
  function onAction(action) {
    closeDialog();
    // The lesson needs another move: said in the coach; the board drops what was chosen.
    if (coach && !coach.allows(action)) { renderBoardNow(false); return; }
    if (!conn.act(action)) { notify(t("conn_connecting")); return; }
    st.focusHand = els.main.contains(document.activeElement) || document.activeElement === document.body;
    renderBoardNow(false);
  }

  // Keyboard focus across the board's redraws (every delta replaces it): on the control of
  // the same test id when it is still there; after an action, on the hand (its first
  // control that takes a key once the next prompt comes, the hand itself until then).
  // Only focus the redraw lost is moved: one on the chat or a link elsewhere stays.
  els.main.addEventListener("focusin", (e) => { st.focusKey = e.target.dataset ? e.target.dataset.testid || null : null; });
  function restoreFocus() {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const hand = els.main.querySelector("[data-testid=my-hand]");
    const pick = 'button:not([disabled]), [tabindex="0"]';
    // A card of the hand that takes a key, else the hand's first action (a draw): shown
    // only while the board shows this seat's prompt.
    const control = hand && (hand.querySelector(`[data-zone=hand] :is(${pick})`)
      || hand.querySelector(`[data-testid=actions] :is(${pick})`));
    const same = st.focusKey && els.main.querySelector(`[data-testid="${CSS.escape(st.focusKey)}"]`);
    let target = null;
    const prompted = conn.prompt && !conn.pending && conn.prompt.seq === conn.seq;
    if (st.focusHand && control && prompted) { target = control; st.focusHand = false; }
    else if (same && same !== hand && same.matches(pick)) target = same;
    else if (hand && (st.focusHand || st.focusKey)) target = hand;
    if (!target) return;
    if (target === hand && !hand.hasAttribute("tabindex")) hand.tabIndex = -1;
    target.focus({ preventScroll: true });
  }

  /** Show a dialog a game module built (the board's `ctx.openDialog`, e.g. a choice among
   *  legal actions one button stands for) over the page, modal: Escape, a click beside
   *  it, an action sent or leaving the page closes it. */
  function openDialog(el) {
    st.dialog = true;
    mount(els.dialog, h("div", { class: "backdrop", onclick: (e) => { if (e.target === e.currentTarget) closeDialog(); },
      onkeydown: (e) => { if (e.key === "Escape") closeDialog(); } }, el));
    const first = el.querySelector("button");
    if (first) first.focus();
  }
  function closeDialog() {
    if (!st.dialog) return;
    st.dialog = false;
    mount(els.dialog);
    if (dialogClosed) { const done = dialogClosed; dialogClosed = null; done(); }
  }
  let dialogClosed = null; // how an open confirmation learns it was closed unanswered
  /** Ask `question` in the page's own dialog (confirm.js); resolves true when confirmed
   *  with the `yes` button, false when cancelled or closed (Escape, a click beside it). */
  function ask(question, yes) {
    return new Promise((resolve) => {
      closeDialog();
      const answer = (v) => { dialogClosed = null; closeDialog(); resolve(v); };
      openDialog(confirmDialog(question, yes, { onYes: () => answer(true), onCancel: () => answer(false) }));
      dialogClosed = () => resolve(false);
      // Declining is the safe default: Enter on an unread question changes nothing.
      const cancel = els.dialog.querySelector("[data-testid=confirm-cancel]");
      if (cancel) cancel.focus();
    });
  }

  /** Before the start: what is missing, or (every seat filled) who may start the game. */
  function waitingText() {
    const s = st.summary;
    if (!s || s.status !== "open") return "";
    if (s.seats.some((x) => x.waiting)) return t("rematch_waiting_start");
    if (!s.seats.every((x) => x.kind)) return isHost() ? t("waiting_start") : t("waiting_host");
    return canStart() ? t("ready_start") : t("ready_start_others");
  }

  function renderBanner() {
    if (!started(conn.view)) {
      els.banner.className = "turn-banner";
      els.banner.dataset.phase = "setup";
      const text = waitingText();
      mount(els.banner, text ? h("strong", { testid: "waiting-text" }, text) : "");
      return;
    }
    const v = shownView();
    const acts = promptActions();
    const mine = mySeat();
    const myTurn = acts && acts.any;
    let hint = "";
    // Ended without the game's own end: the administration voided it (game_voided). Not
    // "ended while the shown view has not": a spectator's paced view lags behind the end.
    const summary = st.summary || conn.table || {};
    const voided = summary.status === "ended" && !!summary.voided && v.phase !== "ended";
    if (voided) hint = t("ev_game_voided", { reason: summary.voided || "admin" });
    else if (myTurn) hint = game().turnHint(v);
    else if (v.phase !== "ended" && v.current_seat !== null && v.current_seat !== undefined && v.current_seat !== mine) hint = t("waiting_for", { name: v.players[v.current_seat].name });
    else if (conn.seat === null && v.phase !== "ended") hint = t("spectating");
    els.banner.className = `turn-banner${myTurn ? " mine" : ""}${v.phase === "ended" ? " ended" : ""}`;
    // A tab in the background shows in its title that it is your turn.
    document.title = myTurn ? `▶ ${t("your_turn")} · ${gameTitle(game().name)}` : gameTitle(game().name);
    els.banner.dataset.phase = v.phase;
    els.banner.dataset.step = v.step ?? "";
    els.banner.dataset.myTurn = myTurn ? "1" : "0";
    if (v.phase === "ended" && v.result) hint = game().winnersText(v);
    const anchor = game().rulesAnchor ? game().rulesAnchor(v) : null; // a game with a rules page
    const last = v.phase !== "ended" ? st.lastMove : null;
    mount(els.banner, h("strong", { testid: "turn-text" }, game().turnText(v, mine)), hint ? h("span", { class: "hint" }, hint) : null,
      v.phase !== "ended" && !voided ? leftNotice(v) : null,
      anchor === null ? null : h("a", { class: "hint rules-hint", href: `${rulesHref(game().name)}#${anchor}`, target: "_blank", rel: "noopener", testid: "hint-rules" }, t("rules_hint")),
      last ? h("span", { class: "last-move-text", testid: "last-move" }, `${t("last_move")}: `, game().describeEvent(last, viewNames(shownRaw(), seatsInfo()))) : null,
      // The full breakdown is below the board: one click away from the end banner.
      v.phase === "ended" && v.result ? h("button", { type: "button", class: "small", testid: "jump-scores",
        onclick: () => { const el = els.score.querySelector("[data-testid=score]"); if (el) el.scrollIntoView({ behavior: "smooth", block: "start" }); } }, t("see_scores")) : null);
  }

  /** At a table without a clock nothing moves a player who left on: the banner says the
   *  player to move has left, since when, and (once gone, server/play/seat_rules.py) offers
   *  the host its handover and another player the claim right there; null otherwise. */
  function leftNotice(v) {
    const seat = v.current_seat;
    const s = st.summary || conn.table || {};
    const tc = s.time_control;
    if (seat === null || seat === undefined || seat === mySeat() || (tc && tc.kind !== "none")) return null;
    const x = (s.seats || [])[seat];
    const p = ((conn.presence && conn.presence.seats) || [])[seat];
    if (!x || x.kind !== "human" || !p || (p.state !== "away" && p.state !== "gone") || !p.since) return null;
    const name = v.players[seat].name;
    const gone = p.state === "gone";
    let offer = null;
    if (gone && isHost()) {
      const sel = botSelect(seat);
      offer = h("span", { class: "bot-add" }, sel, h("button", { type: "button", class: "primary small", testid: "banner-hand-to-bot",
        onclick: () => handToBot(seat, name, sel.value) }, t("hand_to_bot")));
    } else if (gone && mySeat() !== null && ((s.seats || [])[mySeat()] || {}).kind === "human") {
      offer = h("button", { type: "button", class: "primary small", testid: "banner-claim", onclick: () => claimSeat(seat, name) }, t("claim_seat"));
    } else if (!gone && tc && tc.claim_after && (isHost() || mySeat() !== null)) {
      offer = h("span", { class: "hint", testid: "left-handover-later" }, t("left_handover_after", { d: ago(tc.claim_after) }));
    }
    return h("span", { class: "left-notice", testid: "left-notice", dataset: { state: p.state } },
      h("span", { testid: "left-text", dataset: { leftSince: p.since, name } }, t("player_left", { name, d: ago(serverClock.now() - p.since) })), " ", offer);
  }
  /** The "left … ago" of the banner, ticking with the seats panel's clocks. */
  function tickBanner() {
    for (const el of els.banner.querySelectorAll("[data-left-since]")) {
      el.textContent = t("player_left", { name: el.dataset.name, d: ago(serverClock.now() - Number(el.dataset.leftSince)) });
    }
  }

  // Deltas often come in bursts (a bot's whole turn): draw once per frame, not per delta.
  let scheduled = null;
  function scheduleBoard(animate) {
    if (scheduled) { scheduled.animate ||= animate; return; }
    scheduled = { animate };
    const run = () => { const a = scheduled.animate; scheduled = null; renderBoardNow(a); };
    if (document.hidden) setTimeout(run, 0);
    else requestAnimationFrame(run);
  }

  function renderBoardNow(animate = true) {
    const v = shownView();
    if (!started(v)) { renderSeating(); return; }
    const ctx = { mySeat: conn.seat, actions: promptActions(), onAction, openDialog, closeDialog, prev: st.prev, pending: !!conn.pending,
      lastEvent: st.lastMove };
    const g = game();
    if (g.setCardContext) g.setCardContext(v);
    const focused = els.main.contains(document.activeElement);
    if (animate) g.flipRender(els.main, () => g.renderBoard(v, ctx));
    else mount(els.main, g.renderBoard(v, ctx));
    if (focused || st.focusHand) restoreFocus();
    renderBanner();
    mount(els.score, v.result ? g.renderScore(v) : null);
    renderResultPanel();
    updateCoach(v, ctx.actions);
  }

  // ---- a tutorial's coach (tutorial.js), or the offer of one -----------------------
  let coach = null;
  let offered = false; // the first visit's offer was considered on this page
  /** Once the table is known: the coach at a tutorial table where this browser plays, or
   *  else (once per browser and game) the offer of the game's tutorial. */
  function placeCoach() {
    const s = st.summary;
    const lesson = game().lesson;
    if (!s || !lesson) return;
    if (isTutorial(s)) {
      if (!coach && mySeat() !== null) {
        coach = new Coach(lesson, game(), () => { history.pushState(null, "", "/"); window.dispatchEvent(new PopStateEvent("popstate")); });
        mount(els.coach, coach.el);
        // The board may be drawn already, with this seat's prompt: point at once, not at
        // the next redraw (which may never come while the learner is to move).
        if (started(shownRaw())) updateCoach(shownView(), promptActions());
      }
    } else if (!offered) {
      offered = true;
      const offer = tutorialOffer(game().name, () => mount(els.offer));
      if (offer) mount(els.offer, offer);
    }
  }
  // A game module redraws parts of its board on its own (a card selected): the coach
  // points again at what the new board shows.
  const boardWatch = new MutationObserver(() => { if (coach && started(shownRaw())) updateCoach(shownView(), promptActions()); });
  boardWatch.observe(els.main, { childList: true, subtree: true });
  /** The coach follows the shown view: the learner's moves in the log so far, the prompt. */
  function updateCoach(v, actions) {
    if (!coach) return;
    // Resigned (or otherwise handed to a bot): the lesson ends there.
    if (handedOver()) coach.end(((seatsInfo() || [])[conn.seat] || {}).resigned ? "tut_resigned" : "tut_left");
    const g = game();
    const moves = [...st.events.keys()].sort((a, b) => a - b).map((k) => st.events.get(k))
      .filter((e) => e && g.isMove(e) && g.eventSeat(e) === mySeat());
    const p = conn.prompt;
    // A move sent and not yet answered: the prompt shown is already spent, so the coach
    // points at nothing until what comes next (its lesson's step may not have moved on yet,
    // and would point at the move just made again).
    const legal = actions && actions.any && p && !conn.pending ? (p.legal_actions || []) : null;
    // Still the learner's turn between two prompts of it (a lay, then the draw): the coach
    // must not say the bot is playing.
    const ownTurn = v.phase !== "ended" && mySeat() !== null && v.current_seat === mySeat();
    coach.update({ view: v, legal, ownTurn, form: legal && p ? p.legal_form || null : null, actions, moves, board: els.main });
  }

  // ---- result and rematch --------------------------------------------------------
  let rematchBusy = false;
  function renderResultPanel() {
    const v = shownView();
    const ended = started(v) && v.phase === "ended" && v.result;
    mount(els.result, ended ? renderResult(v, { summary: st.summary || conn.table, mySeat: mySeat(), onRematch: rematch, busy: rematchBusy, ratings: st.ratings, verdict: st.ratingVerdict, tableId: id, analysis: st.analysis, onAnalysis: (a) => { st.analysis = a; renderResultPanel(); } }) : null);
    // The game has just ended while watched: the result (and the rematch) come into view
    // once, e.g. on a phone scrolled down to the players' rows.
    const panel = els.result.firstElementChild;
    if (ended && st.endedLive && panel) {
      st.endedLive = false;
      const r = panel.getBoundingClientRect();
      if (r.top < 0 || r.bottom > window.innerHeight) panel.scrollIntoView({ block: "start" });
    }
  }
  /** One click: create or accept the rematch with this seat's token, then go there. */
  const rematch = () => guard(async () => {
    const s = seatFor(id);
    if (!s || rematchBusy) return;
    rematchBusy = true;
    renderResultPanel();
    try {
      const r = await api.rematch(id, s.token, randomHex(32));
      saveSeat(r.table.id, { seat: r.seat, token: r.token, name: s.name });
      if (r.owner) saveOwner(r.table.id, r.token);
      if (keyFor(id)) saveKey(r.table.id, keyFor(id)); // a private table's rematch: same invite
      history.pushState(null, "", `/table/${encodeURIComponent(r.table.id)}`);
      window.dispatchEvent(new PopStateEvent("popstate"));
    } finally {
      rematchBusy = false;
      renderResultPanel();
    }
  });

  // ---- log -----------------------------------------------------------------------
  function logEntry(seq, e, names) {
    const g = game();
    const seat = g.eventSeat(e);
    return h("li", { class: `${g.isMajor(e) ? "major " : ""}${seat !== null ? `seat-${seat}` : ""}`, dataset: { seq } , testid: `log-${seq}` },
      h("span", { class: "lseq" }, seq), " ", g.describeEvent(e, names));
  }
  function renderLog() {
    logPanel.hidden = !started(conn.view) && st.events.size === 0;
    logHead.textContent = t("log");
    els.log.dataset.empty = t("log_empty");
    logPanel.setAttribute("aria-label", t("log"));
    const names = viewNames(conn.view, seatsInfo());
    const keys = [...st.events.keys()].sort((a, b) => a - b);
    mount(els.log, keys.map((k) => logEntry(k, st.events.get(k), names)));
    els.log.scrollTop = els.log.scrollHeight;
  }
  function appendLog(seq, e) {
    if (st.events.has(seq)) return;
    st.events.set(seq, e);
    const names = viewNames(conn.view, seatsInfo());
    const last = els.log.lastElementChild;
    if (last && Number(last.dataset.seq) > seq) { renderLog(); return; }
    const stick = els.log.scrollHeight - els.log.scrollTop - els.log.clientHeight < 40;
    els.log.append(logEntry(seq, e, names));
    if (stick) els.log.scrollTop = els.log.scrollHeight;
  }
  async function loadLog(upTo) {
    if (upTo <= st.logLoadedTo) return;
    try {
      const r = await api.events(id, 0, (seatFor(id) || {}).token); // a seat's log holds its own draws
      r.events.forEach((e, i) => { if (!st.events.has(i + 1)) st.events.set(i + 1, e); });
      st.logLoadedTo = r.seq;
      renderLog();
    } catch { /* the log fills from live deltas */ }
  }

  // ---- the owner's seats (during the game) ----------------------------------------
  /** The table's host may hand a person's seat to a bot for the rest of the game once
   *  that person is gone (as for a claim), never its own seat; the server decides
   *  (server/play/seat_rules.py), the page offers only the seats the presence shows gone. */
  function renderOwner() {
    const s = st.summary || conn.table;
    const v = conn.view;
    // A seat held by the person looking is never offered (they are here), nor a seat
    // whose player is not gone: the server refuses it (server/play/seat_rules.py).
    const pres = (conn.presence && conn.presence.seats) || [];
    const humans = s && s.seats ? s.seats.filter((x) => x.kind === "human" && x.seat !== mySeat()
      && pres[x.seat] && pres[x.seat].state === "gone") : [];
    if (!isHost() || !started(v) || v.phase === "ended" || !humans.length) { mount(els.owner); return; }
    mount(els.owner, h("section", { class: "panel owner-panel", testid: "owner-panel", "aria-label": t("owner_seats") },
      h("h2", {}, t("owner_seats")),
      h("p", { class: "hint" }, t("owner_seats_hint")),
      h("ul", { class: "owner-seats" }, humans.map((x) => {
        const sel = botSelect(x.seat);
        const name = seatName(x.name, x.seat, x);
        return h("li", { testid: `owner-seat-${x.seat}` }, h("b", {}, name),
          h("div", { class: "bot-add" }, sel, h("button", { type: "button", testid: `hand-to-bot-${x.seat}`, onclick: () => handToBot(x.seat, name, sel.value) }, t("hand_to_bot"))));
      }))));
  }
  const handing = new Set(); // seats with a handover request in flight (double clicks)
  const handToBot = (seat, name, choice) => guard(async () => {
    if (handing.has(seat) || !(await ask(t("hand_to_bot_confirm", { name }), t("hand_to_bot")))) return;
    const [kind, level] = choice.split(":");
    handing.add(seat);
    try {
      st.summary = await api.addBot(id, seat, kind, level ? Number(level) : undefined, hostToken());
    } catch (e) {
      // Another tab of the owner was quicker: what was asked for is done.
      if (e.code !== "seat_taken") throw e;
      st.summary = await api.getTable(id);
    } finally {
      handing.delete(seat);
    }
    renderOwner();
    renderBoardNow(false);
  });

  // ---- presence, clocks, who plays each seat (presence.js) -------------------------
  const serverClock = new ServerClock();
  // `over`: the true view has ended (the paced one may still show the last moves): no
  // resigning or claiming then.
  const seatsState = () => ({ summary: st.summary || conn.table, view: shownView(), over: !!(conn.view && conn.view.phase === "ended"), presence: conn.presence,
    clock: conn.clock, now: serverClock.now(), ratings: ratingTexts(), mySeat: conn.seat, onClaim: claimSeat, onResign: resign, onReturn: takeBack,
    onReport: (x) => reportButton(x.name, { table: id, seat: x.seat }, `report-seat-${x.seat}`) });
  function renderSeats() {
    if (!started(conn.view)) { mount(els.seats); return; }
    mount(els.seats, renderSeatsPanel(seatsState()));
  }
  const ticker = setInterval(() => { tickSeatsPanel(els.seats, seatsState()); tickBanner(); }, 500);
  const myToken = () => (seatFor(id) || {}).token;
  const seatCall = (fn) => guard(async () => {
    st.summary = await fn();
    renderSeats();
    renderBoardNow(false);
  });
  const claimSeat = async (seat, name) => { if (await ask(t("claim_confirm", { name }), t("claim_seat"))) seatCall(() => api.claim(id, seat, myToken())); };
  const resign = async () => { if (await ask(t("resign_confirm"), t("resign"))) seatCall(() => api.resign(id, myToken())); };
  const takeBack = () => seatCall(() => api.takeBack(id, myToken()));

  // ---- end of game ---------------------------------------------------------------
  async function loadRecord() {
    if (st.record || !conn.view || conn.view.phase !== "ended") return;
    try {
      st.record = await api.record(id);
      renderEnd();
    } catch { /* shown once available */ }
  }
  function renderEnd() {
    renderOwner();
    const ended = started(conn.view) && conn.view.phase === "ended";
    mount(els.fair, renderFairness(st.summary || conn.table, st.record, !started(conn.view)));
    if (!ended) { mount(els.endLinks); return; }
    let download = null;
    if (st.record) {
      const url = URL.createObjectURL(new Blob([JSON.stringify(st.record, null, 2)], { type: "application/json" }));
      download = h("a", { class: "button", href: url, download: `${game().name}-${id}.json`, testid: "download-record" }, t("download_record"));
    }
    mount(els.endLinks, h("div", { class: "panel end-links" },
      h("a", { class: "button primary", href: `/replay/${id}`, "data-link": true, testid: "open-replay" }, t("open_replay")),
      download,
      h("a", { class: "button ghost", href: "/", "data-link": true }, t("back_to_lobby"))));
  }

  function renderAll() {
    renderTop();
    renderSeats();
    chat.render();
    if (started(conn.view)) renderBoardNow(false);
    else renderSeating();
    renderBanner();
    renderLog();
    renderEnd();
  }

  // ---- wiring --------------------------------------------------------------------
  // An unknown, expired or (without its secret) private table: a page that says so.
  let gone = null;
  conn.addEventListener("status", (e) => {
    st.connState = e.detail.state;
    st.retryIn = e.detail.retryIn;
    if (st.connState === "gone" && !gone) {
      conn.stop();
      offLang();
      closeDialog();
      gone = notFoundPage(root);
      return;
    }
    if (!gone) renderTop();
  });
  conn.addEventListener("welcome", (e) => {
    st.summary = e.detail.table;
    placeCoach();
    tellHandedOver();
    if (e.detail.view) { st.prev = null; loadLog(conn.seq); }
    renderAll();
    loadRecord();
    loadRatings();
  });
  // Told once each time a bot starts playing this browser's seat (timeout, claim,
  // handover, resignation). The token is kept: the seat can be taken back (unless resigned).
  let handedTold = false;
  function tellHandedOver() {
    if (!handedOver()) { handedTold = false; return; }
    if (handedTold) return;
    handedTold = true;
    const resigned = ((seatsInfo() || [])[conn.seat] || {}).resigned;
    notify(t(resigned ? "seat_resigned_notice" : "seat_bot_notice"));
    if (started(conn.view)) renderBoardNow(false);
  }
  conn.addEventListener("table", (e) => {
    const ended = st.summary && st.summary.status !== "ended" && e.detail.status === "ended";
    st.summary = e.detail;
    if (ended || !st.ratings) loadRatings(); // the new ratings once the game is settled
    tellHandedOver();
    renderTop();
    if (!started(conn.view)) { renderSeating(); renderBanner(); } else renderBoardNow(false);
    renderSeats();
    renderEnd();
  });
  for (const kind of ["clock", "presence"]) {
    conn.addEventListener(kind, (e) => { serverClock.sync(e.detail.now); renderSeats(); });
  }
  conn.addEventListener("presence", () => { renderOwner(); if (started(conn.view)) renderBanner(); }); // a seat became gone, or came back
  conn.addEventListener("delta", (e) => {
    // One step per frame (an action's events together): paced as the move it carries.
    const { delta, events, view } = e.detail;
    if (view && view.current_seat !== mySeat()) st.turnTold = false;
    const evs = events.map((x) => x.event);
    const move = evs.find((x) => game().isMove(x)) || evs[evs.length - 1] || null;
    pacer.push({ seq: delta.seq, event: move, events, view });
    if (view && view.phase === "ended") renderSeats(); // the seat calls go at once
  });
  conn.addEventListener("view", (e) => { if (e.detail.full) pacer.reset(conn.view, conn.seq); });
  /** Draw one step of the pacer: a delta's view (with its event), or a full view. */
  let prevView = null;
  function showStep(step) {
    const shownAt = Math.round(performance.now());
    for (const x of step.events || [step]) shownLog.push([x.seq, shownAt]);
    if (shownLog.length > 2000) shownLog.splice(0, 1000);
    st.prev = step.event ? prevView : null;
    if (started(prevView) && prevView.phase !== "ended" && started(step.view) && step.view.phase === "ended") st.endedLive = true;
    prevView = step.view;
    if (!step.event) st.lastMove = null;
    else if (game().isMove(step.event)) st.lastMove = step.event;
    if (step.event) {
      for (const x of step.events || [{ seq: step.seq, event: step.event }]) appendLog(x.seq, x.event);
      if ((step.events || [step])[0].seq === 1) { logPanel.hidden = false; renderTop(); renderEnd(); renderSeats(); }
    }
    if (started(step.view)) {
      scheduleBoard(!!step.event);
      if (step.view.phase === "ended") { loadRecord(); els.log.scrollTop = els.log.scrollHeight; }
    } else if (!step.event) {
      renderSeating();
    }
  }
  conn.addEventListener("prompt", () => {
    if (started(conn.view)) scheduleBoard(false);
    // It has just become this seat's turn: once per turn, however many prompts it brings.
    if (!st.turnTold && mySeat() !== null && conn.view && conn.view.phase !== "ended") {
      st.turnTold = true;
      window.__cardtable.turnsTold.push({ seq: conn.seq, done: tellTurn((st.summary && st.summary.name) || id) });
    }
  });
  // The answered prompt is no longer offered (promptActions), though its deltas may follow.
  conn.addEventListener("ack", () => { renderBanner(); if (started(conn.view)) scheduleBoard(false); });
  conn.addEventListener("error", (e) => {
    const m = e.detail;
    if (m.code && m.code.startsWith("chat_")) return; // shown in the chat panel
    notify(errorText(m.code, { message: m.message }, game().errorTexts));
    if (coach) coach.refused(m.code, m.message);
    if (conn.view) renderBoardNow(false);
  });
  conn.addEventListener("seat_lost", () => { forgetSeat(id); notify(t("seat_lost")); });

  /** A logged-in account opening a table this browser holds no token for (a second
   *  device): the seat (and creator) token the account keeps there, whatever the table's
   *  status (docs/protocol.md, "Accounts"); nothing when it holds none. Asking renews
   *  the tokens (the server keeps hashes only), so a browser holding this table's
   *  creator token (the device that created it, about to sit with it) does not ask. */
  async function adoptAccountSeat() {
    if (seatFor(id) || ownerFor(id) || !currentAccount() || !(await adoptSeat(id))) return;
    const s = seatFor(id);
    if (s && !conn.token) { conn.token = s.token; conn.seat = s.seat; }
  }

  /** Opened from an invitation (`#invited`): the account takes the seat it holds. */
  async function takeInvitation() {
    if (seatFor(id)) return;
    const r = await acceptInvitation(id, notify);
    if (!r) return;
    saveSeat(id, { seat: r.seat, token: r.token, name: currentAccount().username });
    conn.token = r.token;
    conn.seat = r.seat;
    // Our share of the randomness, as at any join (CONTRACT §2).
    try { st.summary = await api.seed(id, r.token, randomHex(32)); } catch { /* the welcome brings the table */ }
  }

  const offLang = onLangChange(renderAll);
  renderAll();
  Promise.all([loadCatalogues(), loadGameTitles(), api.botKinds().then((k) => { st.botKinds = k; }), adoptAccountSeat().then(takeInvitation),
    api.games().then((d) => { for (const g of d.games) st.games[g.name] = g; }).catch(() => {})])
    .catch(() => {})
    .then(() => { renderAll(); conn.start(); });

  return () => { boardWatch.disconnect(); installGlossary(null); hideTerm(); offLang(); pacer.stop(); conn.stop(); closeDialog(); clearInterval(ticker); if (gone) gone(); };
}
