// @ts-check
'use strict';
const { searchScenario } = require('./40-memory-add.js');

/** Hybrid memory search through the gateway at 10,000 items per agent (target p95 <= 60 ms). */
module.exports = searchScenario(10_000);
