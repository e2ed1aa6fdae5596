import { ConfigError, env, loadConfig } from './config';

describe('loadConfig', () => {
  const shape = { PORT: env.port(8080), BROKERS: env.list('a:1'), DEBUG: env.bool(false), NAME: env.string() };

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
    expect(issues).toMatch(/^PORT: must be an integer >= 0 and <= 65535, not "99999"$/m);
    expect(issues).toMatch(/^DEBUG: must be one of true, false, 1, 0$/m);
    expect(issues).toMatch(/^NAME: is required$/m);
  });

  it('leaves an optional variable out when unset', () => {
    const config = loadConfig({ URL: env.url().orUnset(), KEY: env.string().orUnset() }, { KEY: 'k' });
    expect(config).toEqual({ KEY: 'k' });
    expect(() => loadConfig({ URL: env.url().orUnset() }, { URL: 'not a url' })).toThrow(/URL: must be a URL/);
  });

  it('reads a renamed variable by its former name while the new one is unset', () => {
    const renamed = { ALLOW: env.bool(false).formerly('OLD_ALLOW') };
    expect(loadConfig(renamed, {}).ALLOW).toBe(false);
    expect(loadConfig(renamed, { OLD_ALLOW: 'true' }).ALLOW).toBe(true);
    expect(loadConfig(renamed, { OLD_ALLOW: 'true', ALLOW: 'false' }).ALLOW).toBe(false);
    expect(loadConfig(renamed, { OLD_ALLOW: 'true', ALLOW: '' }).ALLOW).toBe(true);
    expect(() => loadConfig(renamed, { OLD_ALLOW: 'maybe' })).toThrow(/OLD_ALLOW: must be one of/);
  });

  it('checks numbers, ranges and choices', () => {
    const numbers = {
      WEIGHT: env.number(0.5, { min: 0, max: 1 }),
      DAYS: env.positive(30),
      COUNT: env.int(6, 1),
      LEVEL: env.logLevel(),
    };
    expect(loadConfig(numbers, {})).toEqual({ WEIGHT: 0.5, DAYS: 30, COUNT: 6, LEVEL: 'info' });
    expect(loadConfig(numbers, { WEIGHT: '0.25', DAYS: '0.5', COUNT: ' 12 ', LEVEL: 'debug' })).toEqual({
      WEIGHT: 0.25,
      DAYS: 0.5,
      COUNT: 12,
      LEVEL: 'debug',
    });
    const bad = { WEIGHT: '1.5', DAYS: '0', COUNT: '2.5', LEVEL: 'loud' };
    expect(() => loadConfig(numbers, bad)).toThrow(ConfigError);
    try {
      loadConfig(numbers, bad);
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.split(':')[0])).toEqual([
        'WEIGHT',
        'DAYS',
        'COUNT',
        'LEVEL',
      ]);
    }
    expect(() => loadConfig(numbers, { COUNT: 'abc' })).toThrow(/COUNT: must be an integer >= 1, not "abc"/);
  });

  it('checks the MongoDB URI and database name', () => {
    const mongo = { MONGODB_URI: env.mongoUri(), MONGODB_DATABASE: env.database('x') };
    expect(loadConfig(mongo, {})).toEqual({ MONGODB_URI: 'mongodb://127.0.0.1:27017', MONGODB_DATABASE: 'x' });
    expect(() => loadConfig(mongo, { MONGODB_URI: 'http://db' })).toThrow(/MONGODB_URI: must be a mongodb:/);
    expect(() => loadConfig(mongo, { MONGODB_DATABASE: 'a.b' })).toThrow(/MONGODB_DATABASE: /);
  });
});
