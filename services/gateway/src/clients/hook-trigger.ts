import type { workflowV1 } from '@agentplatform/contracts';
import { DomainError, currentContext, fromCallError, runForTenant, runWithContext } from '@agentplatform/service-kit';
import type { WorkflowClient } from './workflow-client.js';

export type Hook = Omit<workflowV1.TriggerHookRequest, 'requestId'>;

interface Pending {
  request: workflowV1.TriggerHookRequest;
  /** The hook's tenant (the request context's, set once the hook was resolved). */
  tenantId: string | undefined;
  resolve: (answer: workflowV1.TriggerHookResponse) => void;
  reject: (error: unknown) => void;
  settled: boolean;
}

/** Hooks per TriggerHooks call at most. */
const MAX_BATCH = 64;

/**
 * Starts inbound hooks on the workflow service. The hooks of one tenant that reach this point in one
 * turn of the event loop (under load, the requests that one grouped rate-limit count let through
 * together) go out as one TriggerHooks call, whose answers stream back as each hook is accepted or
 * refused, so a slow `last_node` hook holds up no other. A lone hook is one TriggerHook call. Each
 * call is counted for its hooks' tenant (the gateway's in-flight shares): a batch never mixes tenants.
 * A gRPC call costs the gateway and the workflow service more than the rest of a hook's handling.
 *
 * Not service-kit's GroupCommit (or groupedCall): a GroupCommit flush answers its whole batch at
 * once and the next batch waits for it, so one `last_node` hook still running (up to
 * EXECUTE_DEADLINE_MS) would hold every hook of its batch and every hook queued behind it.
 */
export class HookTrigger {
  private queue: Pending[] = [];

  constructor(
    private readonly workflow: WorkflowClient,
    private readonly deadlineMs: number,
  ) {}

  trigger(hook: Hook): Promise<workflowV1.TriggerHookResponse> {
    return new Promise((resolve, reject) => {
      const context = currentContext();
      const request = { ...hook, requestId: context?.requestId ?? '' };
      this.queue.push({ request, tenantId: context?.tenantId, resolve, reject, settled: false });
      if (this.queue.length === 1) setImmediate(this.flush);
    });
  }

  private readonly flush = (): void => {
    const byTenant = new Map<string | undefined, Pending[]>();
    for (const pending of this.queue) {
      const group = byTenant.get(pending.tenantId);
      if (group) group.push(pending);
      else byTenant.set(pending.tenantId, [pending]);
    }
    this.queue = [];
    for (const [tenantId, queued] of byTenant) {
      for (let at = 0; at < queued.length; at += MAX_BATCH) {
        const batch = queued.slice(at, at + MAX_BATCH);
        void runForTenant(tenantId, () => this.send(batch));
      }
    }
  };

  private async send(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      // The request id travels in the call's metadata, taken from the async context.
      runWithContext({ requestId: only.request.requestId, tenantId: only.tenantId }, () =>
        this.workflow.triggerHook(only.request, { deadline: this.deadlineMs }),
      ).then(only.resolve, only.reject);
      return;
    }
    let failure: unknown;
    try {
      const answers = this.workflow.triggerHooks({ hooks: batch.map((p) => p.request) }, { deadline: this.deadlineMs });
      for await (const answer of answers) {
        const pending = batch[answer.index];
        if (!pending || pending.settled || !answer.outcome) continue;
        pending.settled = true;
        if (answer.outcome.$case === 'accepted') pending.resolve(answer.outcome.value);
        else pending.reject(fromCallError(answer.outcome.value));
      }
    } catch (error) {
      failure = error;
    }
    for (const pending of batch) {
      if (!pending.settled)
        pending.reject(
          failure ?? new DomainError('service_unavailable', 'The workflow service did not answer this hook'),
        );
    }
  }
}
