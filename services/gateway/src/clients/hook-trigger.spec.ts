import type { workflowV1 } from '@agentplatform/contracts';
import { currentContext, runWithContext } from '@agentplatform/service-kit';
import { HookTrigger } from './hook-trigger.js';
import type { WorkflowClient } from './workflow-client.js';

/** A workflow client that accepts every hook and records, per call, its hooks and the tenant it ran for. */
function recordingWorkflow() {
  const calls: Array<{ hooks: string[]; tenantId: string | undefined }> = [];
  const accepted = (request: workflowV1.TriggerHookRequest) => ({ executionId: `exe_${request.hookId}` });
  const workflow = {
    async triggerHook(request: workflowV1.TriggerHookRequest) {
      calls.push({ hooks: [request.hookId], tenantId: currentContext()?.tenantId });
      return accepted(request);
    },
    async *triggerHooks({ hooks }: workflowV1.TriggerHooksRequest) {
      calls.push({ hooks: hooks.map((h) => h.hookId), tenantId: currentContext()?.tenantId });
      for (const [index, hook] of hooks.entries()) {
        yield { index, outcome: { $case: 'accepted' as const, value: accepted(hook) } };
      }
    },
  };
  return { calls, workflow: workflow as unknown as WorkflowClient };
}

describe('HookTrigger', () => {
  it("sends one tenant's hooks of a turn together, never with another tenant's, each call for its tenant", async () => {
    const { calls, workflow } = recordingWorkflow();
    const trigger = new HookTrigger(workflow, 1_000);
    const hook = (tenantId: string, hookId: string) =>
      runWithContext({ requestId: `req_${hookId}`, tenantId }, () => trigger.trigger({ hookId, path: '', input: {} }));

    const answers = await Promise.all([
      hook('ten_a', 'a1'),
      hook('ten_b', 'b1'),
      hook('ten_a', 'a2'),
      hook('ten_c', 'c1'),
    ]);

    expect(answers.map((a) => a.executionId)).toEqual(['exe_a1', 'exe_b1', 'exe_a2', 'exe_c1']);
    expect(calls).toEqual([
      { hooks: ['a1', 'a2'], tenantId: 'ten_a' },
      { hooks: ['b1'], tenantId: 'ten_b' },
      { hooks: ['c1'], tenantId: 'ten_c' },
    ]);
  });
});
