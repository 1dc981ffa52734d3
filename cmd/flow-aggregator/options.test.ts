import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const argv = (...flags: string[]) => ['node', 'flow-aggregator', ...flags];

describe('flow-aggregator options', () => {
  it('defaults: Antrea’s IPFIX port on every address, config defaults without --config', () => {
    const o = loadOptions(argv());
    expect(o).toMatchObject({
      bindAddress: '0.0.0.0',
      ipfixPort: 4739,
      grpcPort: 14739,
      namespace: 'flow-aggregator',
      logLevel: 'info',
    });
    expect(o.config.aggregatorTransportProtocol).toBe('tcp');
    expect(o.config.flowAggregatorAddress).toBe('');
  });

  it('takes the gRPC port from --grpc-port and the certificates’ namespace from POD_NAMESPACE', () => {
    const o = loadOptions(argv('--grpc-port', '0'), { POD_NAMESPACE: 'flows' });
    expect(o).toMatchObject({ grpcPort: 0, namespace: 'flows' });
    expect(() => loadOptions(argv('--grpc-port', '-1'))).toThrow();
  });

  it('reads flow-aggregator.conf from --config', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fa-opts-'));
    try {
      const conf = join(dir, 'flow-aggregator.conf');
      writeFileSync(conf, 'aggregatorTransportProtocol: udp\nflowLogger:\n  enable: true\n');
      const o = loadOptions(argv('--config', conf, '--ipfix-port', '0', '--bind-address', '127.0.0.1'));
      expect(o).toMatchObject({ bindAddress: '127.0.0.1', ipfixPort: 0 });
      expect(o.config).toMatchObject({ aggregatorTransportProtocol: 'udp', flowLogger: { enable: true } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad port, a config it cannot serve and one it cannot read', () => {
    expect(() => loadOptions(argv('--ipfix-port', '70000'))).toThrow();
    const dir = mkdtempSync(join(tmpdir(), 'fa-opts-'));
    try {
      const conf = join(dir, 'flow-aggregator.conf');
      writeFileSync(conf, 'mode: Proxy\n');
      expect(() => loadOptions(argv('--config', conf))).toThrow(
        expect.objectContaining({ code: 'FA_UNSUPPORTED' }),
      );
      expect(() => loadOptions(argv('--config', join(dir, 'missing.conf')))).toThrow(
        expect.objectContaining({ code: 'FA_CONFIG' }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
