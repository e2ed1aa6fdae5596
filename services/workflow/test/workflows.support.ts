import { waitFor, type Http } from '@agentplatform/testing';

/** Waits until an execution has left `running` and answers it. */
export async function finished(http: Http, workflowId: string, executionId: string, timeoutMs = 30_000): Promise<any> {
  return waitFor(
    async () => {
      const res = await http.get(`/api/v1/workflows/${workflowId}/executions/${executionId}`);
      return res.status === 200 && res.body.status !== 'running' ? res.body : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `execution ${executionId} to finish` },
  );
}

/** The node results of an execution by node id. */
export function byNode(execution: { node_executions: Array<{ node_id: string }> }): Record<string, any> {
  return Object.fromEntries(execution.node_executions.map((n) => [n.node_id, n]));
}

/** The secret hook id in a workflow's webhook_url (`hk_` and 32 base62 characters). */
export function hookIdOf(workflow: { webhook_url: string }): string {
  const match = /\/hooks\/(hk_[0-9A-Za-z]{32})(?:\/|$)/.exec(workflow.webhook_url);
  if (!match) throw new Error(`no hook id in ${workflow.webhook_url}`);
  return match[1]!;
}
