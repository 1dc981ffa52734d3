// The component's own recent log, kept in memory for support bundles: a pino destination that
// holds the newest lines up to a byte budget. Antrea bundles its log files; Antrea-TS components
// log to stdout (the container runtime keeps that), so the bundle takes what the process itself
// saw, without depending on where the runtime writes.

export interface LogRingOptions {
  /** Byte budget for the lines kept (default 8 MiB); the oldest lines go first. */
  readonly maxBytes?: number;
}

export class LogRing {
  private readonly lines: string[] = [];
  private bytes = 0;
  private head = 0;
  private partial = '';
  private readonly maxBytes: number;

  constructor(options: LogRingOptions = {}) {
    this.maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  }

  /** pino destination API: receives one or more serialized lines. */
  write(chunk: string): boolean {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) if (line !== '') this.push(line);
    return true;
  }

  /** The kept lines, oldest first, newline-terminated; with `sinceMs`, lines whose pino `time` is older are left out. */
  text(sinceMs?: number): string {
    let out = '';
    for (let i = this.head; i < this.lines.length; i++) {
      const line = this.lines[i] as string;
      if (sinceMs !== undefined && lineTime(line) < sinceMs) continue;
      out += `${line}\n`;
    }
    return out;
  }

  private push(line: string): void {
    this.lines.push(line);
    this.bytes += line.length + 1;
    while (this.bytes > this.maxBytes && this.head < this.lines.length - 1) {
      this.bytes -= (this.lines[this.head] as string).length + 1;
      this.head++;
    }
    // Compact once the dropped prefix dominates, so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** pino's `"time":<ms>` of a line; lines without one count as new. */
function lineTime(line: string): number {
  const m = /"time":(\d+)/.exec(line);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}
