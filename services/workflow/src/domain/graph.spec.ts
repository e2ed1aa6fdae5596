import { planGraph, validateGraph } from './graph.js';
import type { WorkflowGraph, WorkflowNode } from './workflow.types.js';

const node = (id: string, type: string, config: Record<string, unknown> = {}): WorkflowNode =>
  ({ id, type, config }) as WorkflowNode;

const valid: WorkflowGraph = {
  nodes: [
    node('hook', 'webhook', { path: 'orders' }),
    node('check', 'condition', { rules: [{ if: 'input.body.amount > 100', goto: 'big' }, { else: 'small' }] }),
    node('big', 'transform', { fields: { size: '"big"' } }),
    node('small', 'transform', { fields: { size: '"small"' } }),
  ],
  edges: [
    { source: 'hook', target: 'check' },
    { source: 'check', target: 'big' },
    { source: 'check', target: 'small' },
  ],
};

function fields(graph: WorkflowGraph): string[] {
  return validateGraph(graph).map((i) => i.field);
}

describe('validateGraph', () => {
  it('accepts a valid graph', () => {
    expect(validateGraph(valid)).toEqual([]);
  });

  it('names a duplicate node id', () => {
    const graph = { ...valid, nodes: [...valid.nodes, node('big', 'delay', { ms: 1 })] };
    expect(fields(graph)).toEqual(['nodes[4].id']);
  });

  it('names an unknown node type', () => {
    expect(fields({ nodes: [node('a', 'teleport')], edges: [] })).toEqual(['nodes[0].type']);
  });

  it('names a bad config key and a missing required key', () => {
    expect(fields({ nodes: [node('a', 'delay', { ms: 5, extra: 1 })], edges: [] })).toEqual(['nodes[0].config.extra']);
    expect(fields({ nodes: [node('a', 'agent', {})], edges: [] })).toEqual(['nodes[0].config.agent_id']);
    expect(fields({ nodes: [node('a', 'delay', { ms: 400_000 })], edges: [] })).toEqual(['nodes[0].config.ms']);
  });

  it('refuses integration services other than http', () => {
    const issues = validateGraph({
      nodes: [node('a', 'integration', { service: 'slack', url: 'https://x.test' })],
      edges: [],
    });
    expect(issues).toEqual([
      { field: 'nodes[0].config.service', message: expect.stringContaining('unsupported service') },
    ]);
  });

  it('names an edge to an unknown node', () => {
    const graph = { ...valid, edges: [...valid.edges, { source: 'big', target: 'ghost' }] };
    expect(fields(graph)).toEqual(['edges[3].target']);
  });

  it('names a condition target that does not exist', () => {
    const nodes = valid.nodes.map((n) =>
      n.id === 'check'
        ? node('check', 'condition', { rules: [{ if: 'true', goto: 'nowhere' }, { else: 'small' }] })
        : n,
    );
    expect(fields({ nodes, edges: valid.edges.filter((e) => e.target !== 'big') })).toEqual([
      'nodes[1].config.rules[0].goto',
    ]);
  });

  it('names an expression that does not parse', () => {
    const nodes = valid.nodes.map((n) =>
      n.id === 'check'
        ? node('check', 'condition', { rules: [{ if: 'input.body.amount >', goto: 'big' }, { else: 'small' }] })
        : n,
    );
    const issues = validateGraph({ nodes, edges: valid.edges });
    expect(issues).toEqual([
      { field: 'nodes[1].config.rules[0].if', message: expect.stringContaining('invalid expression') },
    ]);
  });

  it('checks transform fields and templates', () => {
    expect(fields({ nodes: [node('a', 'transform', { fields: { x: '1 +' } })], edges: [] })).toEqual([
      'nodes[0].config.fields.x',
    ]);
    expect(
      fields({
        nodes: [node('a', 'integration', { service: 'http', url: 'https://x.test/{{ input.( }}' })],
        edges: [],
      }),
    ).toEqual(['nodes[0].config.url']);
  });

  it('refuses an expression or a template over 4,096 bytes, naming the field', () => {
    const long = `input.x == "${'a'.repeat(4_100)}"`;
    expect(validateGraph({ nodes: [node('a', 'transform', { fields: { x: long } })], edges: [] })).toEqual([
      { field: 'nodes[0].config.fields.x', message: 'must be at most 4096 bytes' },
    ]);
    expect(
      fields({
        nodes: [node('a', 'integration', { service: 'http', url: 'https://x.test/', body: { t: `{{ ${long} }}` } })],
        edges: [],
      }),
    ).toEqual(['nodes[0].config.body.t']);
    // Bytes, not characters: 2,000 three-byte characters are 6,000 bytes.
    expect(fields({ nodes: [node('a', 'transform', { fields: { x: `"${'€'.repeat(2_000)}"` } })], edges: [] })).toEqual(
      ['nodes[0].config.fields.x'],
    );
  });

  it('allows one trigger only, with no incoming edge', () => {
    const two = { nodes: [node('a', 'webhook'), node('b', 'webhook')], edges: [] };
    expect(fields(two)).toEqual(['nodes[1].type']);
    const incoming = { nodes: [node('a', 'transform'), node('b', 'webhook')], edges: [{ source: 'a', target: 'b' }] };
    expect(fields(incoming)).toEqual(['edges[0].target']);
  });

  it('names the edge that closes a cycle', () => {
    const graph = {
      nodes: [node('a', 'transform'), node('b', 'transform'), node('c', 'transform')],
      edges: [
        { source: 'a', target: 'b' },
        { source: 'b', target: 'c' },
        { source: 'c', target: 'a' },
      ],
    };
    const issues = validateGraph(graph);
    expect(issues).toEqual([{ field: 'edges[2]', message: 'creates a cycle: a -> b -> c -> a' }]);
  });

  it('limits a workflow to 100 nodes', () => {
    const nodes = Array.from({ length: 101 }, (_, i) => node(`n${i}`, 'transform'));
    expect(fields({ nodes, edges: [] })).toEqual(['nodes']);
  });

  it('refuses a condition edge that is not one of its rules', () => {
    const graph = {
      ...valid,
      nodes: [...valid.nodes, node('other', 'transform')],
      edges: [...valid.edges, { source: 'check', target: 'other' }],
    };
    expect(fields(graph)).toEqual(['edges[3]']);
  });
});

describe('planGraph', () => {
  it('orders nodes topologically, ties by position', () => {
    const plan = planGraph(valid);
    expect(plan.order.map((n) => n.id)).toEqual(['hook', 'check', 'big', 'small']);
    expect(plan.predecessors.get('small')).toEqual(['check']);
  });
});
