import type { FlowValues } from '../flow-record.js';

/** One destination of aggregated records (Antrea's exporter.Interface). */
export interface FlowRecordExporter {
  readonly name: string;
  start(): Promise<void>;
  /** The records due in one expiry round, in order. */
  export(records: readonly Readonly<FlowValues>[]): Promise<void>;
  /** Idempotent; flushes what is buffered. */
  stop(): Promise<void>;
}
