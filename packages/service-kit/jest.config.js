/** @type {import('jest').Config} */
module.exports = require('../../jest.preset.js')('service-kit', __dirname);
