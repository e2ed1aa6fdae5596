import { SecretBox } from '@agentplatform/service-kit';
import { headerContext, type HttpGrant, type McpGrant, type ToolGrant } from '../domain/tools.js';
import { openHeaders } from '../tools/agent-tools.js';
import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { prepareTools } from './prepare-tools.js';

function setup() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  fakes.tools.workflows.add('t1', 'wf_mine');
  fakes.tools.workflows.add('t2', 'wf_theirs');
  return { deps, fakes };
}

const http = (headers?: Record<string, string>, name = 'crm'): HttpGrant => ({
  type: 'http',
  name,
  description: 'the CRM',
  url: 'https://crm.example.com/lookup',
  method: 'POST',
  ...(headers ? { headers } : {}),
});
const mcp = (headers?: Record<string, string>): McpGrant => ({
  type: 'mcp',
  name: 'docs',
  server_url: 'https://mcp.example.com/',
  ...(headers ? { headers } : {}),
});

describe('prepareTools', () => {
  it("accepts the tenant's own workflows and refuses unknown or another tenant's, naming each field", async () => {
    const { deps } = setup();
    const grants: ToolGrant[] = [
      { type: 'memory_search' },
      { type: 'workflow', workflow_id: 'wf_mine' },
      { type: 'workflow', workflow_id: 'wf_theirs' },
      { type: 'workflow', workflow_id: 'wf_missing' },
    ];
    await expect(prepareTools(deps, 't1', 'agt_1', grants)).rejects.toMatchObject({
      code: 'validation_error',
      details: [
        { field: 'config.tools[2].workflow_id', message: 'is not a workflow of this tenant' },
        { field: 'config.tools[3].workflow_id', message: 'is not a workflow of this tenant' },
      ],
    });
    await expect(prepareTools(deps, 't1', 'agt_1', grants.slice(0, 2))).resolves.toEqual(grants.slice(0, 2));
    // The same id is valid for the tenant that owns it.
    await expect(prepareTools(deps, 't2', 'agt_2', [grants[2]!])).resolves.toEqual([grants[2]]);
  });

  it('seals http and mcp header values, which only this agent and grant can open', async () => {
    const { deps, fakes } = setup();
    const [httpGrant, mcpGrant] = (await prepareTools(deps, 't1', 'agt_1', [
      http({ Authorization: 'Bearer crm-secret' }),
      mcp({ 'X-Api-Key': 'mcp-secret' }),
    ])) as [HttpGrant, McpGrant];

    const sealed = httpGrant.headers!.Authorization!;
    expect(sealed).not.toContain('crm-secret');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(JSON.stringify(mcpGrant)).not.toContain('mcp-secret');
    expect(openHeaders(fakes.tools.box, 'agt_1', httpGrant)).toEqual({ Authorization: 'Bearer crm-secret' });
    expect(openHeaders(fakes.tools.box, 'agt_1', mcpGrant)).toEqual({ 'X-Api-Key': 'mcp-secret' });
    // Bound to the agent: another agent holding the copied value cannot open it.
    expect(() => fakes.tools.box.open(sealed, headerContext('agt_2', httpGrant, 'Authorization'))).toThrow();
    // The rest of the grant is as given.
    expect(httpGrant).toMatchObject({ name: 'crm', url: 'https://crm.example.com/lookup', method: 'POST' });
  });

  it('keeps the stored values of a grant given again without headers, and seals new ones', async () => {
    const { deps, fakes } = setup();
    const current = await prepareTools(deps, 't1', 'agt_1', [http({ Authorization: 'Bearer old' }), mcp({ K: 'v' })]);

    const [kept, fresh, renamed] = (await prepareTools(
      deps,
      't1',
      'agt_1',
      [http(), mcp({ K: 'new' }), http(undefined, 'other')],
      current,
    )) as [HttpGrant, McpGrant, HttpGrant];
    expect(kept.headers).toEqual((current[0] as HttpGrant).headers);
    expect(openHeaders(fakes.tools.box, 'agt_1', fresh)).toEqual({ K: 'new' });
    // A grant of another name does not inherit the crm grant's headers.
    expect(renamed.headers).toBeUndefined();
  });

  it('keeps stored values only on the same origin, and binds the seal to the origin', async () => {
    const { deps, fakes } = setup();
    const current = await prepareTools(deps, 't1', 'agt_1', [http({ Authorization: 'Bearer old' }), mcp({ K: 'v' })]);
    const elsewhere = { ...http(), url: 'https://attacker.example.net/lookup' };
    const mcpElsewhere = { ...mcp(), server_url: 'https://crm.example.com:8443/' };
    await expect(prepareTools(deps, 't1', 'agt_1', [elsewhere, mcpElsewhere], current)).rejects.toMatchObject({
      code: 'validation_error',
      details: [
        { field: 'config.tools[0].headers', message: expect.stringContaining('url leaves https://crm.example.com') },
        {
          field: 'config.tools[1].headers',
          message: expect.stringContaining('server_url leaves https://mcp.example.com'),
        },
      ],
    });
    // Another path on the same origin keeps them, and they still open.
    const [moved] = (await prepareTools(
      deps,
      't1',
      'agt_1',
      [{ ...http(), url: 'https://crm.example.com/v2/{{args.id}}' }],
      current,
    )) as [HttpGrant];
    expect(openHeaders(fakes.tools.box, 'agt_1', moved)).toEqual({ Authorization: 'Bearer old' });
    // A sealed value copied onto a grant of another origin does not open.
    const copied: HttpGrant = { ...elsewhere, headers: (current[0] as HttpGrant).headers };
    expect(() => openHeaders(fakes.tools.box, 'agt_1', copied)).toThrow();
  });
});
