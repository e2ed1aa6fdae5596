import { partitionForKey } from './kafka';

describe('partitionForKey', () => {
  // Kafka's own murmur2 test vectors (the Java client's UtilsTest), positive and modulo the count,
  // as the Java producer and the outbox relay's producer place keyed messages.
  it.each([
    ['foobar', 12, 6],
    ['abc', 7, 4],
    ['21', 3, 0],
    ['a-little-bit-long-string', 5, (-985981536 & 0x7fffffff) % 5],
  ])('places key %s on a topic of %i partitions in partition %i', (key, count, partition) => {
    expect(partitionForKey(key, count)).toBe(partition);
  });

  it('spreads tenant ids over every partition', () => {
    const seen = new Set(Array.from({ length: 500 }, (_, i) => partitionForKey(`ten_${i}`, 12)));
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});
