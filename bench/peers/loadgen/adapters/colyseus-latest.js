'use strict';
// Colyseus adapter for the newest release line (bench/peers/colyseus-latest): its SDK moved from
// colyseus.js to @colyseus/sdk; the client calls the rig makes are unchanged.
const { withClient, sdkFrom } = require('./colyseus');

module.exports = withClient(sdkFrom('colyseus-latest', '@colyseus/sdk').Client);
