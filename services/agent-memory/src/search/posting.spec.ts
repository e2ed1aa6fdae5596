import { Posting } from './posting.js';

const entries = (posting: Posting) => new Map(posting.slots.map((slot, i) => [slot, posting.freqs[i]] as const));

describe('Posting', () => {
  it('holds each slot once with its frequency through adds, deletes and moves', () => {
    const posting = new Posting();
    const expected = new Map<number, number>();
    let seed = 3;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let step = 0; step < 2_000; step++) {
      const slot = Math.floor(random() * 60);
      const r = random();
      if (r < 0.5 && !expected.has(slot)) {
        const freq = 1 + Math.floor(random() * 5);
        posting.add(slot, freq);
        expected.set(slot, freq);
      } else if (r < 0.8) {
        posting.delete(slot);
        expected.delete(slot);
      } else {
        // A move goes to a slot holding none of the term, as the index's compaction does.
        const to = 60 + Math.floor(random() * 60);
        if (expected.has(to)) continue;
        posting.move(slot, to);
        if (expected.has(slot)) {
          expected.set(to, expected.get(slot)!);
          expected.delete(slot);
        }
      }
      expect(posting.size).toBe(expected.size);
    }
    expect(entries(posting)).toEqual(expected);
  });

  it('ignores a delete or a move of a slot it does not hold', () => {
    const posting = new Posting();
    posting.add(1, 2);
    posting.delete(5);
    posting.move(7, 8);
    expect(entries(posting)).toEqual(new Map([[1, 2]]));
  });
});
