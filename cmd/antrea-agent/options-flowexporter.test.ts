import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-options-fe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (yaml: string) => {
  const path = join(dir, `conf-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadOptions(['node', 'antrea-agent', '--config', path], { NODE_NAME: 'n1' }).agent.flowExporter;
};

describe('antrea-agent options: flowExporter', () => {
  it('is off, with Antrea’s defaults, when the file says nothing', () => {
    expect(load('ovsBridge: br-int\n')).toMatchObject({
      featureGate: false,
      enable: false,
      pollIntervalMs: 5000,
    });
  });

  it('reads featureGates.FlowExporter and Antrea’s flowExporter keys', () => {
    const yaml = [
      'featureGates:',
      '  FlowExporter: true',
      'flowExporter:',
      '  enable: true',
      '  flowCollectorAddr: "192.0.2.9:4739:udp"',
      '  flowPollInterval: "2s"',
      '  activeFlowExportTimeout: "1m"',
      '  idleFlowExportTimeout: "30s"',
      '  protocolFilter: ["tcp"]',
      '',
    ].join('\n');
    expect(load(yaml)).toEqual({
      featureGate: true,
      enable: true,
      collector: { host: '192.0.2.9', port: 4739, transport: 'udp' },
      pollIntervalMs: 2000,
      activeTimeoutMs: 60_000,
      idleTimeoutMs: 30_000,
      protocols: [6],
    });
  });

  it('refuses a collector protocol it cannot speak only when the exporter is on', () => {
    const sctp =
      'flowExporter:\n  enable: true\n  flowCollectorAddr: "flow-aggregator/flow-aggregator:4739:sctp"\n';
    expect(load(sctp)?.featureGate).toBe(false);
    expect(() => load(`featureGates:\n  FlowExporter: true\n${sctp}`)).toThrow(/unknown protocol sctp/);
    // Antrea's chart default.
    const chart = sctp.replace('4739:sctp', '14739:grpc');
    expect(load(`featureGates:\n  FlowExporter: true\n${chart}`)?.collector).toEqual({
      host: 'flow-aggregator/flow-aggregator',
      port: 14739,
      transport: 'grpc',
    });
  });
});
