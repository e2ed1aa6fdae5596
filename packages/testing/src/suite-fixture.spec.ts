import { suiteFixture } from './suite-fixture.js';

/** Stands for a started process: a method that reads its own fields, and stop(). */
class Started {
  constructor(
    readonly port: number,
    private readonly onStop: () => void,
  ) {}

  url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.onStop();
  }
}

describe('suiteFixture', () => {
  const events: string[] = [];
  let readWhileDeclaring: unknown;

  describe('a suite using it', () => {
    const fixture = suiteFixture(async () => {
      events.push('start');
      return new Started(4711, () => events.push('stop'));
    });
    try {
      readWhileDeclaring = fixture.port;
    } catch (error) {
      readWhileDeclaring = error;
    }

    it('hands the tests what the start function returned, methods bound to it', () => {
      expect(events).toEqual(['start']);
      expect(fixture.port).toBe(4711);
      const { url } = fixture;
      expect(url()).toBe('http://127.0.0.1:4711');
    });
  });

  it('stopped what it started once the suite ended', () => {
    expect(events).toEqual(['start', 'stop']);
  });

  it('refuses a read before the suite started, naming what was read', () => {
    expect(readWhileDeclaring).toBeInstanceOf(Error);
    expect((readWhileDeclaring as Error).message).toContain('port');
  });
});
