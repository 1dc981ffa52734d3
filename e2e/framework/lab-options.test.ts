import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { e2eLabOptions } from './lab-options.js';

describe('e2eLabOptions', () => {
  it("names the state dir after the owner and instance, and points at this repository's artifacts", () => {
    const o = e2eLabOptions(19);
    expect(o.stateDir).toBe('/var/run/antrea-ts-lab-e2e-19');
    expect(o.instance).toBe(19);
    expect(o.artifacts.agentMain).toBe(join(import.meta.dirname, '../../dist/cmd/antrea-agent/main.js'));
    expect(existsSync(o.artifacts.crdDir)).toBe(true);
    expect(e2eLabOptions(7, { owner: 'test' }).stateDir).toBe('/var/run/antrea-ts-lab-test-7');
    expect(e2eLabOptions(14, { owner: 'bench' }).stateDir).toBe('/var/run/antrea-ts-lab-bench-14');
  });

  it('keeps benchmarks silent and takes overrides', () => {
    expect(e2eLabOptions(23, { owner: 'bench' }).logger.level).toBe('silent');
    const logger = pino({ level: 'warn' });
    const o = e2eLabOptions(36, { stateDir: '/tmp/x', logger });
    expect(o.stateDir).toBe('/tmp/x');
    expect(o.logger).toBe(logger);
    expect('owner' in o).toBe(false);
  });
});
