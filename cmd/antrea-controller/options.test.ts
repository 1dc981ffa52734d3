import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { ControllerOptionsError, loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'controller-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function confFile(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

const load = (argv: string[], env: Record<string, string> = {}) =>
  loadOptions(['node', 'antrea-controller', ...argv], env);

describe('antrea-controller options', () => {
  it("defaults to Antrea's: API on 0.0.0.0:10349 behind kube-system/antrea:443, policies on, no NodeIPAM, no dashboard", () => {
    const o = load([]);
    expect(o.controller).toMatchObject({
      bindAddress: '0.0.0.0',
      apiPort: 10349,
      service: { namespace: 'kube-system', name: 'antrea', port: 443 },
      publishCaBundle: true,
      webhooks: true,
      antreaPolicy: true,
      adminNetworkPolicy: false,
      enablePrometheusMetrics: true,
      controllerInfoIntervalMs: 60_000,
    });
    expect(o.controller.nodeIPAM).toBeUndefined();
    expect(o.dashboard).toBeUndefined();
    expect(o.logLevel).toBe('info');
    expect(Object.isFrozen(o.controller.service)).toBe(true);
  });

  it('takes antrea-controller.conf, and flags over it; the Pod identity from the downward API', () => {
    const conf = confFile(
      'a.conf',
      [
        'apiPort: 11000',
        'enablePrometheusMetrics: false',
        'featureGates: {AntreaPolicy: false, AdminNetworkPolicy: true}',
        'nodeIPAM: {enableNodeIPAM: true, clusterCIDRs: [10.0.0.0/16], nodeCIDRMaskSizeIPv4: 26}',
        'someKeyOfAFeatureWeLack: 1',
      ].join('\n'),
    );
    const fromFile = load([`--config=${conf}`]);
    expect(fromFile.controller).toMatchObject({
      apiPort: 11000,
      antreaPolicy: false,
      adminNetworkPolicy: true,
      enablePrometheusMetrics: false,
      nodeIPAM: { clusterCIDRs: [{ clusterCIDR: '10.0.0.0/16', nodeMaskSize: 26 }] },
    });
    const flagged = load(
      [
        `--config=${conf}`,
        '--api-port=12000',
        '--cluster-cidrs=10.1.0.0/16, fd00::/48',
        '--dashboard-port=10352',
      ],
      { POD_NAME: 'antrea-controller-x', POD_NAMESPACE: 'kube-system', NODE_NAME: 'n1' },
    );
    expect(flagged.controller).toMatchObject({
      apiPort: 12000,
      nodeIPAM: {
        clusterCIDRs: [
          { clusterCIDR: '10.1.0.0/16', nodeMaskSize: 26 },
          { clusterCIDR: 'fd00::/48', nodeMaskSize: 64 },
        ],
      },
      podRef: { name: 'antrea-controller-x', namespace: 'kube-system' },
      nodeName: 'n1',
    });
    expect(flagged.dashboard).toEqual({ host: '127.0.0.1', port: 10352 });
  });

  it.each([
    [['--bind-address=localhost'], '--bind-address: "localhost" is not an IP address'],
    [['--service=antrea'], '--service: want namespace/name'],
    [['--controller-info-interval=0'], '--controller-info-interval: want a positive number of seconds'],
    [['--enable-node-ipam'], 'nodeIPAM: one or two clusterCIDRs are required'],
    [
      ['--enable-node-ipam', '--cluster-cidrs=10.0.0.0/16,10.1.0.0/16'],
      'nodeIPAM: dual-stack needs one IPv4 and one IPv6 cluster CIDR',
    ],
    [['--dashboard-bind-address=any'], '--dashboard-bind-address: "any" is not an IP address'],
  ])('refuses %j with a clear reason', (argv, message) => {
    expect(() => load(argv)).toThrow(new ControllerOptionsError(message));
  });

  it('refuses an invalid cluster CIDR, selfSignedCert: false and an out-of-range port', () => {
    expect(() => load(['--enable-node-ipam', '--cluster-cidrs=10.0.0.0/33'])).toThrow(/^nodeIPAM: /);
    expect(() => load([`--config=${confFile('b.conf', 'selfSignedCert: false')}`])).toThrow(
      'selfSignedCert: false is not supported (no certificate files)',
    );
    expect(() => load(['--api-port=70000'])).toThrow(CommanderError);
  });
});
