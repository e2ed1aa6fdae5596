// @ts-check
'use strict';
/**
 * The soak's mixed load, open loop: requests are sent on schedule whether or not earlier ones
 * have answered (a client population, not a fixed set of connections that slows down with the
 * server). Per second at 40 requests/s: chat 12, memory add 10, search 6, hooks 6, lists 4,
 * agent create and delete 2 (one of each); other rates scale every kind alike.
 */

/**
 * @typedef {{ kind: string, tenant: number, status: number, ms: number, retryAfter: string | null, body: any, at: number }} Answer
 *   one answer (status 0: none came, the request failed or timed out)
 */

/** Requests per second of each kind at 40 requests/s. */
const MIX = { chat: 12, 'memory add': 10, search: 6, hook: 6, list: 4, 'agent create': 1, 'agent delete': 1 };
const BASE_RATE = 40;
/** Requests in flight at most; past it a due request is not sent and counted as skipped. */
const MAX_OUTSTANDING = 2_000;
const REQUEST_TIMEOUT_MS = 30_000;
const TICK_MS = 50;

const WORDS = 'refund shipping invoice order delay customer account password billing plan upgrade support'.split(' ');

/** @param {number} n */
function sentence(n) {
  const words = [];
  for (let i = 0; i < 8; i++) words.push(WORDS[(n * 7 + i * 3) % WORDS.length]);
  return `${words.join(' ')} #${n}`;
}

/**
 * One request of a kind for a tenant; answers what to send and what the answer's body names
 * (the id the soak later expects an event about).
 * @param {string} kind
 * @param {any} tenant
 * @param {number} n a counter, to vary the requests
 * @param {string[]} toDelete agents created by the soak, waiting to be deleted
 */
function requestFor(kind, tenant, n, toDelete) {
  const agent = tenant.agents[n % tenant.agents.length];
  switch (kind) {
    case 'chat':
      return {
        method: 'post',
        path: `/api/v1/agents/${agent}/chat`,
        body: { message: sentence(n), session_id: `s${n % 20}` },
      };
    case 'memory add':
      return { method: 'post', path: '/api/v1/memory', body: { agent_id: agent, content: sentence(n) } };
    case 'search':
      return { method: 'post', path: '/api/v1/memory/search', body: { agent_id: agent, query: sentence(n), top_k: 5 } };
    case 'hook':
      return { method: 'post', path: tenant.hookPath, body: { n }, anonymous: true };
    case 'list': {
      const lists = [
        '/api/v1/agents?limit=20',
        `/api/v1/memory?agent_id=${agent}&limit=20`,
        `/api/v1/workflows/${tenant.workflowId}/executions?limit=20`,
        `/api/v1/webhooks/${tenant.webhookId}/deliveries?limit=20`,
      ];
      return { method: 'get', path: lists[n % lists.length] };
    }
    case 'agent create':
      return { method: 'post', path: '/api/v1/agents', body: { name: `soak-tmp-${n}`, type: 'assistant' } };
    case 'agent delete': {
      const id = toDelete.shift();
      return id ? { method: 'delete', path: `/api/v1/agents/${id}` } : undefined;
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

/**
 * Runs the load for `seconds` at `rate` requests/s over the tenants, calling `onAnswer` for every
 * answer (or failure to get one).
 * @param {{ url: string, tenants: any[], rate: number, seconds: number, onAnswer: (answer: Answer) => void }} options
 */
async function runLoad({ url, tenants, rate, seconds, onAnswer }) {
  const scale = rate / BASE_RATE;
  const kinds = Object.entries(MIX).map(([kind, perSecond]) => ({ kind, perSecond: perSecond * scale, sent: 0 }));
  /** @type {Map<any, string[]>} */
  const created = new Map(tenants.map((t) => [t, []]));
  let outstanding = 0;
  let skipped = 0;
  let counter = 0;
  const started = Date.now();
  /** @type {Set<Promise<void>>} */
  const pending = new Set();

  /** @param {string} kind */
  const send = (kind) => {
    const n = counter++;
    const tenant = tenants[n % tenants.length];
    const request = requestFor(kind, tenant, n, /** @type {string[]} */ (created.get(tenant)));
    if (!request) return;
    if (outstanding >= MAX_OUTSTANDING) {
      skipped += 1;
      return;
    }
    outstanding += 1;
    const at = Date.now();
    const headers = { 'content-type': 'application/json' };
    if (!request.anonymous) Object.assign(headers, { authorization: `Bearer ${tenant.token}` });
    const done = fetch(`${url}${request.path}`, {
      method: request.method.toUpperCase(),
      headers,
      body: request.body ? JSON.stringify(request.body) : undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
      .then(async (res) => {
        const text = await res.text();
        let body;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        if (kind === 'agent create' && res.status === 201) created.get(tenant)?.push(body.id);
        onAnswer({
          kind,
          tenant: tenant.index,
          status: res.status,
          ms: Date.now() - at,
          retryAfter: res.headers.get('retry-after'),
          body,
          at,
        });
      })
      .catch(() =>
        onAnswer({ kind, tenant: tenant.index, status: 0, ms: Date.now() - at, retryAfter: null, body: undefined, at }),
      )
      .finally(() => {
        outstanding -= 1;
        pending.delete(done);
      });
    pending.add(done);
  };

  while (Date.now() - started < seconds * 1000) {
    const elapsed = (Date.now() - started) / 1000;
    for (const k of kinds) {
      const due = Math.floor(k.perSecond * elapsed);
      while (k.sent < due) {
        k.sent += 1;
        send(k.kind);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(pending);
  return { skipped };
}

module.exports = { runLoad, MIX, BASE_RATE };
