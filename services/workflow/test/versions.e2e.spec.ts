import { documentsOf } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import type { ExecutionDocument } from '../src/persistence/execution.schema';
import { startWorkflowStore, storedExecution } from './store.support';

/**
 * Versions against the real MongoDB-compatible server: documents stored before versions read as
 * version 1 and their first change makes them 2; a write conditional on a version that moved on
 * applies nothing.
 */
describe('workflow versions in storage', () => {
  const store = suiteFixture(() => startWorkflowStore('versions'));

  it('reads older workflows and executions as version 1 and bumps conditionally', async () => {
    const { workflows, executions } = store;
    const now = new Date();
    await workflows.model.collection.insertOne({
      _id: 'wf_old',
      tenant_id: 'ten_1',
      name: 'old',
      description: '',
      status: 'active',
      nodes: [{ id: 't', type: 'transform', config: {} }],
      edges: [],
      created_at: now,
      updated_at: now,
    } as never);
    expect((await workflows.get('ten_1', 'wf_old'))?.version).toBe(1);

    const bumped = await workflows.update(
      'ten_1',
      'wf_old',
      { name: 'new', version: 2, updatedAt: now },
      { version: 1 },
    );
    expect(bumped).toMatchObject({ name: 'new', version: 2 });
    // A second writer that read version 1 finds nothing to change.
    const stale = await workflows.update(
      'ten_1',
      'wf_old',
      { name: 'lost', version: 2, updatedAt: now },
      { version: 1 },
    );
    expect(stale).toBeUndefined();
    expect((await workflows.get('ten_1', 'wf_old'))?.name).toBe('new');
    // Another tenant's workflow is not found, whatever the version.
    expect(await workflows.update('ten_2', 'wf_old', { name: 'x', updatedAt: now }, { version: 2 })).toBeUndefined();

    await documentsOf<ExecutionDocument>(executions.model).insertOne(
      storedExecution('exe_old', 'ten_1', 'wf_old', now),
    );
    expect((await executions.getById('ten_1', 'exe_old'))?.workflowVersion).toBe(1);
    expect(await executions.getById('ten_2', 'exe_old')).toBeUndefined();
  });
});
