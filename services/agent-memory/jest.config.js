/** @type {import('jest').Config} */
module.exports = require('../../jest.preset.js')('agent-memory', __dirname);
