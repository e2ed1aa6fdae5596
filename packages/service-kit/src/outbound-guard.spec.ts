import { hostname } from 'node:os';
import { guardedConnector, isBlockedAddress, isBlockedAddressError, isBlockedName } from './outbound-guard';

describe('outbound guard address policy', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.100.100.200',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    '[::1]',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each(['localhost', 'api.localhost', 'metadata.google.internal', 'LOCALHOST.'])('blocks the name %s', (name) => {
    expect(isBlockedName(name)).toBe(true);
  });

  it('allows ordinary names', () => {
    expect(isBlockedName('hooks.example.com')).toBe(false);
  });
});

describe('outbound guard refusals', () => {
  it('say the destination is not allowed without naming any address it resolved to', async () => {
    const connect = guardedConnector({ allowPrivate: false, connectTimeoutMs: 1_000 });
    const refusal = (hostname: string) =>
      new Promise<Error | null>((resolve) =>
        connect({ hostname, host: hostname, protocol: 'http:', port: '80' } as never, (...[error, socket]) => {
          socket?.destroy();
          resolve(error);
        }),
      );
    // The machine's own name resolves to a loopback or private address through the checked lookup.
    const byName = await refusal(hostname());
    expect(byName?.message).toBe(`refused: the destination ${hostname()} is not allowed`);
    expect(byName?.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
    expect(isBlockedAddressError(byName)).toBe(true);
    const literal = await refusal('10.1.2.3');
    expect(literal?.message).toBe('refused: the destination 10.1.2.3 is not allowed');
  });
});
