/**
 * `@agentplatform/testing/in-memory`: the in-memory ports and records the services' unit specs
 * build their fakes on, without the rest of this package (the platform harness loads Kafka's and
 * gRPC's clients, which a unit spec never uses and `npm run test:unit` would load in every file).
 */
export * from './in-memory-ports.js';
export * from './in-memory-records.js';
