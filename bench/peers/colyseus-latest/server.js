'use strict';
// Colyseus 0.18 (the newest release line) game server for handcards: the room of
// ../colyseus/handcards-room.js (Server, Room, onMessage, StateView and broadcastPatch are the same
// calls in 0.18), with this install's packages and a state.js for @colyseus/schema 5's builders.
//   node server.js [--port 2567] [--patch-rate 0|50] [--durable redis://HOST:PORT], as ../colyseus/server.js
const { Server, Room } = require('@colyseus/core');
const { WebSocketTransport } = require('@colyseus/ws-transport');
const { StateView, ArraySchema } = require('@colyseus/schema');
const { Card, Player, HandState } = require('./state');

// (ioredis only for --durable: handcards-room.js constructs it then)
const Redis = process.argv.includes('--durable') ? require('ioredis') : null;
require('../colyseus/handcards-room')({ Server, Room, WebSocketTransport, StateView, ArraySchema, Redis, Card, Player, HandState });
