/**
 * One term's postings: the slots whose document holds the term, with its frequency in each. A
 * query scans them as two plain arrays (a Map's iterator made an entry per slot per query term,
 * and a chatting agent's every episodic memory holds the question's terms); the slot -> entry
 * map is for the writes, which move or drop one entry by swapping the last one into its place.
 */
export class Posting {
  readonly slots: number[] = [];
  readonly freqs: number[] = [];
  private readonly entry = new Map<number, number>();

  get size(): number {
    return this.slots.length;
  }

  add(slot: number, freq: number): void {
    this.entry.set(slot, this.slots.length);
    this.slots.push(slot);
    this.freqs.push(freq);
  }

  delete(slot: number): void {
    const at = this.entry.get(slot);
    if (at === undefined) return;
    this.entry.delete(slot);
    const lastSlot = this.slots.pop()!;
    const lastFreq = this.freqs.pop()!;
    if (at === this.slots.length) return;
    this.slots[at] = lastSlot;
    this.freqs[at] = lastFreq;
    this.entry.set(lastSlot, at);
  }

  /** The document in slot `from` now lives in slot `to` (which held none of this term). */
  move(from: number, to: number): void {
    const at = this.entry.get(from);
    if (at === undefined) return;
    this.entry.delete(from);
    this.slots[at] = to;
    this.entry.set(to, at);
  }
}
