/** One generated contract alone, for a process that uses only some of them (see index.ts). */
export * as webhookV1 from './generated/agentplatform/webhook/v1/webhook.js';
