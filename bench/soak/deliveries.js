// @ts-check
'use strict';
/**
 * What the soak's webhook receiver saw: every delivery's signature verified with its tenant's
 * secret (the SDK's verifier), each event id counted (a second arrival is a duplicate), the lag
 * from the event's created_at to its arrival, and the ids of the things the events are about, so
 * the soak can tell which answered work never announced itself (a lost event).
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { verifyWebhookSignature } = require(path.join(ROOT, 'packages/sdk/dist'));

/** The event that announces each kind of answered work, and where its payload names the work. */
const ANNOUNCED_BY = {
  chat: { type: 'agent.message.completed', field: 'message_id' },
  hook: { type: 'workflow.execution.completed', alt: 'workflow.execution.failed', field: 'execution_id' },
  'agent create': { type: 'agent.created', field: 'agent_id' },
};

/** @param {{ secrets: Map<string, string>, minuteOf: (at: number) => string, lagBuckets: import('./stats').MinuteBuckets }} options */
function createDeliveries({ secrets, minuteOf, lagBuckets }) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  /** @type {Set<string>} ids of the things announced (`type id`) */
  const announced = new Set();
  let badSignatures = 0;
  let received = 0;

  /** @param {import('../../packages/testing/dist').ReceivedRequest} request */
  function record(request) {
    received += 1;
    const secret = secrets.get(request.path);
    if (!secret || !verifyWebhookSignature(request.body, request.headers['x-service-signature'], secret)) {
      badSignatures += 1;
      return;
    }
    const event = JSON.parse(request.body);
    seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
    if (seen.get(event.id) === 1) {
      lagBuckets.add(minuteOf(request.receivedAt), 'delivery lag', request.receivedAt - Date.parse(event.created_at));
      for (const value of Object.values(event.data ?? {})) {
        if (typeof value === 'string') announced.add(`${event.type} ${value}`);
      }
    }
  }

  /**
   * Answered work whose announcing event has not arrived.
   * @param {Map<string, Set<string>>} answered ids of answered work by kind
   */
  function missing(answered) {
    /** @type {Record<string, number>} */
    const out = {};
    for (const [kind, ids] of answered) {
      const how = /** @type {Record<string, { type: string, alt?: string, field: string }>} */ (ANNOUNCED_BY)[kind];
      if (!how) continue;
      out[kind] = [...ids].filter(
        (id) => !announced.has(`${how.type} ${id}`) && !(how.alt && announced.has(`${how.alt} ${id}`)),
      ).length;
    }
    return out;
  }

  function counts() {
    let duplicates = 0;
    for (const n of seen.values()) duplicates += n - 1;
    return { received, unique: seen.size, duplicates, badSignatures };
  }

  return { record, missing, counts };
}

module.exports = { createDeliveries, ANNOUNCED_BY };
