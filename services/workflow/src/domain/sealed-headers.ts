import { SecretBox, type FieldIssue } from '@agentplatform/service-kit';
import type { JsonObject, WorkflowNode } from './workflow.types.js';

/**
 * Header values of http (`integration`) nodes are secrets (docs/design.md section 7, "Secrets in
 * workflows"): sealed with the SecretBox (DATA_ENCRYPTION_KEY) before they are stored, in the
 * workflow and in every execution's snapshot, and opened only when the node runs. Answers show
 * each header's name with the value `"[set]"`; an update that sends `"[set]"` keeps the stored value.
 *
 * A sealed value is bound to its tenant, workflow, node, header name and the origin of the node's
 * URL (the GCM additional data): a value copied elsewhere, or a URL moved to another host, does not
 * open. That is why URL templates may fill only the path and query.
 */

/** What answers show instead of a header value, and what an update sends to keep one. */
export const SET_HEADER = '[set]';

/** The sealing context of an origin that templates fill (stored by older releases): it never opens. */
const TEMPLATED_ORIGIN = 'templated';

/** Where a node's sealed values belong. */
export interface HeaderOwner {
  tenantId: string;
  workflowId: string;
}

function headersOf(node: WorkflowNode): Record<string, string> | undefined {
  if (node.type !== 'integration') return undefined;
  const headers = node.config.headers;
  return headers !== null && typeof headers === 'object' && !Array.isArray(headers)
    ? (headers as Record<string, string>)
    : undefined;
}

function withHeaders(node: WorkflowNode, headers: Record<string, string>): WorkflowNode {
  return { ...node, config: { ...node.config, headers } as JsonObject };
}

/**
 * The origin (`https://host:port`) a URL template always reaches, or undefined when a `{{ }}`
 * part could change its scheme, host or port: the literal text before the first template must
 * end the authority with `/`, `?` or `#`.
 */
export function fixedOrigin(url: string): string | undefined {
  const cut = url.indexOf('{{');
  let literal = url;
  if (cut >= 0) {
    // A backslash ends the authority for http(s) too; accepting only these three keeps it simple.
    const prefix = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\{}]+[/?#]/.exec(url.slice(0, cut));
    if (!prefix) return undefined;
    literal = prefix[0];
  }
  try {
    const origin = new URL(literal).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function headerContext(owner: HeaderOwner, nodeId: string, origin: string | undefined, header: string): string {
  return `workflow:${owner.tenantId}:${owner.workflowId}:node:${nodeId}:origin:${origin ?? TEMPLATED_ORIGIN}:header:${header.toLowerCase()}`;
}

/** The nodes as answers show them: every header value of an http node is `"[set]"`. */
export function maskHeaders(nodes: readonly WorkflowNode[]): WorkflowNode[] {
  return nodes.map((node) => {
    const headers = headersOf(node);
    return headers ? withHeaders(node, Object.fromEntries(Object.keys(headers).map((k) => [k, SET_HEADER]))) : node;
  });
}

/**
 * The nodes to store: each header value given is sealed; `"[set]"` keeps the value stored for that
 * header (names compare case-insensitively) on the stored node of the same id, provided the node's
 * URL still has the same origin: a stored secret never follows a URL to another host. A problem
 * is added to `issues` with its field (`nodes[i].config.headers...`). Call on validated nodes.
 */
export function sealHeaders(
  box: SecretBox,
  owner: HeaderOwner,
  nodes: readonly WorkflowNode[],
  stored: readonly WorkflowNode[],
  issues: FieldIssue[],
): WorkflowNode[] {
  return nodes.map((node, i) => {
    const headers = headersOf(node);
    if (!headers) return node;
    const field = `nodes[${i}].config.headers`;
    const origin = fixedOrigin(String(node.config.url));
    const before = stored.find((n) => n.id === node.id);
    const storedHeaders = before ? (headersOf(before) ?? {}) : {};
    const storedOrigin = before ? fixedOrigin(String(before.config.url)) : undefined;
    const sealed: Record<string, string> = {};
    let moved = false;
    for (const [name, value] of Object.entries(headers)) {
      if (value !== SET_HEADER) {
        sealed[name] = box.seal(value, headerContext(owner, node.id, origin, name));
        continue;
      }
      const kept = Object.entries(storedHeaders).find(
        ([storedName]) => storedName.toLowerCase() === name.toLowerCase(),
      );
      if (!kept) {
        issues.push({
          field: `${field}.${name}`,
          message: `"${SET_HEADER}" keeps a stored value, but node '${node.id}' has none for this header: send the value`,
        });
      } else if (origin === undefined || origin !== storedOrigin) {
        moved = true;
      } else {
        sealed[name] = kept[1];
      }
    }
    if (moved) {
      issues.push({
        field,
        message: `the url's origin changed (${storedOrigin ?? 'none'} to ${origin ?? 'none'}): stored header values stay with their origin, so send every value of "${SET_HEADER}" again`,
      });
    }
    return withHeaders(node, sealed);
  });
}

/** A header value of a node that cannot be opened: which one, and why. */
export class UnreadableHeaderError extends Error {
  constructor(
    readonly nodeId: string,
    readonly header: string,
    reason: string,
  ) {
    super(`header '${header}' of node '${nodeId}' cannot be decrypted (${reason}); set the node's headers again`);
    this.name = 'UnreadableHeaderError';
  }
}

/**
 * The node with its header values opened, for one run. A value that does not open (a key removed
 * from DATA_ENCRYPTION_KEY too early, or a URL whose origin templates fill) is an
 * UnreadableHeaderError naming the header and the node.
 */
export function openHeaders(box: SecretBox, owner: HeaderOwner, node: WorkflowNode): WorkflowNode {
  const headers = headersOf(node);
  if (!headers || Object.keys(headers).length === 0) return node;
  const origin = fixedOrigin(String(node.config.url));
  const opened: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(headers)) {
    if (origin === undefined) {
      throw new UnreadableHeaderError(
        node.id,
        name,
        'its url lets templates fill the scheme, host or port; templates may fill only the path and query',
      );
    }
    try {
      opened[name] = box.open(sealed, headerContext(owner, node.id, origin, name));
    } catch (error) {
      throw new UnreadableHeaderError(node.id, name, (error as Error).message);
    }
  }
  return withHeaders(node, opened);
}

/**
 * The key id that opens every header value of a graph (the `secret_key_id` stored beside it, so
 * re-sealing finds what a rotation left behind): undefined without header values, `''` when some
 * are in plaintext (stored by older releases) or sealed under different keys.
 */
export function sealedKeyId(nodes: readonly WorkflowNode[]): string | undefined {
  const ids = new Set<string>();
  for (const node of nodes) {
    for (const value of Object.values(headersOf(node) ?? {})) ids.add(SecretBox.keyIdOf(value) ?? '');
  }
  if (ids.size === 0) return undefined;
  return ids.size === 1 ? [...ids][0] : '';
}

/**
 * The graph with every header value sealed under the current key: plaintext ones (stored by
 * older releases) are sealed, others opened and sealed again. Values that do not open are left
 * as they are and reported (runs of their node fail naming them until the owner sets them again).
 */
export function resealHeaders(
  box: SecretBox,
  owner: HeaderOwner,
  nodes: readonly WorkflowNode[],
): { nodes: WorkflowNode[]; unreadable: UnreadableHeaderError[] } {
  const unreadable: UnreadableHeaderError[] = [];
  const resealed = nodes.map((node) => {
    const headers = headersOf(node);
    if (!headers) return node;
    const origin = fixedOrigin(String(node.config.url));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const context = headerContext(owner, node.id, origin, name);
      if (!SecretBox.isSealed(value)) {
        out[name] = box.seal(value, context);
      } else if (SecretBox.keyIdOf(value) === box.currentKeyId) {
        out[name] = value;
      } else {
        try {
          out[name] = box.seal(box.open(value, context), context);
        } catch (error) {
          unreadable.push(new UnreadableHeaderError(node.id, name, (error as Error).message));
          out[name] = value;
        }
      }
    }
    return withHeaders(node, out);
  });
  return { nodes: resealed, unreadable };
}

/**
 * Opens every value sealed under the current key: a keyring whose current key has the right id
 * but the wrong bytes fails here, at start, rather than in every run. Throws an
 * UnreadableHeaderError naming the node and header.
 */
export function checkCurrentKey(box: SecretBox, owner: HeaderOwner, nodes: readonly WorkflowNode[]): void {
  for (const node of nodes) {
    const origin = fixedOrigin(String(node.config.url));
    for (const [name, value] of Object.entries(headersOf(node) ?? {})) {
      if (SecretBox.keyIdOf(value) !== box.currentKeyId) continue;
      try {
        box.open(value, headerContext(owner, node.id, origin, name));
      } catch (error) {
        throw new UnreadableHeaderError(node.id, name, (error as Error).message);
      }
    }
  }
}
