/** One generated contract alone, for a process that uses only some of them (see index.ts). */
export * as identityV1 from './generated/agentplatform/identity/v1/identity.js';
