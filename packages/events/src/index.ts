export * from './access-events.js';
export * from './consumer.js';
export * from './envelope.js';
export * from './event-types.js';
export * from './kafka.js';
export * from './outbox.js';
export * from './relay.js';
export * from './runtime.js';
