// @ts-check
'use strict';
const { searchScenario } = require('./40-memory-add.js');

/** Hybrid memory search through the gateway at 1,000 items per agent (target p95 <= 20 ms). */
module.exports = searchScenario(1_000);
