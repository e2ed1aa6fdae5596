export * from './catalogue.js';
export * from './consumer.js';
export * from './dead-letters.js';
export * from './kafka.js';
export * from './outbox.js';
export * from './relay.js';
export * from './runtime.js';
