// The comparable card game of issue 18, shared by the boardgame.io and Colyseus servers:
// 4 seats, 6 face-up cards on the table, the seat to move picks one of them, the gap is
// refilled from a hidden deck, seats move in turn, the game ends after 80 moves. The deck
// order is hidden from every viewer (as Einauge's is); a picked card's value goes to the
// picker's score, which everybody sees.
'use strict';

const SEATS = 4;
const FACE_UP = 6;
const MOVES = 80;
const DECK = FACE_UP + MOVES; // every move refills one slot

/** A fresh table: `random()` in [0, 1) shuffles the deck (Fisher-Yates). */
function newTable(random) {
  const deck = Array.from({ length: DECK }, (_, i) => 1 + (i % 10));
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return { faceUp: deck.splice(0, FACE_UP), deck, scores: new Array(SEATS).fill(0), moves: 0 };
}

/** The seat to move at `moves` moves played. */
function seatToMove(moves) {
  return moves % SEATS;
}

/** Apply seat `seat` picking face-up slot `slot`; returns an error text (and changes
 * nothing) when the pick is not legal. */
function pick(t, seat, slot) {
  if (t.moves >= MOVES) return 'game over';
  if (seat !== seatToMove(t.moves)) return 'not your turn';
  if (!Number.isInteger(slot) || slot < 0 || slot >= FACE_UP) return 'no such slot';
  t.scores[seat] += t.faceUp[slot];
  t.faceUp[slot] = t.deck.pop();
  t.moves += 1;
  return null;
}

module.exports = { SEATS, FACE_UP, MOVES, DECK, newTable, seatToMove, pick };
