import { ValidationError } from '@agentplatform/service-kit';
import { mergeConfig, validateAgentInput } from './agent.js';

const fields = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.details.map((d) => d.field);
    throw error;
  }
  return [];
};

describe('agent validation', () => {
  it('requires name and type on create, not on update', () => {
    expect(fields(() => validateAgentInput({}, 'create'))).toEqual(['name', 'type']);
    expect(fields(() => validateAgentInput({}, 'update'))).toEqual([]);
  });

  it('names every wrong field', () => {
    expect(
      fields(() =>
        validateAgentInput(
          {
            name: 'x',
            type: 'robot',
            status: 'asleep',
            memoryTypes: ['semantic', 'dream'],
            config: { temperature: 3, max_tokens: 1.5, model: '' },
          },
          'create',
        ),
      ),
    ).toEqual(['type', 'status', 'memory_types[1]', 'config.model', 'config.temperature', 'config.max_tokens']);
  });

  it('drops unknown config keys, dedupes memory types and merges config patches', () => {
    const valid = validateAgentInput(
      { name: ' A ', type: 'custom', memoryTypes: ['semantic', 'semantic'], config: { temperature: 1, x: 1 } },
      'create',
    );
    expect(valid).toEqual({ name: 'A', type: 'custom', memoryTypes: ['semantic'], config: { temperature: 1 } });
    expect(mergeConfig({ model: 'm', temperature: 1 }, { model: null, max_tokens: 10 })).toEqual({
      temperature: 1,
      max_tokens: 10,
    });
  });
});
