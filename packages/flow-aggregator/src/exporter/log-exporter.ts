import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import type { FlowValues } from '../flow-record.js';
import { type FlowFilter, flowLogLine, matchesFilters } from './flow-log-line.js';
import type { FlowRecordExporter } from './flow-record-exporter.js';

export interface LogExporterOptions {
  readonly path: string;
  /** MB before rotation (Antrea's maxSize; 0 means 100 as lumberjack). */
  readonly maxSizeMb: number;
  /** Rotated files kept; 0 keeps all. */
  readonly maxBackups: number;
  readonly compress: boolean;
  readonly prettyPrint: boolean;
  readonly filters: readonly FlowFilter[];
  readonly logger: Logger;
  /** Clock in ms (names of rotated files). */
  readonly now?: () => number;
}

/**
 * flowLogger: one line per aggregated record appended to `path`, one write per export round.
 * Rotated like Antrea's (lumberjack): past maxSize the file is renamed
 * `<name>-<UTC time>.<ext>` (gzipped with `compress`) and the oldest beyond maxBackups removed.
 */
export class LogExporter implements FlowRecordExporter {
  readonly name = 'log';
  private size = 0;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private readonly log: Logger;
  written = 0;

  constructor(private readonly o: LogExporterOptions) {
    this.maxBytes = (o.maxSizeMb > 0 ? o.maxSizeMb : 100) * 1024 * 1024;
    this.now = o.now ?? Date.now;
    this.log = o.logger.child({ component: 'log-exporter', path: o.path });
  }

  async start(): Promise<void> {
    mkdirSync(dirname(this.o.path), { recursive: true });
    try {
      this.size = statSync(this.o.path).size;
    } catch {
      this.size = 0;
    }
  }

  async export(records: readonly Readonly<FlowValues>[]): Promise<void> {
    const lines = records
      .filter((r) => matchesFilters(r, this.o.filters))
      .map((r) => `${flowLogLine(r, this.o.prettyPrint)}\n`);
    if (lines.length === 0) return;
    const text = lines.join('');
    const bytes = Buffer.byteLength(text);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    appendFileSync(this.o.path, text);
    this.size += bytes;
    this.written += lines.length;
  }

  async stop(): Promise<void> {}

  private rotate(): void {
    const ext = extname(this.o.path);
    const stem = basename(this.o.path, ext);
    const stamp = new Date(this.now()).toISOString().replace(/:/g, '-').replace('Z', '');
    const rotated = join(dirname(this.o.path), `${stem}-${stamp}${ext}`);
    renameSync(this.o.path, rotated);
    if (this.o.compress) {
      writeFileSync(`${rotated}.gz`, gzipSync(readFileSync(rotated)));
      unlinkSync(rotated);
    }
    this.size = 0;
    this.log.info({ rotated }, 'flow log rotated');
    if (this.o.maxBackups > 0) {
      const backups = readdirSync(dirname(this.o.path))
        .filter((f) => f.startsWith(`${stem}-`) && f !== basename(this.o.path))
        .sort();
      for (const old of backups.slice(0, Math.max(0, backups.length - this.o.maxBackups)))
        unlinkSync(join(dirname(this.o.path), old));
    }
  }
}
