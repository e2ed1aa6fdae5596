import { isBlockedAddress, isBlockedName } from './outbound-guard';

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
