import { isValidSubscription, matchesAny, subscriptionIssues } from './event-matching';

describe('event subscriptions', () => {
  it('accepts types, dotted prefixes, * and the workflow.completed alias', () => {
    for (const name of ['agent.created', 'agent.message', 'agent', 'workflow', 'billing', '*', 'workflow.completed']) {
      expect(isValidSubscription(name)).toBe(true);
    }
    for (const name of ['agent.mesage', 'agent.', 'agen', 'workflow.execution.completed.x', '', '**', 'agent.*']) {
      expect(isValidSubscription(name)).toBe(false);
    }
  });

  it('names the bad entry as events[i]', () => {
    expect(subscriptionIssues(['agent.created', 'nope'])).toEqual([
      { field: 'events[1]', message: expect.stringContaining('"nope"') },
    ]);
    expect(subscriptionIssues([])).toEqual([{ field: 'events', message: 'must list at least one event type' }]);
  });

  it('matches exactly, by dotted prefix (never by partial word), by * and by alias', () => {
    expect(matchesAny(['agent.message'], 'agent.message.created')).toBe(true);
    expect(matchesAny(['agent.message'], 'agent.message.completed')).toBe(true);
    expect(matchesAny(['agent.message'], 'agent.created')).toBe(false);
    expect(matchesAny(['agent.mess'], 'agent.message.created')).toBe(false);
    expect(matchesAny(['workflow.completed'], 'workflow.execution.completed')).toBe(true);
    expect(matchesAny(['workflow.completed'], 'workflow.execution.failed')).toBe(false);
    expect(matchesAny(['*'], 'billing.credits.low')).toBe(true);
  });

  it('matches event types it does not know by the same rules (a newer service may publish them)', () => {
    expect(matchesAny(['*'], 'agent.tool.invented')).toBe(true);
    expect(matchesAny(['agent'], 'agent.tool.invented')).toBe(true);
    expect(matchesAny(['agent.message'], 'agent.tool.invented')).toBe(false);
    expect(matchesAny(['workflow.completed'], 'workflow.execution.invented')).toBe(false);
  });
});
