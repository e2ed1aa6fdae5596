import type { EventData, EventType } from '@agentplatform/events';

/** Example data a test send carries for each event type (ids are recognisably fake). */
export const SAMPLE_EVENT_DATA: { [T in EventType]: EventData[T] } = {
  'agent.message.created': {
    agent_id: 'agt_test',
    conversation_id: 'ses_test',
    message_id: 'msg_test',
    content: 'Hello! This is a test message.',
  },
  'agent.message.completed': {
    agent_id: 'agt_test',
    conversation_id: 'ses_test',
    message_id: 'msg_test',
    content: 'This is a test reply.',
    tokens_used: 42,
    tool_calls: 0,
    latency_ms: 120,
  },
  'agent.created': { agent_id: 'agt_test', name: 'Test agent', type: 'assistant', status: 'active' },
  'agent.updated': { agent_id: 'agt_test', changed: ['name'], status: 'active' },
  'workflow.execution.started': { workflow_id: 'wf_test', execution_id: 'exe_test', trigger: 'manual' },
  'workflow.execution.completed': {
    workflow_id: 'wf_test',
    execution_id: 'exe_test',
    trigger: 'manual',
    duration_ms: 1240,
    output: { ok: true },
    output_truncated: false,
    execution_url: '/api/v1/workflows/wf_test/executions/exe_test',
  },
  'workflow.execution.failed': {
    workflow_id: 'wf_test',
    execution_id: 'exe_test',
    trigger: 'manual',
    duration_ms: 310,
    error: 'test failure',
    failed_node_id: 'node_1',
  },
  'memory.consolidated': { agent_id: 'agt_test', merged: 3, removed: 2, remaining: 40 },
  'billing.credits.low': { balance: 99, threshold: 100 },
  'billing.purchase.completed': { purchase_id: 'pur_test', credits: 1000, balance: 1099 },
};
