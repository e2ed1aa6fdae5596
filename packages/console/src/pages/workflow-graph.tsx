import { useMemo } from 'react';
import { Background, Controls, Position, ReactFlow, type Connection, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './workflow-graph.css';
import type { operations } from '@agentplatform/sdk/src/api-types';

export type Workflow = operations['getWorkflowsWorkflowId']['responses'][200]['content']['application/json'];
export type WfNode = Workflow['nodes'][number];
export type NodeType = WfNode['type'];
export type Execution =
  operations['getWorkflowsWorkflowIdExecutionsExecutionId']['responses'][200]['content']['application/json'];
export type NodeRun = Execution['node_executions'][number];

/** Columns by longest path from a root, rows in order: a readable left-to-right graph without a layout engine. */
export function layout(
  nodes: { id: string }[],
  edges: { source: string; target: string }[],
): Map<string, { x: number; y: number }> {
  const depth = new Map(nodes.map((n) => [n.id, 0]));
  for (let round = 0; round < nodes.length; round++) {
    let moved = false;
    for (const e of edges) {
      const d = (depth.get(e.source) ?? 0) + 1;
      if (depth.has(e.target) && d > (depth.get(e.target) ?? 0) && d < nodes.length) {
        depth.set(e.target, d);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const col = depth.get(n.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    at.set(n.id, { x: col * 220, y: row * 110 });
  }
  return at;
}

/** The index of the node an API validation error names (`nodes[3].config.agent_id`), if any. */
export function nodeIndexOf(field: string | undefined): number | undefined {
  const match = /^nodes\[(\d+)\]/.exec(field ?? '');
  return match ? Number(match[1]) : undefined;
}

export function Graph({
  nodes,
  edges,
  status,
  errors,
  selected,
  onSelect,
  onConnect,
  label,
}: {
  nodes: { id: string; type: string }[];
  edges: { source: string; target: string }[];
  status?: Map<string, NodeRun>;
  errors?: Map<string, string[]>;
  selected?: string;
  onSelect?: (id: string) => void;
  onConnect?: (c: Connection) => void;
  label: string;
}) {
  const flow = useMemo(() => {
    const at = layout(nodes, edges);
    const flowNodes: Node[] = nodes.map((n) => {
      const run = status?.get(n.id);
      const problems = errors?.get(n.id);
      return {
        id: n.id,
        position: at.get(n.id) ?? { x: 0, y: 0 },
        // The layout runs left to right.
        sourcePosition: Position.Right,
        targetPosition: Position.Left,
        data: {
          label: (
            <div data-testid={`node-${n.id}`} data-status={run?.status ?? (status ? 'not run' : undefined)}>
              <strong>{n.id}</strong>
              <div className="small">{n.type}</div>
              {run ? (
                <div className={`badge ${run.status}`}>
                  {run.status} · {run.duration_ms} ms
                </div>
              ) : status ? (
                <div className="badge">not run</div>
              ) : null}
              {problems?.map((p, i) => (
                <div key={i} className="node-error" role="alert">
                  {p}
                </div>
              ))}
            </div>
          ),
        },
        className: ['wf-node', run?.status ?? '', problems ? 'invalid' : '', n.id === selected ? 'chosen' : ''].join(
          ' ',
        ),
      };
    });
    const flowEdges: Edge[] = edges.map((e) => ({
      id: `${e.source}->${e.target}`,
      source: e.source,
      target: e.target,
      animated: false,
    }));
    return { flowNodes, flowEdges };
  }, [nodes, edges, status, errors, selected]);
  return (
    <div className="graph" role="group" aria-label={label}>
      <ReactFlow
        // fitView applies when the view mounts: a new node or a new error fits the view again.
        key={`${nodes.length}:${errors?.size ?? 0}`}
        nodes={flow.flowNodes}
        edges={flow.flowEdges}
        fitView
        nodesConnectable={!!onConnect}
        onConnect={onConnect}
        onNodeClick={(_, node) => onSelect?.(node.id)}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
