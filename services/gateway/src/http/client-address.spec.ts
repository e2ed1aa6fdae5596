import { addressKey } from './client-address';

describe('client addresses as per-address limits count them', () => {
  it('keeps IPv4 addresses, mapped ones included', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 client by its /64, however the address is written', () => {
    const key = '2001:db8:aa:bb::/64';
    expect(addressKey('2001:db8:aa:bb::1')).toBe(key);
    expect(addressKey('2001:0db8:00aa:00bb:ffff:1:2:3')).toBe(key);
    expect(addressKey('2001:db8:aa:bb:1::1.2.3.4')).toBe(key);
    expect(addressKey('2001:db8:aa:bb::1%eth0')).toBe(key);
    expect(addressKey('2001:db8:aa:bc::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});
