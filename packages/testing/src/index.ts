export * from './http.js';
export * from './paths.js';
export * from './platform.js';
export * from './service-process.js';
export * from './wait.js';
export * from './receiver.js';
export * from './fixtures.js';
