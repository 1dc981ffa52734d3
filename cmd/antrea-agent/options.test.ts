import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withConf(yaml: string) {
  const path = join(dir, `conf-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadOptions(['node', 'antrea-agent', '--config', path], { NODE_NAME: 'n1' });
}

describe('antrea-agent options: antreaProxy', () => {
  it('is on with Antrea defaults when the file says nothing', () => {
    expect(withConf('ovsBridge: br-int\n').agent.antreaProxy).toEqual({
      enable: true,
      skipServices: [],
      proxyAll: false,
      serviceProxyName: '',
      proxyLoadBalancerIPs: true,
      nodePortAddresses: [],
    });
  });

  it("reads Antrea's antreaProxy keys", () => {
    const o = withConf(
      'antreaProxy:\n  enable: false\n  skipServices: [kube-system/kube-dns, 10.96.0.10]\n  serviceProxyName: mine\n',
    );
    expect(o.agent.antreaProxy).toEqual({
      enable: false,
      skipServices: ['kube-system/kube-dns', '10.96.0.10'],
      proxyAll: false,
      serviceProxyName: 'mine',
      proxyLoadBalancerIPs: true,
      nodePortAddresses: [],
    });
  });

  it('reads proxyAll, proxyLoadBalancerIPs, nodePortAddresses and serviceCIDR', () => {
    const o = withConf(
      'serviceCIDR: 10.96.0.0/12\nantreaProxy:\n  proxyAll: true\n  proxyLoadBalancerIPs: false\n  nodePortAddresses: [198.19.0.0/24]\n',
    );
    expect(o.agent.antreaProxy).toMatchObject({
      proxyAll: true,
      proxyLoadBalancerIPs: false,
      nodePortAddresses: ['198.19.0.0/24'],
    });
    expect(o.agent.serviceCIDR).toBe('10.96.0.0/12');
  });

  it('refuses a nodePortAddresses entry that is not a CIDR', () => {
    expect(() => withConf('antreaProxy:\n  nodePortAddresses: [198.19.0.1]\n')).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
  });
});

describe('antrea-agent options: FQDN policies', () => {
  it("reads Antrea's dnsServerOverride and fqdnCacheMinTTL, defaulting to none and 0", () => {
    expect(withConf('ovsBridge: br-int\n').agent).toMatchObject({
      dnsServerOverride: '',
      fqdnCacheMinTTL: 0,
    });
    const o = withConf('dnsServerOverride: 10.96.0.10:53\nfqdnCacheMinTTL: 30\n');
    expect(o.agent).toMatchObject({ dnsServerOverride: '10.96.0.10:53', fqdnCacheMinTTL: 30 });
  });
});

describe('antrea-agent options: NodePortLocal', () => {
  it("is off with Antrea's default range when the file says nothing; an empty range takes the default", () => {
    expect(withConf('ovsBridge: br-int\n').agent.nodePortLocal).toEqual({
      enable: false,
      portRange: '61000-62000',
    });
    expect(withConf('nodePortLocal:\n  enable: true\n  portRange: ""\n').agent.nodePortLocal).toEqual({
      enable: true,
      portRange: '61000-62000',
    });
  });

  it('reads nodePortLocal.enable and portRange, and refuses a range that does not parse', () => {
    const o = withConf('nodePortLocal:\n  enable: true\n  portRange: 40000-40100\n');
    expect(o.agent.nodePortLocal).toEqual({ enable: true, portRange: '40000-40100' });
    expect(() => withConf('nodePortLocal:\n  enable: true\n  portRange: 62000-61000\n')).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
  });
});

describe('antrea-agent options: Egress', () => {
  it("reads Antrea's egress keys, with Antrea's defaults (no exceptions, 255 IPs per Node)", () => {
    expect(withConf('ovsBridge: br-int\n').agent.egressConfig).toEqual({
      exceptCIDRs: [],
      maxEgressIPsPerNode: 255,
    });
    // An empty list renders as null in Antrea's chart; 0 means the default.
    expect(withConf('egress:\n  exceptCIDRs:\n  maxEgressIPsPerNode: 0\n').agent.egressConfig).toEqual({
      exceptCIDRs: [],
      maxEgressIPsPerNode: 255,
    });
    const o = withConf('egress:\n  exceptCIDRs: [10.1.0.0/16, "fd00::/8"]\n  maxEgressIPsPerNode: 3\n');
    expect(o.agent.egressConfig).toEqual({
      exceptCIDRs: ['10.1.0.0/16', 'fd00::/8'],
      maxEgressIPsPerNode: 3,
    });
  });

  it('refuses a cap above 255 and an exceptCIDR that does not parse', () => {
    for (const bad of ['egress:\n  maxEgressIPsPerNode: 256\n', 'egress:\n  exceptCIDRs: [10.1.0.0]\n']) {
      expect(() => withConf(bad)).toThrow(expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }));
    }
  });
});

describe('antrea-agent options: kubeAPIServerOverride', () => {
  it('is unset by default', () => {
    expect(withConf('ovsBridge: br-int\n').kubeAPIServerOverride).toBeUndefined();
    expect(withConf('kubeAPIServerOverride: ""\n').kubeAPIServerOverride).toBeUndefined();
  });

  it('takes a host, a host:port or a URL, https when no scheme is given (as client-go)', () => {
    expect(withConf('kubeAPIServerOverride: 192.0.2.10\n').kubeAPIServerOverride).toBe('https://192.0.2.10');
    expect(withConf('kubeAPIServerOverride: "api.example:6443"\n').kubeAPIServerOverride).toBe(
      'https://api.example:6443',
    );
    expect(withConf('kubeAPIServerOverride: "https://[2001:db8::1]:6443/"\n').kubeAPIServerOverride).toBe(
      'https://[2001:db8::1]:6443',
    );
  });

  it('refuses what is not an address', () => {
    expect(() => withConf('kubeAPIServerOverride: "ftp://x"\n')).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
    expect(() => withConf('kubeAPIServerOverride: "a b"\n')).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
  });
});

describe('antrea-agent options: CleanupStaleUDPSvcConntrack', () => {
  it('is on by default (Beta in Antrea) and featureGates turns it off', () => {
    expect(withConf('ovsBridge: br-int\n').agent.cleanupStaleUDPSvcConntrack).toBe(true);
    expect(
      withConf('featureGates:\n  CleanupStaleUDPSvcConntrack: false\n').agent.cleanupStaleUDPSvcConntrack,
    ).toBe(false);
  });
});
