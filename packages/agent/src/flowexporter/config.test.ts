import { describe, expect, it } from 'vitest';
import { flowExporterConfig, parseDuration } from './config.js';

describe('flowExporter config', () => {
  it('takes Antrea’s keys and defaults; the gate is off unless set', () => {
    expect(flowExporterConfig(undefined, undefined)).toEqual({
      featureGate: false,
      enable: false,
      collector: { host: 'flow-aggregator/flow-aggregator', port: 14739, transport: 'grpc' },
      pollIntervalMs: 5000,
      activeTimeoutMs: 5000,
      idleTimeoutMs: 15_000,
      protocols: [],
    });
    const c = flowExporterConfig(
      {
        enable: true,
        flowCollectorAddr: '192.0.2.9:2055:udp',
        flowPollInterval: '1s',
        activeFlowExportTimeout: '1m30s',
        idleFlowExportTimeout: '2500ms',
        protocolFilter: ['TCP', 'udp'],
      },
      true,
    );
    expect(c).toMatchObject({
      featureGate: true,
      enable: true,
      collector: { host: '192.0.2.9', port: 2055, transport: 'udp' },
      pollIntervalMs: 1000,
      activeTimeoutMs: 90_000,
      idleTimeoutMs: 2500,
      protocols: [6, 17],
    });
  });

  it('refuses bad durations, a poll interval under 1s and unknown protocols', () => {
    expect(() => parseDuration('x', '5')).toThrow(/bad duration/);
    expect(() => parseDuration('x', '')).toThrow(/bad duration/);
    expect(() => parseDuration('x', '5s3')).toThrow(/bad duration/);
    expect(parseDuration('x', '1h1m1s1ms')).toBe(3_661_001);
    const on = { enable: true };
    expect(() => flowExporterConfig({ ...on, flowPollInterval: '500ms' }, true)).toThrow(/at least 1s/);
    expect(() => flowExporterConfig({ ...on, protocolFilter: ['icmp'] }, true)).toThrow(
      /unknown protocol icmp/,
    );
    expect(() => flowExporterConfig({ ...on, flowCollectorAddr: 'x:1:sctp' }, true)).toThrow(/sctp/);
    expect(flowExporterConfig({ ...on, flowCollectorAddr: 'x:1:tls' }, true).collector.transport).toBe('tls');
  });

  it('raises export timeouts under the poll interval to it, as Antrea does', () => {
    const c = flowExporterConfig(
      { enable: true, flowPollInterval: '2s', activeFlowExportTimeout: '0s', idleFlowExportTimeout: '1s' },
      true,
    );
    expect(c).toMatchObject({ pollIntervalMs: 2000, activeTimeoutMs: 2000, idleTimeoutMs: 2000 });
  });

  it('does not refuse to start over a section it will not use (exporter off)', () => {
    const unknown = { enable: true, flowCollectorAddr: 'flow-aggregator/flow-aggregator:4739:sctp' };
    expect(flowExporterConfig(unknown, false)).toMatchObject({
      featureGate: false,
      collector: { port: 14739, transport: 'grpc' },
    });
    expect(flowExporterConfig({ ...unknown, enable: false }, true).enable).toBe(false);
    expect(() => flowExporterConfig(unknown, true)).toThrow(/sctp/);
  });
});
