import { z } from 'zod';
import { NODE_TYPES, type FieldIssue, type NodeType } from '@agentplatform/service-kit';
import { LIMITS, fieldPath, retrySchema, timeoutSchema, validateNodeConfig } from './node-config.js';
import { TRIGGER_NODE_TYPES, type WorkflowGraph, type WorkflowNode } from './workflow.types.js';

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A link from one node to another: an edge, or a condition rule's goto/else. */
interface Link {
  source: string;
  target: string;
  /** Where the link is written, for error messages. */
  field: string;
}

/** The targets a condition node can route to, in rule order. */
export function branchTargets(node: WorkflowNode): string[] {
  if (node.type !== 'condition' || !Array.isArray(node.config.rules)) return [];
  const out = new Set<string>();
  for (const rule of node.config.rules) {
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) continue;
    if (typeof rule.goto === 'string') out.add(rule.goto);
    if (typeof rule.else === 'string') out.add(rule.else);
  }
  return [...out];
}

/**
 * Validates a graph as docs/design.md section 7 asks; every issue names the node, edge or rule.
 * The agent-existence check needs agent-memory and is made by the use case afterwards.
 */
export function validateGraph(graph: WorkflowGraph): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const { nodes, edges } = graph;
  if (nodes.length === 0) issues.push({ field: 'nodes', message: 'a workflow needs at least one node' });
  if (nodes.length > LIMITS.maxNodes) {
    issues.push({
      field: 'nodes',
      message: `a workflow may have at most ${LIMITS.maxNodes} nodes (got ${nodes.length})`,
    });
    return issues;
  }

  const index = new Map<string, number>();
  let trigger: number | undefined;
  nodes.forEach((node, i) => {
    if (!NODE_ID.test(node.id)) {
      issues.push({ field: `nodes[${i}].id`, message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' });
    } else if (index.has(node.id)) {
      issues.push({
        field: `nodes[${i}].id`,
        message: `duplicate node id '${node.id}' (also nodes[${index.get(node.id)}])`,
      });
    } else {
      index.set(node.id, i);
    }
    if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
      issues.push({
        field: `nodes[${i}].type`,
        message: `unknown node type '${node.type}' (known: ${NODE_TYPES.join(', ')})`,
      });
      return;
    }
    if (TRIGGER_NODE_TYPES.includes(node.type)) {
      if (trigger !== undefined) {
        issues.push({
          field: `nodes[${i}].type`,
          message: `only one trigger node is allowed (nodes[${trigger}] is one)`,
        });
      } else {
        trigger = i;
      }
    }
    issues.push(...validateNodeConfig(node.type as NodeType, node.config, `nodes[${i}].config`));
    issues.push(...checkNodeOptions(node, i));
  });

  const links: Link[] = [];
  const seenEdges = new Set<string>();
  edges.forEach((edge, k) => {
    let ok = true;
    for (const end of ['source', 'target'] as const) {
      if (!index.has(edge[end])) {
        issues.push({ field: `edges[${k}].${end}`, message: `unknown node '${edge[end]}'` });
        ok = false;
      }
    }
    if (!ok) return;
    const key = `${edge.source}\u0000${edge.target}`;
    if (seenEdges.has(key)) {
      issues.push({ field: `edges[${k}]`, message: `duplicate edge ${edge.source} -> ${edge.target}` });
      return;
    }
    seenEdges.add(key);
    links.push({ source: edge.source, target: edge.target, field: `edges[${k}]` });
  });

  nodes.forEach((node, i) => {
    if (node.type !== 'condition' || !Array.isArray(node.config.rules)) return;
    const targets = new Set<string>();
    node.config.rules.forEach((rule, j) => {
      if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return;
      for (const key of ['goto', 'else'] as const) {
        const target = rule[key];
        if (typeof target !== 'string') continue;
        const field = `nodes[${i}].config.rules[${j}].${key}`;
        if (!index.has(target)) {
          issues.push({ field, message: `unknown node '${target}'` });
          continue;
        }
        targets.add(target);
        if (!seenEdges.has(`${node.id}\u0000${target}`)) links.push({ source: node.id, target, field });
      }
    });
    // A condition routes only through its rules: an edge to anything else would run unconditionally.
    edges.forEach((edge, k) => {
      if (edge.source === node.id && index.has(edge.target) && !targets.has(edge.target)) {
        issues.push({
          field: `edges[${k}]`,
          message: `condition '${node.id}' routes only through its rules; add a rule with goto '${edge.target}'`,
        });
      }
    });
  });

  if (trigger !== undefined) {
    const triggerId = nodes[trigger]!.id;
    for (const link of links) {
      if (link.target === triggerId) {
        issues.push({
          field: link.field.startsWith('edges') ? `${link.field}.target` : link.field,
          message: `the trigger node '${triggerId}' cannot have incoming edges`,
        });
      }
    }
  }

  const cycle = findCycle(
    nodes.map((n) => n.id).filter((id) => index.has(id)),
    links,
  );
  if (cycle) {
    issues.push({ field: cycle.link.field, message: `creates a cycle: ${cycle.path.join(' -> ')}` });
  }
  return issues;
}

const nodeOptionsSchema = z.object({ retry: retrySchema.optional(), timeout_ms: timeoutSchema.optional() });

function checkNodeOptions(node: WorkflowNode, i: number): FieldIssue[] {
  const result = nodeOptionsSchema.safeParse({ retry: node.retry, timeout_ms: node.timeout_ms });
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ field: fieldPath(`nodes[${i}]`, issue.path), message: issue.message }));
}

/** The first cycle found by depth-first search, with the link that closes it. */
function findCycle(ids: string[], links: Link[]): { path: string[]; link: Link } | undefined {
  const out = new Map<string, Link[]>();
  for (const link of links) out.set(link.source, [...(out.get(link.source) ?? []), link]);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): { path: string[]; link: Link } | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const link of out.get(id) ?? []) {
      const s = state.get(link.target);
      if (s === 'open') return { path: [...stack.slice(stack.indexOf(link.target)), link.target], link };
      if (s === undefined) {
        const found = visit(link.target);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return undefined;
}

/** A validated graph prepared for running: order, predecessors, and effective node options. */
export interface Plan {
  order: WorkflowNode[];
  predecessors: Map<string, string[]>;
  byId: Map<string, WorkflowNode>;
}

/**
 * Topological order (Kahn), ties broken by the nodes' order in the workflow, so runs are
 * deterministic: a resumed execution walks the same order as the interrupted one.
 */
export function planGraph(graph: WorkflowGraph): Plan {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const position = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const successors = new Map<string, Set<string>>();
  const predecessors = new Map<string, string[]>();
  for (const n of graph.nodes) {
    successors.set(n.id, new Set());
    predecessors.set(n.id, []);
  }
  const link = (source: string, target: string) => {
    const set = successors.get(source);
    if (!set || set.has(target) || !byId.has(target)) return;
    set.add(target);
    predecessors.get(target)!.push(source);
  };
  for (const e of graph.edges) link(e.source, e.target);
  for (const n of graph.nodes) for (const t of branchTargets(n)) link(n.id, t);

  const indegree = new Map([...predecessors].map(([id, p]) => [id, p.length]));
  const ready = graph.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  const order: WorkflowNode[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
    const id = ready.shift()!;
    order.push(byId.get(id)!);
    for (const t of successors.get(id)!) {
      const left = indegree.get(t)! - 1;
      indegree.set(t, left);
      if (left === 0) ready.push(t);
    }
  }
  return { order, predecessors, byId };
}
