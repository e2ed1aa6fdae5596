import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import { InMemorySigningKeys } from '../testing/in-memory.js';
import { announceWithdrawnKey } from './announce-withdrawn-key.js';

function setup() {
  const fakes = { outbox: new InMemoryOutbox(), signingKeys: new InMemorySigningKeys(['kid_1', 'kid_2']) };
  // The fakes implement the calls the use case makes; the real classes also carry mongoose internals.
  return { ...fakes, deps: fakes as unknown as Parameters<typeof announceWithdrawnKey>[0] };
}

describe('announceWithdrawnKey', () => {
  it('marks the key withdrawn and tells the gateways to stop trusting it', async () => {
    const { deps, outbox, signingKeys } = setup();
    await announceWithdrawnKey(deps, 'kid_1');
    expect(signingKeys.withdrawnAt.has('kid_1')).toBe(true);
    expect(outbox.events).toEqual([
      expect.objectContaining({ type: 'access.signing_key.withdrawn', data: { kid: 'kid_1' } }),
    ]);
  });

  it('announces a key once, however many replicas notice it', async () => {
    const { deps, outbox } = setup();
    await Promise.all([announceWithdrawnKey(deps, 'kid_2'), announceWithdrawnKey(deps, 'kid_2')]);
    await announceWithdrawnKey(deps, 'kid_2');
    expect(outbox.types()).toEqual(['access.signing_key.withdrawn']);
  });

  it('announces nothing for a key it could not mark', async () => {
    const { deps, outbox } = setup();
    await announceWithdrawnKey(deps, 'kid_unknown');
    expect(outbox.events).toEqual([]);
  });

  it('stores no announcement when marking fails', async () => {
    const { deps, outbox, signingKeys } = setup();
    jest.spyOn(signingKeys, 'markWithdrawn').mockRejectedValueOnce(new Error('mongo down'));
    await expect(announceWithdrawnKey(deps, 'kid_1')).rejects.toThrow('mongo down');
    expect(outbox.events).toEqual([]);
  });
});
