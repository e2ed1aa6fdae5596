/** @type {import('jest').Config} */
module.exports = require('../../jest.preset.js')('workflow', __dirname);
