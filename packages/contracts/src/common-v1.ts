/** One generated contract alone, for a process that uses only some of them (see index.ts). */
export * as commonV1 from './generated/agentplatform/common/v1/errors.js';
