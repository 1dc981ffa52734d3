/** A named probe; throw or resolve false to fail. The reason is logged, never sent. */
export type HealthCheck = () => Promise<boolean | undefined> | boolean | undefined;

export interface HealthReport {
  ok: boolean;
  status: number;
  body: string;
  failed: { name: string; error?: unknown }[];
}

/**
 * Named checks behind /livez and /readyz, answered in kube-apiserver's format: `ok`, or with
 * `?verbose` one `[+]name ok` / `[-]name failed: reason withheld` line per check; `/readyz/<name>`
 * runs one check. `?exclude=<name>` skips a check.
 */
export class HealthChecks {
  readonly #checks = new Map<string, HealthCheck>();

  constructor(readonly endpoint: string) {}

  add(name: string, check: HealthCheck): void {
    this.#checks.set(name, check);
  }

  names(): string[] {
    return [...this.#checks.keys()];
  }

  has(name: string): boolean {
    return this.#checks.has(name);
  }

  async run(
    options: { only?: string; verbose?: boolean; exclude?: readonly string[] } = {},
  ): Promise<HealthReport> {
    const names = options.only
      ? [options.only]
      : [...this.#checks.keys()].filter((n) => !options.exclude?.includes(n));
    const lines: string[] = [];
    const failed: HealthReport['failed'] = [];
    for (const name of names) {
      let ok = false;
      let error: unknown;
      try {
        ok = (await this.#checks.get(name)!()) !== false;
      } catch (e) {
        error = e;
      }
      if (ok) lines.push(`[+]${name} ok`);
      else {
        lines.push(`[-]${name} failed: reason withheld`);
        failed.push({ name, error });
      }
    }
    const ok = failed.length === 0;
    if (options.only) return { ok, status: ok ? 200 : 500, body: ok ? 'ok' : `${lines[0]}\n`, failed };
    const verbose = options.verbose || !ok;
    const tail = ok ? `${this.endpoint} check passed` : `${this.endpoint} check failed`;
    const body = verbose ? `${[...lines, tail].join('\n')}\n` : 'ok';
    return { ok, status: ok ? 200 : 500, body, failed };
  }
}
