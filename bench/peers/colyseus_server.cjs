// Colyseus 0.18 server (@colyseus/core, the ws transport, Schema state patches, its
// matchmaker's HTTP routes) running the comparable game of game.cjs.
// Usage: node colyseus_server.cjs PORT
'use strict';

const { Server, Room } = require('@colyseus/core');
const { WebSocketTransport } = require('@colyseus/ws-transport');
const { schema, t, ArraySchema } = require('@colyseus/schema');
const game = require('./game.cjs');

// what every viewer sees; the deck order stays on the server (not in the Schema)
const PickState = schema({
  faceUp: t.array('uint8'),
  scores: t.array('uint16'),
  deckSize: t.uint8(),
  moves: t.uint8(),
  over: t.boolean(),
});

class PickRoom extends Room {
  onCreate() {
    this.maxClients = game.SEATS + 5000; // 4 seats and the spectators
    this.table = game.newTable(Math.random);
    this.seats = new Map(); // sessionId -> seat
    this.state = new PickState({
      faceUp: new ArraySchema(...this.table.faceUp),
      scores: new ArraySchema(...this.table.scores),
      deckSize: this.table.deck.length,
      moves: 0,
      over: false,
    });
    // A turn-based game sends each move's patch at once instead of on the default 50 ms
    // simulation tick (which would add up to 50 ms to every delivery).
    this.setPatchRate(null);
    this.onMessage('pick', (client, slot) => this.onPick(client, slot));
  }

  onJoin(client, options) {
    if (options && Number.isInteger(options.seat)) {
      const taken = [...this.seats.values()].includes(options.seat);
      if (taken || options.seat < 0 || options.seat >= game.SEATS) throw new Error('seat taken');
      this.seats.set(client.sessionId, options.seat);
    }
  }

  onPick(client, slot) {
    const seat = this.seats.get(client.sessionId);
    if (seat === undefined || this.seats.size < game.SEATS) return;
    if (game.pick(this.table, seat, slot) !== null) return;
    this.state.faceUp[slot] = this.table.faceUp[slot];
    this.state.scores[seat] = this.table.scores[seat];
    this.state.deckSize = this.table.deck.length;
    this.state.moves = this.table.moves;
    if (this.table.moves >= game.MOVES) this.state.over = true;
    this.broadcastPatch();
  }
}

const port = Number(process.argv[2] || 8002);
const gameServer = new Server({ transport: new WebSocketTransport(), greet: false });
gameServer.define('pick', PickRoom);
gameServer.listen(port).then(() => console.log(`colyseus listening on ${port}`));
