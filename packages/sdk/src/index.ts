export * from './client.js';
export * from './errors.js';
export * from './types.js';
export * from './webhook-signature.js';
