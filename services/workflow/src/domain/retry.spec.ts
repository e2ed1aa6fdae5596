import type { NodeExecution } from './execution.types.js';
import { reusableResults } from './retry.js';
import type { WorkflowGraph } from './workflow.types.js';

const graph: WorkflowGraph = {
  nodes: [
    { id: 'a', type: 'transform', config: { fields: { x: '1' } } },
    { id: 'b', type: 'transform', config: { fields: { y: '2' } } },
    { id: 'c', type: 'transform', config: { fields: { z: 'input.nope' } } },
    { id: 'd', type: 'transform', config: {} },
  ],
  edges: [
    { source: 'a', target: 'b' },
    { source: 'b', target: 'c' },
    { source: 'c', target: 'd' },
  ],
};

const done = (id: string): NodeExecution => ({
  node_id: id,
  status: 'completed',
  duration_ms: 1,
  attempts: 1,
  output: {},
});
const results: NodeExecution[] = [
  done('a'),
  done('b'),
  { node_id: 'c', status: 'failed', duration_ms: 1, attempts: 1, error: 'no such key' },
];

describe('reusableResults', () => {
  it('reuses every completed node on the same graph, not the failed one', () => {
    expect(reusableResults({ graph, node_executions: results }, graph).map((r) => r.node_id)).toEqual(['a', 'b']);
  });

  it('runs an edited node and everything after it again', () => {
    const edited: WorkflowGraph = {
      ...graph,
      nodes: graph.nodes.map((n) => (n.id === 'b' ? { ...n, config: { fields: { y: '3' } } } : n)),
    };
    expect(reusableResults({ graph, node_executions: results }, edited).map((r) => r.node_id)).toEqual(['a']);
  });

  it('does not reuse a node whose incoming links changed', () => {
    const rewired: WorkflowGraph = {
      nodes: [...graph.nodes, { id: 'e', type: 'transform', config: {} }],
      edges: [{ source: 'e', target: 'b' }, ...graph.edges.filter((e) => e.target !== 'b')],
    };
    expect(reusableResults({ graph, node_executions: results }, rewired).map((r) => r.node_id)).toEqual(['a']);
  });
});
