import { createEvent, parseEnvelope } from './envelope';

describe('parseEnvelope', () => {
  const envelope = (type: string) => JSON.stringify({ ...createEvent('agent.created', 'ten_1', {} as never), type });

  it('reads a known event type', () => {
    expect(parseEnvelope(envelope('agent.created'))).toMatchObject({ type: 'agent.created', tenant_id: 'ten_1' });
  });

  it('reads a well-formed type it does not know, so a newer service’s events are not dropped', () => {
    expect(parseEnvelope(Buffer.from(envelope('agent.tool.invented')))?.type).toBe('agent.tool.invented');
  });

  it('refuses what is not an envelope or whose type is not a dotted name', () => {
    for (const type of [
      '',
      'agent',
      'Agent.Created',
      'agent..created',
      'agent.created\r\nx-evil: 1',
      `a.${'b'.repeat(200)}`,
    ]) {
      expect(parseEnvelope(envelope(type))).toBeUndefined();
    }
    expect(parseEnvelope('not json')).toBeUndefined();
    expect(parseEnvelope(null)).toBeUndefined();
    expect(parseEnvelope(JSON.stringify({ type: 'agent.created' }))).toBeUndefined();
  });
});
