import type { Dispatcher } from 'undici';
import type { HttpGrant } from '../domain/tools.js';
import { httpTool, renderUrl } from './http-tool.js';
import { ToolError } from './tool.js';

/** A dispatcher that fails the test if a request is ever made. */
const noNetwork = {
  dispatch: () => {
    throw new Error('no request may be made');
  },
} as unknown as Dispatcher;

const grant = (url: string): HttpGrant => ({ type: 'http', name: 'crm', description: 'x', url, method: 'GET' });

describe('httpTool', () => {
  it('URL-encodes arguments, so a value cannot leave the path for the host', () => {
    expect(renderUrl('https://api.example.com/orders/{{args.id}}', { id: '@evil.example.net/#' })).toBe(
      'https://api.example.com/orders/%40evil.example.net%2F%23',
    );
  });

  it('refuses, without a request, a call whose rendered URL leaves the grant origin (a grant stored before validation refused it)', async () => {
    const tool = httpTool(grant('https://{{args.host}}.example.com/orders'), {}, noNetwork, 1_000);
    const call = tool.run({ host: 'attacker' }, new AbortController().signal);
    await expect(call).rejects.toBeInstanceOf(ToolError);
    await expect(call).rejects.toThrow('refused: the arguments would send this call outside https://x.example.com');
  });
});
