import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import type { Execution } from '../src/domain/execution.types';
import { ExecutionRepository } from '../src/persistence/execution.repository';
import type { ExecutionDocument } from '../src/persistence/execution.schema';
import { WorkflowRepository } from '../src/persistence/workflow.repository';
import type { WorkflowDocument } from '../src/persistence/workflow.schema';
import { newExecution } from '../src/testing/in-memory';

/** The workflow service's repositories on a database of their own, for `suiteFixture`. */
export interface WorkflowStore {
  connection: Connection;
  workflows: WorkflowRepository;
  executions: ExecutionRepository;
  /** Drops the database and closes the connection. */
  stop(): Promise<void>;
}

/**
 * Opens a fresh database (`workflow_<label>_<random>`) on the real MongoDB-compatible server of
 * jest's global setup and initializes both repositories on it (collections and indexes), as the
 * service's start-up does. No service process runs: the suites drive the repositories directly.
 */
export async function startWorkflowStore(label: string): Promise<WorkflowStore> {
  const connection = await mongoose
    .createConnection(process.env.MONGODB_URI!, { dbName: `workflow_${label}_${randomBytes(4).toString('hex')}` })
    .asPromise();
  const stop = async () => {
    await connection.dropDatabase();
    await connection.close();
  };
  try {
    const workflows = new WorkflowRepository(connection);
    const executions = new ExecutionRepository(connection);
    await Promise.all([workflows.init(), executions.init()]);
    return { connection, workflows, executions, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * An execution of tenant ten_1's workflow wf_1 with no nodes, started at `startedAt` with a
 * minute to run; unless it is running, it finished `tookMs` later.
 */
export function executionAt(id: string, status: Execution['status'], startedAt: Date, tookMs = 5): Execution {
  return newExecution([], {
    id,
    tenantId: 'ten_1',
    status,
    input: {},
    startedAt,
    deadlineAt: new Date(startedAt.getTime() + 60_000),
    startedEvent: true,
    ...(status === 'running' ? {} : { completedAt: new Date(startedAt.getTime() + tookMs), durationMs: tookMs }),
  });
}

/**
 * A finished execution with no nodes as the repository stores it, without a version (as stored
 * before versions): history written straight to the collection.
 */
export function storedExecution(id: string, tenantId: string, workflowId: string, at: Date): ExecutionDocument {
  return {
    _id: id,
    tenant_id: tenantId,
    workflow_id: workflowId,
    status: 'completed',
    trigger: 'manual',
    input: {},
    graph: { nodes: [], edges: [] },
    node_executions: [],
    started_at: at,
    completed_at: at,
    deadline_at: at,
    started_event: true,
    lease_owner: null,
    lease_until: at,
    claims: 0,
  };
}

/** An active workflow with no nodes and no schedule as the repository stores it. */
export function storedWorkflow(id: string, tenantId: string, at: Date): WorkflowDocument {
  return {
    _id: id,
    tenant_id: tenantId,
    hook_id: id.replace(/^wf_/, 'hk_'),
    name: 'old',
    status: 'active',
    version: 1,
    nodes: [],
    edges: [],
    next_run_at: null,
    created_at: at,
    updated_at: at,
  };
}
