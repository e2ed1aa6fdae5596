import type { FieldIssue } from '@agentplatform/service-kit';
import { publicGrant, validateTools } from './tools.js';

function check(raw: unknown): { tools?: unknown; fields: string[] } {
  const issues: FieldIssue[] = [];
  const tools = validateTools(raw, issues);
  return { tools, fields: issues.map((i) => i.field) };
}

describe('tool grants', () => {
  it('accepts each grant type and fills defaults', () => {
    const { tools, fields } = check([
      { type: 'memory_search' },
      { type: 'memory_add', extra: 'dropped' },
      { type: 'workflow', workflow_id: 'wf_1' },
      { type: 'http', name: 'lookup', url: 'https://api.example.com/orders/{{args.id}}' },
      { type: 'mcp', name: 'docs-server', server_url: 'https://mcp.example.com/mcp', allowed_tools: ['a', 'a'] },
    ]);
    expect(fields).toEqual([]);
    expect(tools).toEqual([
      { type: 'memory_search' },
      { type: 'memory_add' },
      { type: 'workflow', workflow_id: 'wf_1' },
      {
        type: 'http',
        name: 'lookup',
        description: '',
        url: 'https://api.example.com/orders/{{args.id}}',
        method: 'POST',
      },
      { type: 'mcp', name: 'docs-server', server_url: 'https://mcp.example.com/mcp', allowed_tools: ['a'] },
    ]);
  });

  it.each([
    [[{ type: 'exec' }], 'config.tools[0].type'],
    [[{ type: 'workflow' }], 'config.tools[0].workflow_id'],
    [[{ type: 'http', name: 'x', url: 'gopher://x' }], 'config.tools[0].url'],
    [[{ type: 'http', name: 'x', url: 'https://user:pw@example.com' }], 'config.tools[0].url'],
    [[{ type: 'http', name: 'x', url: 'https://e.com', method: 'TRACE' }], 'config.tools[0].method'],
    [
      [{ type: 'http', name: 'x', url: 'https://e.com', headers: { 'bad header': 'v' } }],
      'config.tools[0].headers.bad header',
    ],
    [[{ type: 'http', name: 'x', url: 'https://e.com', headers: { X: 'a\r\nb' } }], 'config.tools[0].headers.X'],
    [
      [{ type: 'http', name: 'x', url: 'https://e.com', input_schema: { type: 'array' } }],
      'config.tools[0].input_schema',
    ],
    [
      [{ type: 'http', name: 'x', url: 'https://e.com', input_schema: { type: 'object', properties: { a: 1 } } }],
      'config.tools[0].input_schema',
    ],
    [[{ type: 'mcp', name: 'a__b', server_url: 'https://e.com' }], 'config.tools[0].name'],
    [[{ type: 'memory_search' }, { type: 'memory_search' }], 'config.tools[1].type'],
    [
      [
        { type: 'http', name: 'same', url: 'https://e.com' },
        { type: 'workflow', workflow_id: 'w', name: 'same' },
      ],
      'config.tools[1].name',
    ],
    [
      [{ type: 'http', name: 'x', url: 'https://e.com', input_schema: { type: 'object', $defs: {} } }],
      'config.tools[0].input_schema',
    ],
    [[{ type: 'http', name: 'x', url: 'https://e.com', headers: { 'a.b': 'v' } }], 'config.tools[0].headers.a.b'],
    ['not a list', 'config.tools'],
  ])('refuses %j naming %s', (raw, field) => {
    const { tools, fields } = check(raw);
    expect(tools).toBeUndefined();
    expect(fields).toContain(field);
  });

  it('drops the $schema annotation of an input schema', () => {
    const { tools } = check([
      {
        type: 'workflow',
        workflow_id: 'wf_1',
        input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} },
      },
    ]);
    expect(tools).toEqual([
      { type: 'workflow', workflow_id: 'wf_1', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('shows header names, never values', () => {
    expect(
      publicGrant({
        type: 'http',
        name: 'x',
        description: '',
        url: 'https://e.com',
        method: 'GET',
        headers: { 'X-Key': 'sealed' },
      }),
    ).toEqual({
      type: 'http',
      name: 'x',
      description: '',
      url: 'https://e.com',
      method: 'GET',
      header_names: ['X-Key'],
    });
  });
});
