// The comparable game of game.cjs as a boardgame.io Game object; the server and the load
// generator's clients share it (a boardgame.io client needs the game's definition).
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');
const game = require('./game.cjs');

const PickCards = {
  name: 'pick',
  minPlayers: game.SEATS,
  maxPlayers: game.SEATS,
  setup: ({ random }) => game.newTable(() => random.Number()),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    // client: false: the server alone runs the move, as Einauge's server does
    pick: {
      move: ({ G, playerID }, slot) =>
        game.pick(G, Number(playerID), slot) === null ? G : INVALID_MOVE,
      client: false,
    },
  },
  endIf: ({ G }) => (G.moves >= game.MOVES ? { scores: G.scores } : undefined),
  // the deck order is hidden information: viewers get its size only
  playerView: ({ G }) => ({ ...G, deck: G.deck.length }),
};

module.exports = { PickCards };
