'use strict';
// @colyseus/schema 5 state for handcards (Colyseus 0.18), the same fields as ../colyseus/state.js
// declared with schema 5's `t.*` builders (plain objects of type names are no longer accepted).
// `.view()` is the @view() decorator: the field is only encoded for clients whose StateView
// contains the owning Player instance.
const { schema, t } = require('@colyseus/schema');

const Card = schema({ id: t.string(), value: t.uint8(), colour: t.string() }, 'Card');

const Player = schema({
  score: t.uint16(),
  hand: t.array(Card).view(), // SECRET: visible only to this seat's StateView
}, 'Player');

const HandState = schema({
  players: t.array(Player), // 4 seats, public except the @view hand
  pile: t.array(Card),      // public: cards played so far
  deckCount: t.uint8(),
  turn: t.uint8(),
  moves: t.uint16(),
  over: t.boolean(),
}, 'HandState');

module.exports = { Card, Player, HandState };
