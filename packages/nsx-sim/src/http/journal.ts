import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';

export interface JournalEntry {
  seq: number;
  time: number;
  method: string;
  url: string;
  user: string;
  status: number;
  body?: unknown;
}

/** Ring buffer of non-GET requests outside /sim/, so tests can see what the adapter did. Not persisted. */
export class RequestJournal {
  private entries: JournalEntry[] = [];
  private seq = 0;
  constructor(
    private readonly clock: Clock,
    private readonly capacity = 2000,
  ) {}

  install(app: FastifyInstance): void {
    app.addHook('onResponse', async (req, reply) => {
      if (req.method === 'GET' || req.method === 'HEAD' || req.url.startsWith('/sim/')) return;
      this.seq += 1;
      const entry: JournalEntry = {
        seq: this.seq,
        time: this.clock.now(),
        method: req.method,
        url: req.url,
        user: req.nsxUser,
        status: reply.statusCode,
      };
      if (req.body !== undefined && !Buffer.isBuffer(req.body)) entry.body = req.body;
      this.entries.push(entry);
      if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    });
  }

  list(sinceSeq = 0): JournalEntry[] {
    return this.entries.filter((e) => e.seq > sinceSeq);
  }

  clear(): void {
    this.entries = [];
  }
}
