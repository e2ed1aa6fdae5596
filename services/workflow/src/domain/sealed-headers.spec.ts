import { SecretBox, type FieldIssue } from '@agentplatform/service-kit';
import { validateNodeConfig } from './node-config.js';
import {
  SET_HEADER,
  UnreadableHeaderError,
  fixedOrigin,
  maskHeaders,
  openHeaders,
  resealHeaders,
  sealHeaders,
  sealedKeyId,
} from './sealed-headers.js';
import type { WorkflowNode } from './workflow.types.js';

const owner = { tenantId: 'ten_1', workflowId: 'wf_1' };
const box = SecretBox.fromKeyring(SecretBox.generateKeyring('k1'));

function http(url: string, headers?: Record<string, string>, id = 'call'): WorkflowNode {
  return { id, type: 'integration', config: { service: 'http', url, ...(headers ? { headers } : {}) } };
}

function sealed(nodes: WorkflowNode[], stored: WorkflowNode[] = []) {
  const issues: FieldIssue[] = [];
  return { nodes: sealHeaders(box, owner, nodes, stored, issues), issues };
}

describe('fixedOrigin', () => {
  it.each([
    ['https://api.example.com/v1/{{ input.path }}', 'https://api.example.com'],
    ['https://api.example.com:8443?q={{ input.q }}', 'https://api.example.com:8443'],
    ['http://127.0.0.1:9000/hook', 'http://127.0.0.1:9000'],
    ['https://api.example.com', 'https://api.example.com'],
  ])('%s reaches %s', (url, origin) => {
    expect(fixedOrigin(url)).toBe(origin);
  });

  it.each([
    '{{ input.url }}',
    'https://{{ input.host }}/x',
    'https://api.example.com{{ input.rest }}',
    'https://api.example.com:{{ input.port }}/x',
    'https://api.example.com.{{ input.tld }}/x',
    'https://api.example.com\\{{ input.rest }}',
    'not a url',
  ])('%s has no fixed origin', (url) => {
    expect(fixedOrigin(url)).toBeUndefined();
  });

  it('refuses a template in the scheme, host or port at validation, naming the url', () => {
    const config = { service: 'http', url: 'https://{{ input.host }}/x' };
    expect(validateNodeConfig('integration', config, 'nodes[0].config')).toEqual([
      { field: 'nodes[0].config.url', message: expect.stringContaining('templates may fill only the path and query') },
    ]);
    expect(validateNodeConfig('integration', { ...config, url: 'https://h.example/{{ x }}' }, 'n')).toEqual([]);
  });
});

describe('sealed header values', () => {
  it('seals every value, shows "[set]", opens at run time only for the same node and origin', () => {
    const { nodes, issues } = sealed([http('https://api.example.com/x', { Authorization: 'Bearer sk-1' })]);
    expect(issues).toEqual([]);
    const stored = nodes[0]!.config.headers as Record<string, string>;
    expect(SecretBox.keyIdOf(stored.Authorization!)).toBe('k1');
    expect(JSON.stringify(nodes)).not.toContain('sk-1');
    expect(maskHeaders(nodes)[0]!.config.headers).toEqual({ Authorization: SET_HEADER });
    expect(openHeaders(box, owner, nodes[0]!).config.headers).toEqual({ Authorization: 'Bearer sk-1' });
    expect(sealedKeyId(nodes)).toBe('k1');

    const elsewhere = { ...nodes[0]!, config: { ...nodes[0]!.config, url: 'https://evil.example/x' } };
    expect(() => openHeaders(box, owner, elsewhere)).toThrow(UnreadableHeaderError);
    expect(() => openHeaders(box, { ...owner, workflowId: 'wf_2' }, nodes[0]!)).toThrow(
      "header 'Authorization' of node 'call' cannot be decrypted",
    );
  });

  it('keeps a stored value for "[set]" while the origin stays, and refuses it when the origin moves', () => {
    const first = sealed([http('https://api.example.com/a', { Authorization: 'Bearer sk-1' })]).nodes;
    const kept = sealed([http('https://api.example.com/b?x={{ 1 }}', { authorization: SET_HEADER })], first);
    expect(kept.issues).toEqual([]);
    expect((kept.nodes[0]!.config.headers as Record<string, string>).authorization).toBe(
      (first[0]!.config.headers as Record<string, string>).Authorization,
    );

    const moved = sealed([http('https://other.example/a', { Authorization: SET_HEADER })], first);
    expect(moved.issues).toEqual([{ field: 'nodes[0].config.headers', message: expect.stringContaining('origin') }]);
    const resent = sealed([http('https://other.example/a', { Authorization: 'Bearer sk-2' })], first);
    expect(resent.issues).toEqual([]);

    const nothing = sealed([http('https://api.example.com/a', { 'X-New': SET_HEADER })], first);
    expect(nothing.issues).toEqual([
      { field: 'nodes[0].config.headers.X-New', message: expect.stringContaining('send the value') },
    ]);
  });

  it('re-seals plaintext and old-key values under the current key, and reports what does not open', () => {
    const oldKey = SecretBox.generateKeyring('k0');
    const old = SecretBox.fromKeyring(oldKey);
    const underOld = sealHeaders(old, owner, [http('https://api.example.com/', { A: 'one' }, 'a')], [], []);
    const plaintext = http('https://api.example.com/', { B: 'two' }, 'b');
    expect(sealedKeyId([...underOld, plaintext])).toBe('');

    const rotated = SecretBox.fromKeyring(`${SecretBox.generateKeyring('k2')},${oldKey}`);
    const { nodes, unreadable } = resealHeaders(rotated, owner, [...underOld, plaintext]);
    expect(unreadable).toEqual([]);
    expect(sealedKeyId(nodes)).toBe('k2');
    expect(nodes.map((n) => openHeaders(rotated, owner, n).config.headers)).toEqual([{ A: 'one' }, { B: 'two' }]);

    const retired = SecretBox.fromKeyring(SecretBox.generateKeyring('k3'));
    const left = resealHeaders(retired, owner, nodes);
    expect(left.nodes).toEqual(nodes);
    expect(left.unreadable.map((u) => [u.nodeId, u.header])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
  });
});
