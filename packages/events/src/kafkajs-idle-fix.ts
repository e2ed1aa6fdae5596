/**
 * kafkajs 2.2.4 (its latest release) keeps every broker connection busy once it has sent a
 * request: `RequestQueue.scheduleCheckPendingRequests` re-arms a timer even when nothing is
 * pending, with a negative delay (run at once), so each connection checks an empty queue about a
 * thousand times a second for as long as it lives (tulios/kafkajs#1556, #1704; the fix proposed in
 * #1667 is unreleased). On this platform that was 7% of a core for an idle webhook service.
 *
 * The replacement arms the timer only while requests wait: pushing a request schedules a check,
 * and a fulfilled or timed-out request checks the queue anyway, so nothing waits longer than
 * before. Other kafkajs versions are left alone (`fixKafkajsIdleLoop` answers false; its spec then fails).
 */

interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' own interval for waiting requests that are not throttled (requestQueue/index.js). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
const FIXED_VERSION = '2.2.4';

function scheduleCheckPendingRequests(this: RequestQueue): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

let applied: boolean | undefined;

/** Installs the fix once per process (createKafka calls it); true when kafkajs is the version it fixes. */
export function fixKafkajsIdleLoop(): boolean {
  if (applied !== undefined) return applied;
  // kafkajs has no exports map, so its internals resolve like any file of the package.
  const { version } = require('kafkajs/package.json') as { version: string };
  applied = version === FIXED_VERSION;
  if (applied) {
    const queue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueue };
    queue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  }
  return applied;
}
