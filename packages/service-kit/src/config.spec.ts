import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config';

describe('loadConfig', () => {
  const shape = { PORT: env.port(8080), BROKERS: env.list('a:1'), DEBUG: env.bool(false), NAME: z.string() };

  it('applies defaults and parses values', () => {
    expect(loadConfig(shape, { NAME: 'x', BROKERS: 'h1:9092, h2:9092', DEBUG: 'true' })).toEqual({
      PORT: 8080,
      BROKERS: ['h1:9092', 'h2:9092'],
      DEBUG: true,
      NAME: 'x',
    });
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig(shape, { NAME: 'x', PORT: '' }).PORT).toBe(8080);
  });

  it('fails naming every bad variable', () => {
    let error: unknown;
    try {
      loadConfig(shape, { PORT: '99999', DEBUG: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.join('\n');
    expect(issues).toMatch(/^PORT: /m);
    expect(issues).toMatch(/^DEBUG: /m);
    expect(issues).toMatch(/^NAME: /m);
  });
});
