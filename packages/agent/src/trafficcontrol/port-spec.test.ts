import { describe, expect, it } from 'vitest';
import { trafficControlPortSpec } from './port-spec.js';

const ids = { 'antrea-type': 'traffic-control' };

describe('trafficControlPortSpec', () => {
  it('creates internal ports, attaches devices, and configures tunnels with only the given options', () => {
    expect(trafficControlPortSpec('tap0', { ovsInternal: { name: 'tap0' } })).toEqual({
      name: 'tap0',
      type: 'internal',
      externalIds: ids,
    });
    expect(trafficControlPortSpec('eth1', { device: { name: 'eth1' } })).toEqual({
      name: 'eth1',
      externalIds: ids,
    });
    expect(trafficControlPortSpec('geneve-1', { geneve: { remoteIP: '10.0.0.9', vni: 5 } })).toEqual({
      name: 'geneve-1',
      type: 'geneve',
      options: { remote_ip: '10.0.0.9', key: '5' },
      externalIds: ids,
    });
    expect(
      trafficControlPortSpec('vxlan-1', { vxlan: { remoteIP: '10.0.0.9', destinationPort: 4790 } }).options,
    ).toEqual({ remote_ip: '10.0.0.9', dst_port: '4790' });
    expect(trafficControlPortSpec('gre-1', { gre: { remoteIP: '10.0.0.9', key: 3 } }).options).toEqual({
      remote_ip: '10.0.0.9',
      key: '3',
    });
  });

  it('writes the ERSPAN fields of its version only, the v1 index in hexadecimal', () => {
    const v1 = { remoteIP: '10.0.0.9', version: 1, sessionID: 2, index: 26, dir: 1, hardwareID: 4 };
    expect(trafficControlPortSpec('e1', { erspan: v1 }).options).toEqual({
      remote_ip: '10.0.0.9',
      key: '2',
      erspan_ver: '1',
      erspan_idx: '1a',
    });
    expect(trafficControlPortSpec('e2', { erspan: { ...v1, version: 2 } }).options).toEqual({
      remote_ip: '10.0.0.9',
      key: '2',
      erspan_ver: '2',
      erspan_dir: '1',
      erspan_hwid: '4',
    });
  });
});
