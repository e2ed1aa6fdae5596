import mongoose, { type Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { ExecutionRepository } from '../src/persistence/execution.repository';
import { WorkflowRepository } from '../src/persistence/workflow.repository';

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
