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
  nodeId: id,
  status: 'completed',
  durationMs: 1,
  attempts: 1,
  output: {},
});
const results: NodeExecution[] = [
  done('a'),
  done('b'),
  { nodeId: 'c', status: 'failed', durationMs: 1, attempts: 1, error: 'no such key' },
];

describe('reusableResults', () => {
  it('reuses every completed node on the same graph, not the failed one', () => {
    expect(reusableResults({ graph, nodeExecutions: results }, graph).map((r) => r.nodeId)).toEqual(['a', 'b']);
  });

  it('runs an edited node and everything after it again', () => {
    const edited: WorkflowGraph = {
      ...graph,
      nodes: graph.nodes.map((n) => (n.id === 'b' ? { ...n, config: { fields: { y: '3' } } } : n)),
    };
    expect(reusableResults({ graph, nodeExecutions: results }, edited).map((r) => r.nodeId)).toEqual(['a']);
  });

  it('does not reuse a node whose incoming links changed', () => {
    const rewired: WorkflowGraph = {
      nodes: [...graph.nodes, { id: 'e', type: 'transform', config: {} }],
      edges: [{ source: 'e', target: 'b' }, ...graph.edges.filter((e) => e.target !== 'b')],
    };
    expect(reusableResults({ graph, nodeExecutions: results }, rewired).map((r) => r.nodeId)).toEqual(['a']);
  });
});
