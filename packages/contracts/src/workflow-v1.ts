/** One generated contract alone, for a process that uses only some of them (see index.ts). */
export * as workflowV1 from './generated/agentplatform/workflow/v1/workflow.js';
