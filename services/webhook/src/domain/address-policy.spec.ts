import { urlProblem } from './address-policy';

describe('address policy', () => {
  it('checks URLs: scheme, credentials, and private hosts unless allowed', () => {
    expect(urlProblem('https://hooks.example.com/x', false)).toBeUndefined();
    expect(urlProblem('ftp://hooks.example.com/x', false)).toBe('must use http or https');
    expect(urlProblem('https://user:pw@hooks.example.com/x', false)).toBe('must not contain credentials');
    expect(urlProblem('http://0x7f.0.0.1/x', false)).toMatch(/private/);
    expect(urlProblem('http://localhost:3000/x', false)).toMatch(/private/);
    expect(urlProblem('http://127.0.0.1:3000/x', true)).toBeUndefined();
  });
});
