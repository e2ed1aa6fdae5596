/**
 * gRPC contracts generated from proto/ by ts-proto. The generated folder is build output:
 * change the .proto files and run `nx run contracts:generate`, never edit it by hand.
 */
export * as commonV1 from './generated/agentplatform/common/v1/errors.js';
export * as identityV1 from './generated/agentplatform/identity/v1/identity.js';
export * as agentMemoryV1 from './generated/agentplatform/agent_memory/v1/agent_memory.js';
export * as workflowV1 from './generated/agentplatform/workflow/v1/workflow.js';
export * as webhookV1 from './generated/agentplatform/webhook/v1/webhook.js';
