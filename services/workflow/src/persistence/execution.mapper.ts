import type { Execution, ExecutionChanges, NodeExecution } from '../domain/execution.types.js';
import type { Lease } from '../domain/lease.js';
import { sealedKeyId } from '../domain/sealed-headers.js';
import type { ExecutionDocument, NodeExecutionDocument } from './execution.schema.js';

/** The object without its undefined fields: a document stores no key for a field it does not have. */
function defined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

function toNodeExecution(doc: NodeExecutionDocument): NodeExecution {
  return defined({
    nodeId: doc.node_id,
    status: doc.status,
    startedAt: doc.started_at,
    durationMs: doc.duration_ms,
    output: doc.output,
    error: doc.error,
    attempts: doc.attempts,
  });
}

function fromNodeExecution(result: NodeExecution): NodeExecutionDocument {
  return defined({
    node_id: result.nodeId,
    status: result.status,
    started_at: result.startedAt,
    duration_ms: result.durationMs,
    output: result.output,
    error: result.error,
    attempts: result.attempts,
  });
}

export function toExecution(doc: ExecutionDocument): Execution {
  return defined({
    id: doc._id,
    tenantId: doc.tenant_id,
    workflowId: doc.workflow_id,
    status: doc.status,
    trigger: doc.trigger,
    input: doc.input,
    // Executions stored before versions ran the only version there was.
    workflowVersion: doc.workflow_version ?? 1,
    parentExecutionId: doc.parent_execution_id,
    parentNodeId: doc.parent_node_id,
    depth: doc.depth,
    retryOf: doc.retry_of,
    graph: doc.graph,
    nodeExecutions: (doc.node_executions ?? []).map(toNodeExecution),
    inFlight: doc.in_flight ? { nodeId: doc.in_flight.node_id, startedAt: doc.in_flight.started_at } : undefined,
    output: doc.output,
    error: doc.error,
    failedNodeId: doc.failed_node_id,
    startedAt: doc.started_at,
    completedAt: doc.completed_at,
    durationMs: doc.duration_ms,
    deadlineAt: doc.deadline_at,
    startedEvent: doc.started_event ?? false,
  });
}

/** The stored fields of what an execution's write changes. */
export function fromChanges(changes: ExecutionChanges): Partial<ExecutionDocument> {
  return defined({
    status: changes.status,
    node_executions: changes.nodeExecutions?.map(fromNodeExecution),
    in_flight: changes.inFlight && { node_id: changes.inFlight.nodeId, started_at: changes.inFlight.startedAt },
    output: changes.output,
    error: changes.error,
    failed_node_id: changes.failedNodeId,
    completed_at: changes.completedAt,
    duration_ms: changes.durationMs,
    started_event: changes.startedEvent,
  });
}

/** A new execution as stored, with the lease it is stored under. */
export function fromExecution(execution: Execution, lease: Lease): ExecutionDocument {
  const { inFlight, nodeExecutions, ...rest } = execution;
  return defined({
    _id: rest.id,
    tenant_id: rest.tenantId,
    workflow_id: rest.workflowId,
    trigger: rest.trigger,
    input: rest.input,
    workflow_version: rest.workflowVersion,
    parent_execution_id: rest.parentExecutionId,
    parent_node_id: rest.parentNodeId,
    depth: rest.depth,
    retry_of: rest.retryOf,
    graph: rest.graph,
    secret_key_id: sealedKeyId(rest.graph.nodes),
    started_at: rest.startedAt,
    deadline_at: rest.deadlineAt,
    ...fromChanges({ ...rest, nodeExecutions, inFlight }),
    status: rest.status,
    started_event: rest.startedEvent,
    lease_owner: lease.owner,
    lease_until: lease.until,
    claims: 0,
  });
}
