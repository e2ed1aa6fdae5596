import { cachedDestinations, destinationOf } from './destination';

describe('destinationOf', () => {
  it('is the host and port, with the scheme’s default port, whatever the path', () => {
    expect(destinationOf('https://Hooks.Example.com/a?x=1')).toBe('hooks.example.com:443');
    expect(destinationOf('http://hooks.example.com/b')).toBe('hooks.example.com:80');
    expect(destinationOf('http://127.0.0.1:8080/c')).toBe('127.0.0.1:8080');
    expect(destinationOf('http://[::1]:9000/')).toBe('[::1]:9000');
  });

  it('tells ports of one host apart', () => {
    expect(destinationOf('http://127.0.0.1:8080/')).not.toBe(destinationOf('http://127.0.0.1:8081/'));
  });
});

describe('cachedDestinations', () => {
  it('answers what destinationOf answers, for many more URLs than it remembers', () => {
    const cached = cachedDestinations();
    for (let i = 0; i < 12_000; i += 1) {
      const url = `http://host-${i % 13}.example:${8000 + (i % 7)}/path/${i}`;
      expect(cached(url)).toBe(destinationOf(url));
    }
  });
});
