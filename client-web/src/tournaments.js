// Tournaments (docs/protocol.md §8): the list with the form to create one (/tournaments),
// a tournament's page (/tournament/<id>: schedule, standings, current boards with links to
// watch or play, results) kept live by /ws/tournaments/<id>, and the rows the lobby and
// profiles show.
import { currentAccount } from "./account.js";
import { call } from "./api.js";
import { h, mount } from "./dom.js";
import { dateTimeText, LANGS, onLangChange, t } from "./i18n.js";
import { gameNames, gameTitle, loadGameTitles } from "./gametitles.js";
import "./i18n-accounts.js";

Object.assign(LANGS.en, {
  nav_tournaments: "Tournaments",
  tournaments: "Tournaments",
  tournament_new: "New tournament",
  tournament_name: "Name",
  tournament_kind: "Kind",
  kind_swiss: "Swiss",
  kind_arena: "Arena",
  tournament_rounds: "Rounds",
  tournament_minutes: "Minutes",
  tournament_seats: "Seats per table",
  tournament_starts_in: "Starts in (minutes)",
  tournament_clock: "Clock",
  clock_fast: "Live, fast",
  clock_normal: "Live, normal",
  clock_slow: "Live, slow",
  clock_async1: "1 day per move",
  tournament_rated: "Rated",
  tournament_create: "Create",
  tournament_log_in: "Log in to create or join a tournament.",
  no_tournaments: "No tournaments.",
  t_status_scheduled: "scheduled",
  t_status_running: "running",
  t_status_finished: "finished",
  t_status_cancelled: "cancelled",
  t_join: "Join",
  t_withdraw: "Withdraw",
  t_start_now: "Start now",
  t_play: "Play your game",
  t_watch: "Watch",
  t_standings: "Standings",
  t_boards: "Current games",
  t_results: "Results",
  t_schedule: "Schedule",
  t_round: ({ n }) => `Round ${n}`,
  t_rounds_of: ({ n, of }) => `round ${n} of ${of}`,
  t_minutes_n: ({ n }) => (n === 1 ? "1 minute" : `${n} minutes`),
  t_players_n: ({ n }) => (n === 1 ? "1 player" : `${n} players`),
  t_starts: ({ when }) => `starts ${when}`,
  t_started: ({ when }) => `started ${when}`,
  t_ends: ({ when }) => `pairing ends ${when}`,
  t_by: ({ name }) => `by ${name}`,
  t_bye: "bye",
  t_points: "Points",
  t_buchholz: "Buchholz",
  t_sb: "S-B",
  t_wins: "Wins",
  t_games: "Games",
  t_withdrawn: "withdrawn",
  t_won: "won",
  t_place: ({ n }) => `place ${n}`,
  t_tiebreaks: "Ties are broken by Buchholz, then Sonneborn-Berger, then wins.",
  t_tiebreaks_arena: "Ties are broken by wins, then fewer games.",
});
Object.assign(LANGS.de, {
  nav_tournaments: "Turniere",
  tournaments: "Turniere",
  tournament_new: "Neues Turnier",
  tournament_name: "Name",
  tournament_kind: "Art",
  kind_swiss: "Schweizer System",
  kind_arena: "Arena",
  tournament_rounds: "Runden",
  tournament_minutes: "Minuten",
  tournament_seats: "Plätze pro Tisch",
  tournament_starts_in: "Beginnt in (Minuten)",
  tournament_clock: "Uhr",
  clock_fast: "Live, schnell",
  clock_normal: "Live, normal",
  clock_slow: "Live, langsam",
  clock_async1: "1 Tag pro Zug",
  tournament_rated: "Gewertet",
  tournament_create: "Anlegen",
  tournament_log_in: "Melde dich an, um ein Turnier anzulegen oder mitzuspielen.",
  no_tournaments: "Keine Turniere.",
  t_status_scheduled: "geplant",
  t_status_running: "läuft",
  t_status_finished: "beendet",
  t_status_cancelled: "abgesagt",
  t_join: "Mitspielen",
  t_withdraw: "Zurückziehen",
  t_start_now: "Jetzt starten",
  t_play: "Zu deinem Spiel",
  t_watch: "Zuschauen",
  t_standings: "Tabelle",
  t_boards: "Laufende Spiele",
  t_results: "Ergebnisse",
  t_schedule: "Ablauf",
  t_round: ({ n }) => `Runde ${n}`,
  t_rounds_of: ({ n, of }) => `Runde ${n} von ${of}`,
  t_minutes_n: ({ n }) => (n === 1 ? "1 Minute" : `${n} Minuten`),
  t_players_n: ({ n }) => `${n} Spieler`,
  t_starts: ({ when }) => `beginnt ${when}`,
  t_started: ({ when }) => `begann ${when}`,
  t_ends: ({ when }) => `Paarungen bis ${when}`,
  t_by: ({ name }) => `von ${name}`,
  t_bye: "spielfrei",
  t_points: "Punkte",
  t_buchholz: "Buchholz",
  t_sb: "S-B",
  t_wins: "Siege",
  t_games: "Spiele",
  t_withdrawn: "zurückgezogen",
  t_won: "gewonnen",
  t_place: ({ n }) => `Platz ${n}`,
  t_tiebreaks: "Bei Gleichstand entscheiden Buchholz, dann Sonneborn-Berger, dann Siege.",
  t_tiebreaks_arena: "Bei Gleichstand entscheiden Siege, dann weniger Spiele.",
});

const CLOCKS = {
  fast: { kind: "live", preset: "fast" }, normal: { kind: "live", preset: "normal" },
  slow: { kind: "live", preset: "slow" }, async1: { kind: "async", days: 1 },
};
const when = (s) => dateTimeText(s);
const pts = (x) => (Math.round(x * 100) / 100).toString();

/** One summary as a row (lobby, profile, the list); a profile's rows (`place` set: the
 *  player's rank) say "won" or the place once the tournament is finished. */
export function tournamentRow(s) {
  const done = s.status === "finished" && s.place != null;
  return h("li", { class: "tournament-row", testid: `tournament-${s.id}` },
    h("a", { href: `/tournament/${encodeURIComponent(s.id)}`, "data-link": true }, s.name), " · ",
    gameTitle(s.game), " · ", t(`kind_${s.kind}`), " · ", t(`t_status_${s.status}`), " · ",
    t("t_players_n", { n: s.players }),
    done ? [" · ", s.place === 1 ? h("span", { class: "badge", testid: `t-won-${s.id}` }, t("t_won"))
      : h("span", { testid: `t-place-${s.id}` }, t("t_place", { n: s.place }))] : null);
}

/** A list of summaries from `path` into `el` (the lobby's and the profile's panels). */
export function loadTournamentList(el, path, title) {
  call("GET", path).then((r) => {
    mount(el, h("h2", {}, title || t("tournaments")),
      r.tournaments.length ? h("ul", { class: "tournaments" }, r.tournaments.map(tournamentRow))
        : h("p", { class: "empty" }, t("no_tournaments")));
  }, () => {});
}

/** /tournaments: the open and finished ones, and the form. */
export function tournamentsPage(root, go) {
  window.__cardtable = { page: "tournaments" };
  const open = h("section", { class: "panel", testid: "tournaments-open" });
  const done = h("section", { class: "panel", testid: "tournaments-finished" });
  const form = h("section", { class: "panel", testid: "tournament-form" });
  let error = null;

  function field(label, input) { return h("label", {}, h("span", {}, label), input); }
  function renderForm() {
    if (!currentAccount()) return mount(form, h("h2", {}, t("tournament_new")), h("p", {}, t("tournament_log_in")));
    const name = h("input", { name: "name", testid: "t-name", maxlength: 64, value: "" });
    const kind = h("select", { name: "kind", testid: "t-kind" }, ["swiss", "arena"].map((k) => h("option", { value: k }, t(`kind_${k}`))));
    const game = h("select", { name: "game", testid: "t-game" }, gameNames().map((g) => h("option", { value: g }, gameTitle(g))));
    const seats = h("input", { name: "seats", type: "number", min: 2, max: 5, value: 2, testid: "t-seats" });
    const rounds = h("input", { name: "rounds", type: "number", min: 1, max: 15, value: 3, testid: "t-rounds" });
    const starts = h("input", { name: "starts", type: "number", min: 0, max: 43200, value: 5, testid: "t-starts" });
    const clock = h("select", { name: "clock", testid: "t-clock" }, Object.keys(CLOCKS).map((c) => h("option", { value: c }, t(`clock_${c}`))));
    const rated = h("input", { name: "rated", type: "checkbox", testid: "t-rated" });
    const submit = async (e) => {
      e.preventDefault();
      const body = { name: name.value.trim(), game: game.value, kind: kind.value, seats: Number(seats.value),
        time_control: CLOCKS[clock.value], rated: rated.checked, starts_at: Date.now() / 1000 + Number(starts.value) * 60 };
      if (kind.value === "swiss") body.rounds = Number(rounds.value); else body.minutes = Number(rounds.value);
      try {
        const made = await call("POST", "/api/tournaments", { body });
        go(`/tournament/${encodeURIComponent(made.id)}`);
      } catch (err) { error = err.message; renderForm(); }
    };
    mount(form, h("h2", {}, t("tournament_new")),
      h("form", { class: "stack", onsubmit: submit },
        field(t("tournament_name"), name), field(t("tournament_kind"), kind), field(t("game"), game),
        field(t("tournament_seats"), seats), field(`${t("tournament_rounds")} / ${t("tournament_minutes")}`, rounds),
        field(t("tournament_clock"), clock), field(t("tournament_starts_in"), starts), field(t("tournament_rated"), rated),
        error ? h("p", { class: "error", testid: "t-error" }, error) : null,
        h("button", { type: "submit", testid: "t-create" }, t("tournament_create"))));
  }
  function renderAll() {
    mount(root, h("div", { class: "tournaments-page" }, h("h1", {}, t("tournaments")), open, form, done));
    renderForm();
    loadTournamentList(open, "/api/tournaments?status=open", t("tournaments"));
    loadTournamentList(done, "/api/tournaments?status=finished", t("t_results"));
  }
  renderAll();
  loadGameTitles().then(renderAll);
  return onLangChange(renderAll);
}

/** /tournament/<id>: the page, live. */
export function tournamentPage(root, id) {
  let tour = null;
  let error = null;
  let ws = null;
  let closed = false;
  window.__cardtable = { page: "tournament", version: 0 };

  async function act(what) {
    try { tour = await call("POST", `/api/tournaments/${encodeURIComponent(id)}/${what}`); error = null; }
    catch (e) { error = e.message; }
    render();
  }

  function standings() {
    const arena = tour.kind === "arena";
    const heads = [t("rank"), t("player"), t("t_points"), ...(arena ? [] : [t("t_buchholz"), t("t_sb")]), t("t_wins"), t("t_games")];
    return h("section", { class: "panel" }, h("h2", {}, t("t_standings")),
      h("table", { class: "games standings", testid: "standings" },
        h("thead", {}, h("tr", {}, heads.map((x) => h("th", {}, x)))),
        h("tbody", {}, tour.standings.map((r) => h("tr", { testid: `standing-${r.player}`, dataset: { rank: r.rank, points: r.points } },
          h("td", {}, r.rank),
          h("td", {}, h("a", { href: `/players/${encodeURIComponent(r.player)}`, "data-link": true }, r.player),
            r.withdrawn ? [" ", h("span", { class: "badge" }, t("t_withdrawn"))] : null),
          h("td", { testid: `points-${r.player}` }, pts(r.points)),
          ...(arena ? [] : [h("td", {}, pts(r.buchholz)), h("td", {}, pts(r.sonneborn_berger))]),
          h("td", {}, r.wins), h("td", {}, r.games))))),
      h("p", { class: "meta" }, arena ? t("t_tiebreaks_arena") : t("t_tiebreaks")));
  }

  function boardRow(b, i) {
    const names = b.players.map((p, s) => (b.points ? `${p} (${pts(b.points[s])})` : p)).join(" – ");
    return h("li", { testid: `board-${b.round}-${i}`, dataset: { status: b.status, table: b.table || "" } },
      `${t("t_round", { n: b.round })}: `, names, " ",
      b.bye ? h("span", { class: "badge" }, t("t_bye"))
        : h("a", { href: `/table/${encodeURIComponent(b.table)}`, "data-link": true, testid: `watch-${b.table}` },
          b.status === "done" ? t("replay") : t("t_watch")));
  }

  function render() {
    if (error && !tour) return mount(root, h("section", { class: "panel" }, h("p", { class: "error", testid: "tournament-error" }, error)));
    if (!tour) return mount(root, h("p", {}, t("loading")));
    const me = tour.me || {};
    const acct = currentAccount();
    const openNow = tour.status === "scheduled" || tour.status === "running";
    const current = tour.boards.filter((b) => b.status !== "done");
    const finished = tour.boards.filter((b) => b.status === "done");
    // Once running, `starts_at` is when it did start (a start by the creator moves it).
    const start = t(tour.status === "scheduled" ? "t_starts" : "t_started", { when: when(tour.starts_at) });
    const schedule = tour.kind === "swiss"
      ? [start, t("t_rounds_of", { n: tour.round, of: tour.rounds })]
      : [start, t("t_minutes_n", { n: tour.minutes }), tour.ends_at ? t("t_ends", { when: when(tour.ends_at) }) : null];
    mount(root, h("div", { class: "tournament", testid: "tournament", dataset: { status: tour.status, round: tour.round } },
      h("section", { class: "panel" },
        h("h1", { testid: "tournament-name" }, tour.name),
        h("p", { class: "meta" }, gameTitle(tour.game), " · ", t(`kind_${tour.kind}`), " · ",
          h("span", { testid: "tournament-status" }, t(`t_status_${tour.status}`)), " · ",
          t("t_by", { name: tour.creator }), tour.rated ? [" · ", t("tournament_rated")] : null),
        h("h2", {}, t("t_schedule")), h("p", { testid: "tournament-schedule" }, schedule.filter(Boolean).join(" · ")),
        error ? h("p", { class: "error", testid: "tournament-error" }, error) : null,
        acct && openNow ? h("p", { class: "actions" },
          me.joined ? h("button", { type: "button", class: "ghost", testid: "t-withdraw", onclick: () => act("withdraw") }, t("t_withdraw"))
            : h("button", { type: "button", testid: "t-join", onclick: () => act("join") }, t("t_join")),
          me.creator && tour.status === "scheduled"
            ? h("button", { type: "button", class: "ghost", testid: "t-start", onclick: () => act("start") }, t("t_start_now")) : null,
          me.board ? h("a", { class: "button", href: `/table/${encodeURIComponent(me.board.table)}`, "data-link": true, testid: "t-play" }, t("t_play")) : null)
          : null),
      standings(),
      h("section", { class: "panel" }, h("h2", {}, t("t_boards")),
        current.length ? h("ul", { testid: "boards-current" }, current.map(boardRow)) : h("p", { class: "empty" }, "—")),
      h("section", { class: "panel" }, h("h2", {}, t("t_results")),
        finished.length ? h("ul", { testid: "boards-done" }, finished.map(boardRow)) : h("p", { class: "empty" }, "—"))));
  }

  async function reload() {
    try { tour = await call("GET", `/api/tournaments/${encodeURIComponent(id)}`); error = null; }
    catch (e) { error = e.message; }
    render();
  }

  function connect() {
    if (closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws/tournaments/${encodeURIComponent(id)}`);
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.t !== "tournament" || m.version <= window.__cardtable.version) return;
      window.__cardtable.version = m.version;
      // The push is public; what this account is to it (me) comes with a GET.
      reload();
    };
    ws.onclose = (e) => { if (!closed && e.code !== 4004) setTimeout(connect, 1000); };
  }

  render();
  reload().then(connect);
  loadGameTitles().then(render);
  const off = onLangChange(render);
  return () => { closed = true; off(); if (ws) ws.close(); };
}
