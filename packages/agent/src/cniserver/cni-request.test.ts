import type { CniError } from '@antrea-ts/cni';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../errors.js';
import { checkIpamConfig, cniAddResult, toCniError } from './cni-request.js';
import { hostLocalConfig } from './host-local-ipam.js';
import { containerInterfaceName, randomMac } from './interface-name.js';
import { InterfaceStore, podExternalIds } from './interface-store.js';

const pod = {
  containerId: 'abc',
  podName: 'web-0',
  podNamespace: 'default',
  hostIfName: 'web-0-1234567',
  ifName: 'eth0',
  netns: '/var/run/netns/x',
  ipCidr: '10.10.1.5/24',
  ip: '10.10.1.5',
  mac: '02:00:00:00:00:05',
  ofport: 3,
  hostMac: '02:00:00:00:00:06',
};

describe('CNI request mapping', () => {
  it('builds results per CNI version', () => {
    expect(cniAddResult('1.0.0', pod, '10.10.1.1')).toEqual({
      cniVersion: '1.0.0',
      interfaces: [
        { name: 'web-0-1234567', mac: '02:00:00:00:00:06' },
        { name: 'eth0', mac: '02:00:00:00:00:05', sandbox: '/var/run/netns/x' },
      ],
      ips: [{ interface: 1, address: '10.10.1.5/24', gateway: '10.10.1.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.10.1.1' }],
      dns: {},
    });
    expect(
      (cniAddResult('0.3.1', pod, '10.10.1.1') as { ips: Array<{ version: string }> }).ips[0]!.version,
    ).toBe('4');
  });

  it('maps agent errors to Antrea error codes', () => {
    const code = (e: AgentError) => (toCniError(e) as CniError).cniCode;
    expect(code(new AgentError('AGENT_IPAM_FAILED', 'x'))).toBe(101);
    expect(code(new AgentError('AGENT_INTERFACE_FAILED', 'x'))).toBe(102);
    expect(code(new AgentError('AGENT_CHECK_FAILED', 'x'))).toBe(103);
    expect(code(new AgentError('AGENT_STOPPED', 'x'))).toBe(11);
    const other = new Error('y');
    expect(toCniError(other)).toBe(other);
  });

  it('accepts host-local or no IPAM type only', () => {
    expect(() => checkIpamConfig({ ipam: { type: 'host-local' } })).not.toThrow();
    expect(() => checkIpamConfig({})).not.toThrow();
    expect(() => checkIpamConfig({ ipam: { type: 'dhcp' } })).toThrow(
      expect.objectContaining({ cniCode: 2 }),
    );
  });
});

describe('IPAM and interface naming', () => {
  it('derives the host-local config from the podCIDR', () => {
    expect(
      hostLocalConfig({ binDir: '/b', dataDir: '/d', podCidr: '10.10.1.0/24', gatewayIp: '10.10.1.1' }),
    ).toEqual({
      cniVersion: '1.0.0',
      name: 'antrea',
      type: 'antrea',
      ipam: {
        type: 'host-local',
        ranges: [[{ subnet: '10.10.1.0/24', gateway: '10.10.1.1' }]],
        dataDir: '/d',
      },
    });
  });

  it('names host interfaces within 15 bytes, stable and distinct', () => {
    const a = containerInterfaceName('a-very-long-pod-name', 'default', 'c1');
    expect(a).toHaveLength(15);
    expect(a.startsWith('averylon-')).toBe(true);
    expect(containerInterfaceName('a-very-long-pod-name', 'default', 'c1')).toBe(a);
    expect(containerInterfaceName('a-very-long-pod-name', 'default', 'c2')).not.toBe(a);
    expect(containerInterfaceName('', '', 'deadbeef').length).toBeLessThanOrEqual(15);
  });

  it('makes locally administered unicast MACs', () => {
    expect(randomMac(() => Buffer.from([0xff, 1, 2, 3, 4, 5]))).toBe('fe:01:02:03:04:05');
  });

  it('rebuilds the interface store from OVS external_ids', () => {
    const { ofport: _o, hostIfName: _h, hostMac: _m, ...identity } = pod;
    const ports = [
      {
        uuid: 'u1',
        name: pod.hostIfName,
        interfaceUuids: [],
        externalIds: {},
        tag: undefined,
        interfaces: [
          {
            uuid: 'i1',
            name: pod.hostIfName,
            type: '',
            options: {},
            externalIds: podExternalIds(identity),
            ofport: 3,
            ofportRequest: undefined,
            mtuRequest: undefined,
            mtu: 1450,
            error: undefined,
          },
        ],
      },
      {
        uuid: 'u2',
        name: 'antrea-gw0',
        interfaceUuids: [],
        externalIds: {},
        tag: undefined,
        interfaces: [
          {
            uuid: 'i2',
            name: 'antrea-gw0',
            type: 'internal',
            options: {},
            externalIds: { 'antrea-type': 'gateway' },
            ofport: 32769,
            ofportRequest: 32769,
            mtuRequest: undefined,
            mtu: 1450,
            error: undefined,
          },
        ],
      },
    ];
    const store = InterfaceStore.fromPorts(ports as never);
    expect(store.list()).toEqual([{ ...identity, hostIfName: pod.hostIfName, ofport: 3 }]);
  });
});
