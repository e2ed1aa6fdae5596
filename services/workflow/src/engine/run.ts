import type { Execution } from '../domain/execution.types.js';

/** What a run does with its execution slot (tenant-slots.ts) while it only waits. */
export interface SlotHold {
  /** Runs `work` without holding a slot, and holds one again before answering. */
  outside<T>(work: () => Promise<T>): Promise<T>;
}

/** One execution this replica is running. */
export interface Run {
  execution: Execution;
  controller: AbortController;
  done: Promise<void>;
  slot: SlotHold;
}

/** No slot to give back: a run that holds none. */
const NO_SLOT: SlotHold = { outside: (work) => work() };

/** A run that is not (yet) held by the lease keeper: a run-first execution, or one being given up. */
export function detachedRun(execution: Execution): Run {
  return { execution, controller: new AbortController(), done: Promise.resolve(), slot: NO_SLOT };
}

/** Ends a run without writing anything: the execution was cancelled, deleted or taken over. */
export class Abandoned extends Error {}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for a promise at most `ms`, without leaving a timer behind when it settles first. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
