import {
  type EgressNodeInfo,
  ExecCommandRunner,
  removeServiceExternalIPState,
  ServiceExternalIPAgent,
  type ServiceExternalIPSource,
} from '@antrea-ts/agent';
import type { ExternalIPPool } from '@antrea-ts/apis';
import { createNetns, createVethPair, NET_PREFIX, type Netns, poll, uniqueTag } from '@antrea-ts/harness';
import type { V1Service } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The agent's ServiceExternalIP side on real ip in two private netns: a "Node" (its transport
// interface `nx` on a link to a "client", and a route for the Service IP into `gw0` as proxyAll's
// route into antrea-gw0) and the client on the same subnet. The Node that holds a Service's IP
// answers the client's ARP for it; a proxy entry a previous run left is removed at start; the Node
// turning NotReady gives the IP up; a start with the gate off removes every entry. The Services,
// pool and Nodes come from an in-memory source (placement itself is unit-tested).

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NODE = 'node-1';
const SVC_IP = '10.98.0.50';
const STALE_IP = '10.98.0.99';

class TestSource implements ServiceExternalIPSource {
  ready = true;
  hostnames: string[] = [];
  changed: () => void = () => {};
  readonly service: V1Service = {
    metadata: { name: 'web', namespace: 'ns', annotations: { 'service.antrea.io/external-ip-pool': 'p' } },
    spec: { type: 'LoadBalancer' },
    status: { loadBalancer: { ingress: [{ ip: SVC_IP }] } },
  };
  async start(changed: () => void): Promise<void> {
    this.changed = changed;
  }
  async stop(): Promise<void> {}
  services = () => [this.service];
  endpointNodes = () => new Set<string>();
  pool = (name: string) =>
    name === 'p'
      ? ({
          metadata: { name },
          spec: { ipRanges: [{ cidr: '10.98.0.0/24' }], nodeSelector: {} },
        } as ExternalIPPool)
      : undefined;
  nodes = (): EgressNodeInfo[] => [{ name: NODE, labels: {}, ready: this.ready, internalIp: '10.98.0.1' }];
  async setIngressHostname(_svc: V1Service, hostname: string): Promise<void> {
    this.hostnames.push(hostname);
  }
}

let node: Netns;
let client: Netns;

beforeAll(async () => {
  const tag = uniqueTag();
  node = await createNetns(`${NET_PREFIX}-${tag}-sxn`);
  client = await createNetns(`${NET_PREFIX}-${tag}-sxc`);
  await createVethPair({ name: 'nx', netns: node.name }, { name: 'cx', netns: client.name });
  await createVethPair({ name: 'gw0', netns: node.name }, { name: 'gw1', netns: node.name });
  await node.exec(['ip', 'addr', 'add', '10.98.0.1/24', 'dev', 'nx']);
  await client.exec(['ip', 'addr', 'add', '10.98.0.2/24', 'dev', 'cx']);
  for (const [ns, dev] of [
    [node, 'nx'],
    [node, 'gw0'],
    [node, 'gw1'],
    [client, 'cx'],
  ] as const)
    await ns.exec(['ip', 'link', 'set', dev, 'up']);
  await node.exec(['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
  await node.exec(['ip', 'route', 'add', `${SVC_IP}/32`, 'via', '169.254.0.253', 'dev', 'gw0', 'onlink']);
  await node.exec(['ip', 'route', 'add', `${STALE_IP}/32`, 'via', '169.254.0.253', 'dev', 'gw0', 'onlink']);
});

afterAll(async () => {
  await client?.delete();
  await node?.delete();
});

const entries = async () =>
  (await node.exec(['ip', '-4', 'neigh', 'show', 'proxy', 'dev', 'nx']))
    .split('\n')
    .map((l) => l.split(' ')[0])
    .filter((ip) => ip);

/** The MAC the client learns for `ip` now (its cached entry forgotten first), or undefined. */
async function clientResolves(ip: string): Promise<string | undefined> {
  await client.exec(['ip', 'neigh', 'flush', 'dev', 'cx']);
  await client.exec(['ping', '-c', '1', '-W', '1', ip]).catch(() => undefined);
  const out = await client.exec(['ip', 'neigh', 'show', ip, 'dev', 'cx']);
  return /lladdr (\S+)/.exec(out)?.[1];
}

describe('ServiceExternalIP on a Node', () => {
  it('answers ARP for the IP it holds, drops what a previous run left, gives the IP up when NotReady', async () => {
    await node.exec(['ip', 'neigh', 'add', 'proxy', STALE_IP, 'dev', 'nx']);
    const source = new TestSource();
    const agent = new ServiceExternalIPAgent({
      nodeName: NODE,
      source,
      runner: new ExecCommandRunner(node.name),
      transportInterface: 'nx',
      logger,
      retryMs: 100,
    });
    await agent.start();
    try {
      await agent.idle();
      expect(await entries()).toEqual([SVC_IP]);
      expect(source.hostnames).toEqual([NODE]);
      expect((await node.exec(['sysctl', '-n', 'net.ipv4.neigh.nx.proxy_delay'])).trim()).toBe('0');
      const nodeMac = (await node.exec(['cat', '/sys/class/net/nx/address'])).trim();
      await poll(
        'client resolves the IP',
        async () => (await clientResolves(SVC_IP)) === nodeMac || undefined,
        {
          timeoutMs: 20_000,
          intervalMs: 200,
        },
      );
      expect(await clientResolves(STALE_IP)).toBeUndefined();

      source.ready = false;
      source.changed();
      await agent.idle();
      expect(await entries()).toEqual([]);
      expect(await clientResolves(SVC_IP)).toBeUndefined();
    } finally {
      await agent.stop();
    }
  }, 60_000);

  it('a start with the gate off removes every entry on the transport interface', async () => {
    await node.exec(['ip', 'neigh', 'replace', 'proxy', SVC_IP, 'dev', 'nx']);
    await node.exec(['ip', 'neigh', 'replace', 'proxy', STALE_IP, 'dev', 'nx']);
    await removeServiceExternalIPState(new ExecCommandRunner(node.name), 'nx', logger);
    expect(await entries()).toEqual([]);
  });
});
