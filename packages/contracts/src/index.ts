/**
 * gRPC contracts generated from proto/ by ts-proto. The generated folder is build output:
 * change the .proto files and run `nx run contracts:generate`, never edit it by hand.
 *
 * This entry loads all of them; a service imports the ones it uses from their own entries
 * (`@agentplatform/contracts/identity-v1`, ...), since each takes 0.15-0.3 MB of heap for as
 * long as the process runs.
 */
export * from './common-v1.js';
export * from './identity-v1.js';
export * from './agent-memory-v1.js';
export * from './workflow-v1.js';
export * from './webhook-v1.js';
