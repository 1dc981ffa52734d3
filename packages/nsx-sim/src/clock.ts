import { randomUUID } from 'node:crypto';

/** Wall clock in epoch milliseconds (NSX timestamps are epoch ms). */
export interface Clock {
  now(): number;
}

/** Source of NSX UUIDs (unique_id, node_id, request ids). */
export interface IdSource {
  uuid(): string;
}

export const systemClock: Clock = { now: () => Date.now() };
export const randomIds: IdSource = { uuid: () => randomUUID() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Deterministic ids for tests: "00000000-0000-4000-8000-000000000001", ... */
export class SequentialIds implements IdSource {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
}
