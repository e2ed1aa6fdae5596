import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { agentMemory } from './agent-memory.js';
import { createAgent } from './manage-agents.js';

async function setup() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const helper = await createAgent(deps, { tenantId: 't1', name: 'Helper', type: 'assistant' });
  const other = await createAgent(deps, { tenantId: 't1', name: 'Other', type: 'assistant' });
  return { deps, fakes, helper, other };
}

describe("the memory tools' way in", () => {
  it("adds to and searches the bound agent's memory only", async () => {
    const { deps, fakes, helper, other } = await setup();
    const memory = agentMemory(deps, { tenantId: 't1', agentId: helper.id });
    const item = await memory.add({ content: 'The customer prefers e-mail.', metadata: { source: 'tool' } });
    expect(fakes.memories.byId.get(item.id)).toMatchObject({ tenantId: 't1', agentId: helper.id });

    const found = await memory.search('how to contact the customer', 5);
    expect(found.map(({ item: hit }) => hit.id)).toEqual([item.id]);
    await expect(agentMemory(deps, { tenantId: 't1', agentId: other.id }).search('customer', 5)).resolves.toEqual([]);
    await expect(agentMemory(deps, { tenantId: 't2', agentId: helper.id }).search('customer', 5)).rejects.toMatchObject(
      {
        code: 'not_found',
      },
    );
  });

  it("keeps the API's rules: an empty fact is refused naming the field", async () => {
    const { deps, helper } = await setup();
    await expect(
      agentMemory(deps, { tenantId: 't1', agentId: helper.id }).add({ content: ' ', metadata: {} }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'content' }] });
  });
});
