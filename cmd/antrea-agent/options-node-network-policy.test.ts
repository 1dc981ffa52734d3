import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-options-nnp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nodeNetworkPolicy = (yaml: string) => {
  const path = join(dir, `conf-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadOptions(['node', 'antrea-agent', '--config', path], { NODE_NAME: 'n1' }).agent.nodeNetworkPolicy;
};

describe('antrea-agent options: featureGates.NodeNetworkPolicy', () => {
  it('is off by default (Alpha, as in Antrea) and on when the gate says so', () => {
    expect(nodeNetworkPolicy('ovsBridge: br-int\n')).toBe(false);
    expect(nodeNetworkPolicy('featureGates:\n  Egress: true\n')).toBe(false);
    expect(nodeNetworkPolicy('featureGates:\n  NodeNetworkPolicy: true\n')).toBe(true);
    expect(nodeNetworkPolicy('featureGates:\n  NodeNetworkPolicy: false\n')).toBe(false);
  });
});
