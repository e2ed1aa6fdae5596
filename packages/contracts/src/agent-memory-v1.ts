/** One generated contract alone, for a process that uses only some of them (see index.ts). */
export * as agentMemoryV1 from './generated/agentplatform/agent_memory/v1/agent_memory.js';
