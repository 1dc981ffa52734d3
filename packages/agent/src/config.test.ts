import { describe, expect, it } from 'vitest';
import { makeConfig, peerPath, pipelineFeatures, podMtu } from './config.js';
import { cidrContains, formatCidr, gatewayIp, parseCidr, parseIpv4 } from './net/ipv4.js';

describe('agent config', () => {
  it('derives the Pod MTU from the transport MTU and the tunnel', () => {
    const base = { defaultMtu: 0, trafficEncapMode: 'encap' as const };
    expect(podMtu({ ...base, tunnelType: 'geneve' }, 1500)).toBe(1450);
    expect(podMtu({ ...base, tunnelType: 'vxlan' }, 1500)).toBe(1450);
    expect(podMtu({ ...base, tunnelType: 'gre' }, 1500)).toBe(1462);
    expect(podMtu({ ...base, trafficEncapMode: 'noEncap', tunnelType: 'geneve' }, 1500)).toBe(1500);
    expect(podMtu({ ...base, defaultMtu: 1400, tunnelType: 'geneve' }, 9000)).toBe(1400);
  });

  it('chooses the path to a peer Node per encap mode', () => {
    expect(peerPath('encap', '192.168.1.0/24', '192.168.1.7')).toBe('tunnel');
    expect(peerPath('hybrid', '192.168.1.0/24', '192.168.1.7')).toBe('route');
    expect(peerPath('hybrid', '192.168.1.0/24', '192.168.2.7')).toBe('tunnel');
    expect(peerPath('noEncap', '192.168.1.0/24', '192.168.1.7')).toBe('route');
    expect(peerPath('noEncap', '192.168.1.0/24', '10.0.0.7')).toBe('none');
    expect(peerPath('networkPolicyOnly', '192.168.1.0/24', '192.168.1.7')).toBe('none');
  });

  it('validates modes and tunnel types', () => {
    expect(() => makeConfig({ nodeName: 'n', trafficEncapMode: 'bogus' as never })).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
    expect(() => makeConfig({ nodeName: 'n', tunnelType: 'ipip' as never })).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
    expect(makeConfig({ nodeName: 'n' }).tunnelType).toBe('geneve');
    expect(Object.isFrozen(makeConfig({ nodeName: 'n' }))).toBe(true);
  });

  it('turns TX checksum offload off for the userspace datapath unless told otherwise', () => {
    expect(makeConfig({ nodeName: 'n' }).disableTxChecksumOffload).toBe(false);
    expect(makeConfig({ nodeName: 'n', datapathType: 'netdev' }).disableTxChecksumOffload).toBe(true);
    const told = { nodeName: 'n', datapathType: 'netdev' as const, disableTxChecksumOffload: false };
    expect(makeConfig(told).disableTxChecksumOffload).toBe(false);
    expect(makeConfig({ nodeName: 'n', disableTxChecksumOffload: true }).disableTxChecksumOffload).toBe(true);
  });
});

describe('IPv4 helpers', () => {
  it('parses and formats CIDRs, gateway is the first host', () => {
    expect(formatCidr(parseCidr('10.10.1.77/24'))).toBe('10.10.1.0/24');
    expect(gatewayIp('10.10.1.0/24')).toBe('10.10.1.1');
    expect(gatewayIp('10.244.0.0/16')).toBe('10.244.0.1');
    expect(cidrContains(parseCidr('10.10.1.0/24'), '10.10.1.200')).toBe(true);
    expect(cidrContains(parseCidr('10.10.1.0/24'), '10.10.2.1')).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0'), '1.2.3.4')).toBe(true);
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    expect(() => parseIpv4('1.2.3')).toThrow();
    expect(() => parseCidr('10.0.0.0/33')).toThrow();
    expect(() => gatewayIp('10.0.0.0/31')).toThrow();
  });
});

describe('antreaProxy config', () => {
  it('is on by default with Antrea defaults', () => {
    expect(makeConfig({ nodeName: 'n' }).antreaProxy).toEqual({
      enable: true,
      skipServices: [],
      proxyAll: false,
      serviceProxyName: '',
      proxyLoadBalancerIPs: true,
      nodePortAddresses: [],
    });
  });

  it('accepts proxyAll with nodePortAddresses and serviceCIDR, and rejects CIDRs that are not IPv4', () => {
    const base = makeConfig({ nodeName: 'n' }).antreaProxy;
    const cfg = makeConfig({
      nodeName: 'n',
      antreaProxy: { ...base, proxyAll: true, nodePortAddresses: ['198.19.0.0/24'] },
      serviceCIDR: '10.96.0.0/12',
    });
    expect(cfg.antreaProxy).toMatchObject({ proxyAll: true, nodePortAddresses: ['198.19.0.0/24'] });
    expect(Object.isFrozen(cfg.antreaProxy.nodePortAddresses)).toBe(true);
    for (const bad of [{ nodePortAddresses: ['198.19.0.1'] }, { nodePortAddresses: ['fd00::/64'] }]) {
      expect(() => makeConfig({ nodeName: 'n', antreaProxy: { ...base, ...bad } })).toThrow(
        expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
      );
    }
    expect(() => makeConfig({ nodeName: 'n', serviceCIDR: '10.96.0.0' })).toThrow(
      expect.objectContaining({
        code: 'AGENT_CONFIG_INVALID',
        message: expect.stringMatching(/serviceCIDR/),
      }),
    );
  });

  it('freezes skipServices apart from the caller array', () => {
    const skip = ['kube-system/kube-dns'];
    const cfg = makeConfig({
      nodeName: 'n',
      antreaProxy: { ...makeConfig({ nodeName: 'n' }).antreaProxy, skipServices: skip },
    });
    skip.push('10.96.0.1');
    expect(cfg.antreaProxy.skipServices).toEqual(['kube-system/kube-dns']);
    expect(Object.isFrozen(cfg.antreaProxy.skipServices)).toBe(true);
  });
});

describe('pipelineFeatures', () => {
  it('has the service tables only with AntreaProxy on', () => {
    const on = makeConfig({ nodeName: 'n' });
    expect(pipelineFeatures(on).has('service')).toBe(true);
    expect(pipelineFeatures({ antreaProxy: { ...on.antreaProxy, enable: false } }).has('service')).toBe(
      false,
    );
    expect(
      pipelineFeatures({ antreaProxy: { ...on.antreaProxy, enable: false } }).has('podConnectivity'),
    ).toBe(true);
  });
});
