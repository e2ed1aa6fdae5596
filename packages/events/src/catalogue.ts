/**
 * `@agentplatform/events/catalogue`: the event names, their payload types, envelopes and access
 * events, without the rest of this package (the outbox, relay and consumers load mongoose's and
 * Kafka's clients). Domain and use-case code that only makes or reads events imports from here,
 * so that its unit specs (`npm run test:unit`) load neither.
 */
export * from './access-events.js';
export * from './envelope.js';
export * from './event-types.js';
