// Texts of the statistics and the game history (statistics.js), merged into the languages
// of i18n.js.
import { LANGS } from "./i18n.js";

const en = {
  st_title: "Statistics",
  st_game: "Game",
  st_played: "Games",
  st_won: "Won",
  st_win_rate: "Win rate",
  st_average: "Average score",
  st_best: "Best score",
  st_rating_of: (p) => `Rating in ${p.game}`,
  st_no_rating: "No rated games yet.",
  st_chart_label: (p) => `Rating in ${p.game} over ${p.n} rated games: from ${p.from} to ${p.to}`,
  st_chart_caption: (p) => `${p.from} → ${p.to} since ${p.since}`,
  st_head_to_head: "Head to head",
  st_opponent: "Opponent",
  st_ahead: "Finished ahead",
  st_behind: "Finished behind",
  st_level: "Level",
  st_history: "Game history",
  st_all: "All",
  st_won_filter: "Won",
  st_lost_filter: "Not won",
  st_search: "Search (table or player)",
  st_found: (p) => (p.n === 1 ? "1 game" : `${p.n} games`),
  st_newer: "Newer",
  st_older: "Older",
};

const de = {
  st_title: "Statistik",
  st_game: "Spiel",
  st_played: "Partien",
  st_won: "Gewonnen",
  st_win_rate: "Siegquote",
  st_average: "Punkteschnitt",
  st_best: "Beste Punktzahl",
  st_rating_of: (p) => `Wertung in ${p.game}`,
  st_no_rating: "Noch keine gewerteten Partien.",
  st_chart_label: (p) => `Wertung in ${p.game} über ${p.n} gewertete Partien: von ${p.from} auf ${p.to}`,
  st_chart_caption: (p) => `${p.from} → ${p.to} seit ${p.since}`,
  st_head_to_head: "Direkter Vergleich",
  st_opponent: "Gegner",
  st_ahead: "Davor platziert",
  st_behind: "Dahinter platziert",
  st_level: "Gleichauf",
  st_history: "Partienverlauf",
  st_all: "Alle",
  st_won_filter: "Gewonnen",
  st_lost_filter: "Nicht gewonnen",
  st_search: "Suche (Tisch oder Spieler)",
  st_found: (p) => (p.n === 1 ? "1 Partie" : `${p.n} Partien`),
  st_newer: "Neuere",
  st_older: "Ältere",
};

Object.assign(LANGS.en, en);
Object.assign(LANGS.de, de);
