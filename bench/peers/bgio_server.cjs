// boardgame.io 0.50 server (socket.io transport, in-memory storage, its Koa lobby API on the
// same port) running the comparable game of game.cjs. Usage: node bgio_server.cjs PORT
'use strict';

const { Server, Origins } = require('boardgame.io/server');
const { PickCards } = require('./bgio_game.cjs');

const port = Number(process.argv[2] || 8001);
const server = Server({ games: [PickCards], origins: [Origins.LOCALHOST] });
server.run(port, () => console.log(`bgio listening on ${port}`));
