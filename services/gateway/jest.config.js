/** @type {import('jest').Config} */
module.exports = require('../../jest.preset.js')('gateway', __dirname);
