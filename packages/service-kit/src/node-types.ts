/**
 * The workflow node types (docs/design.md section 7), defined once: the gateway's schema offers them in
 * the OpenAPI document and the workflow service runs them.
 */
export const NODE_TYPES = [
  'webhook',
  'agent',
  'condition',
  'integration',
  'transform',
  'delay',
  'workflow',
  'foreach',
  'schedule',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];
