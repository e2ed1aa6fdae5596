import { isDeepStrictEqual } from 'node:util';
import { checkCurrentKey, resealHeaders, type UnreadableHeaderError } from '../domain/sealed-headers.js';
import type { UseCaseDeps } from './deps.js';

type Deps = Pick<UseCaseDeps, 'workflows' | 'executions' | 'box' | 'logger'>;

function reportUnreadable(deps: Deps, where: Record<string, string>, unreadable: UnreadableHeaderError[]): void {
  for (const problem of unreadable) {
    deps.logger.error(
      { ...where, node_id: problem.nodeId, header: problem.header, reason: problem.message },
      'a sealed header value cannot be decrypted; runs of its node fail until it is set again',
    );
  }
}

/**
 * Seals every workflow's http header values under the current data key (docs/security.md, key
 * rotation): plaintext ones stored by older releases, and those under a key rotated out since.
 * Run before serving, as the webhook service re-seals its signing secrets. A current key that
 * does not open what it sealed stops the start (the message names the workflow, node and
 * header); values under a key the keyring no longer holds are logged and left, and their node
 * fails naming them when it runs. Answers how many workflows this call re-sealed.
 */
export async function resealWorkflowSecrets(deps: Deps): Promise<number> {
  const { box } = deps;
  const sample = await deps.workflows.sealedWith(box.currentKeyId);
  if (sample) {
    try {
      checkCurrentKey(box, { tenantId: sample.tenantId, workflowId: sample.id }, sample.nodes);
    } catch (error) {
      throw new Error(`workflow ${sample.id}: ${(error as Error).message}`);
    }
  }
  let resealed = 0;
  for await (const workflow of deps.workflows.withStaleSecrets(box.currentKeyId)) {
    const owner = { tenantId: workflow.tenantId, workflowId: workflow.id };
    const { nodes, unreadable } = resealHeaders(box, owner, workflow.nodes);
    reportUnreadable(deps, { workflow_id: workflow.id }, unreadable);
    if (!isDeepStrictEqual(nodes, workflow.nodes) && (await deps.workflows.replaceSealedNodes(workflow, nodes)))
      resealed++;
  }
  return resealed;
}

/**
 * The same for the graph snapshots of executions (each run keeps the values its workflow had when
 * it started). Safe beside running executions: a run opens a value under any key of the keyring.
 */
export async function resealExecutionSecrets(deps: Deps): Promise<number> {
  let resealed = 0;
  for await (const snapshot of deps.executions.withStaleSecrets(deps.box.currentKeyId)) {
    const { execution } = snapshot;
    const owner = { tenantId: execution.tenantId, workflowId: execution.workflowId };
    const { nodes, unreadable } = resealHeaders(deps.box, owner, execution.graph.nodes);
    reportUnreadable(deps, { workflow_id: execution.workflowId, execution_id: execution.id }, unreadable);
    if (!isDeepStrictEqual(nodes, execution.graph.nodes) && (await deps.executions.replaceSealedNodes(snapshot, nodes)))
      resealed++;
  }
  return resealed;
}
