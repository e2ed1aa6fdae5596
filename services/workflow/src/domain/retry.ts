import { isDeepStrictEqual } from 'node:util';
import type { NodeExecution } from './execution.types.js';
import { planGraph } from './graph.js';
import type { WorkflowGraph, WorkflowNode } from './workflow.types.js';

/**
 * The results a retry starts from: the completed nodes of the execution it retries, as far as the
 * graph it runs still has them unchanged. A node is reused only when it and every node before it
 * are the same as in the retried run (a completed one reused, or a skipped one unchanged), so an
 * edited node and everything after it run again; on the same graph that is every completed node,
 * and the run resumes at the node that failed.
 */
export function reusableResults(
  previous: { graph: WorkflowGraph; nodeExecutions: NodeExecution[] },
  graph: WorkflowGraph,
): NodeExecution[] {
  const before = new Map<string, WorkflowNode>(previous.graph.nodes.map((n) => [n.id, n]));
  const results = new Map(previous.nodeExecutions.map((r) => [r.nodeId, r]));
  const plan = planGraph(graph);
  const oldPredecessors = planGraph(previous.graph).predecessors;
  const reused = new Set<string>();
  const same = new Set<string>();
  for (const node of plan.order) {
    const old = before.get(node.id);
    const predecessors = plan.predecessors.get(node.id) ?? [];
    const unchanged =
      old !== undefined &&
      isDeepStrictEqual(old, node) &&
      isDeepStrictEqual([...predecessors].sort(), [...(oldPredecessors.get(node.id) ?? [])].sort()) &&
      predecessors.every((p) => same.has(p));
    if (!unchanged) continue;
    const status = results.get(node.id)?.status;
    if (status === 'completed') {
      reused.add(node.id);
      same.add(node.id);
    } else if (status === 'skipped') {
      same.add(node.id);
    }
  }
  return previous.nodeExecutions.filter((r) => reused.has(r.nodeId));
}
