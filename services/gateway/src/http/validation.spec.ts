import { z } from 'zod';
import { ValidationError } from '@agentplatform/service-kit';
import { fieldPath, parseOrThrow } from './validation';

describe('request validation', () => {
  it('names nested fields as request paths', () => {
    expect(fieldPath(['nodes', 2, 'config', 'rules', 0, 'if'])).toBe('nodes[2].config.rules[0].if');
    expect(fieldPath(['limit'], 'query')).toBe('query.limit');
    expect(fieldPath([])).toBe('body');
  });

  it('reports every bad field, a missing one as required', () => {
    const schema = z.object({ name: z.string(), top_k: z.number().int().max(100) });
    let error: unknown;
    try {
      parseOrThrow(schema, { top_k: 500 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'top_k', message: expect.stringMatching(/100/) },
    ]);
  });
});
