import { EVENT_ALIASES, EVENT_TYPES } from '@agentplatform/events/catalogue';
import type { FieldIssue } from '@agentplatform/service-kit';

const MAX_SUBSCRIPTIONS = 50;

/** True when `name` is a dotted prefix of at least one event type (`agent.message`, `agent`). */
function isKnownPrefix(name: string): boolean {
  return EVENT_TYPES.some((type) => type.startsWith(`${name}.`));
}

/** Whether a subscription entry is acceptable: a type, a dotted prefix of one, `*`, or an alias. */
export function isValidSubscription(name: string): boolean {
  return (
    name === '*' || (EVENT_TYPES as readonly string[]).includes(name) || name in EVENT_ALIASES || isKnownPrefix(name)
  );
}

/** Problems with a subscription list, each naming `events[i]`. */
export function subscriptionIssues(events: readonly string[], field = 'events'): FieldIssue[] {
  if (events.length === 0) return [{ field, message: 'must list at least one event type' }];
  if (events.length > MAX_SUBSCRIPTIONS) return [{ field, message: `must list at most ${MAX_SUBSCRIPTIONS} entries` }];
  const issues: FieldIssue[] = [];
  events.forEach((name, index) => {
    if (!isValidSubscription(name)) {
      issues.push({
        field: `${field}[${index}]`,
        message: `unknown event type "${name}": use an event type, a dotted prefix of one, "*" or an alias (${Object.keys(EVENT_ALIASES).join(', ')})`,
      });
    }
  });
  return issues;
}

/** Whether one subscription entry covers an event type. */
function subscriptionMatches(subscription: string, type: string): boolean {
  return (
    subscription === '*' ||
    subscription === type ||
    EVENT_ALIASES[subscription] === type ||
    type.startsWith(`${subscription}.`)
  );
}

export function matchesAny(subscriptions: readonly string[], type: string): boolean {
  return subscriptions.some((s) => subscriptionMatches(s, type));
}

/** The list as stored: duplicates removed, order kept. */
export function normalizeSubscriptions(events: readonly string[]): string[] {
  return [...new Set(events.map((e) => e.trim()))];
}
