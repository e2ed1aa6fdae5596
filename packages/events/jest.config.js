/** @type {import('jest').Config} */
module.exports = require('../../jest.preset.js')('events', __dirname);
