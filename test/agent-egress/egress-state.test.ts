import {
  CookieAllocator,
  DEFAULT_FEATURES,
  EgressAgent,
  type EgressNodeInfo,
  type EgressSource,
  ExecCommandRunner,
  FlowCache,
  type FlowSwitch,
  Pipeline,
  removeEgressState,
} from '@antrea-ts/agent';
import type { Egress, EgressStatus, ExternalIPPool } from '@antrea-ts/apis';
import { createNetns, NET_PREFIX, type Netns, uniqueTag } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// What Egress leaves on a Node, on real iptables and ip in a private netns: a run with Egress on
// assigns pool IPs and writes its chains; a later start with the gate off removes exactly that (the
// IPs it assigned, both chains and their jumps) and nothing else, in one iptables-save and one
// iptables-restore; a later run with it on releases an IP whose pool was deleted while it was down,
// and one whose Egress is deleted while it runs. The agent's OpenFlow side is not under test here
// (its flows carry the run's cookie, which the next run deletes): the switch takes flows and drops them.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const DEVICE = 'br-phy';
const NODE = 'node-1';

/** Records what the agent runs, on the real commands in the netns. */
class RecordingRunner extends ExecCommandRunner {
  readonly calls: string[] = [];
  override run(argv: readonly string[], options?: Parameters<ExecCommandRunner['run']>[1]): Promise<string> {
    this.calls.push(argv.join(' '));
    return super.run(argv, options);
  }
}

/** Egresses, pools and one Ready Node, changed by the test. */
class TestSource implements EgressSource {
  egressList: Egress[] = [];
  poolList: ExternalIPPool[] = [];
  changed: () => void = () => {};
  async start(changed: () => void): Promise<void> {
    this.changed = changed;
  }
  async stop(): Promise<void> {}
  egresses = () => this.egressList;
  pool = (name: string) => this.poolList.find((p) => p.metadata.name === name);
  pools = () => this.poolList;
  nodes = (): EgressNodeInfo[] => [{ name: NODE, labels: {}, ready: true, internalIp: '10.99.0.1' }];
  async updateStatus(_e: Egress, _s: EgressStatus): Promise<void> {}
}

const discardingSwitch: FlowSwitch = {
  connected: true,
  bundle: async () => undefined,
  dumpFlows: async () => [],
  onConnected: () => () => undefined,
  waitConnected: async () => undefined,
};

const pool = (name: string, ip: string) =>
  ({ metadata: { name }, spec: { ipRanges: [{ start: ip, end: ip }], nodeSelector: {} } }) as ExternalIPPool;
const egress = (name: string, spec: Partial<Egress['spec']>) =>
  ({ metadata: { name }, spec: { appliedTo: {}, ...spec }, status: {} }) as Egress;

let ns: Netns;
let runner: RecordingRunner;

beforeAll(async () => {
  ns = await createNetns(`${NET_PREFIX}-${uniqueTag()}-eg`);
  await ns.exec(['ip', 'link', 'add', DEVICE, 'type', 'bridge']);
  await ns.exec(['ip', 'link', 'set', DEVICE, 'up']);
  await ns.exec(['ip', 'addr', 'add', '10.99.0.1/24', 'dev', DEVICE]);
  runner = new RecordingRunner(ns.name);
});

afterAll(async () => {
  await ns?.delete();
});

async function addresses(): Promise<string[]> {
  const out = await ns.exec(['ip', '-o', '-4', 'addr', 'show', 'dev', DEVICE]);
  return [...out.matchAll(/inet (\S+)/g)].map((m) => m[1] ?? '').sort();
}

const saved = () => ns.exec(['iptables-save']);

describe('Egress state on the Node', () => {
  let agent: EgressAgent | undefined;
  let source: TestSource;

  beforeEach(() => {
    source = new TestSource();
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
  });

  async function runAgent(): Promise<EgressAgent> {
    const a = new EgressAgent({
      nodeName: NODE,
      source,
      connection: {
        session: () => Promise.reject(new Error('no controller in this test')),
        token: async () => '',
        post: async () => 503,
        close: () => undefined,
      },
      flows: new FlowCache(discardingSwitch, logger),
      ctx: {
        pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'egress'])),
        cookies: new CookieAllocator(1),
      },
      runner,
      transportInterface: DEVICE,
      gatewayName: 'antrea-gw0',
      gatewayMac: '0a:00:00:00:00:01',
      logger,
      retryMs: 60_000,
    });
    agent = a;
    await a.start();
    await a.idle();
    return a;
  }

  it('a start with Egress off removes the IPs it assigned and both chains, and leaves the rest', async () => {
    // Someone else's rules in the same tables and base chains, and a static Egress IP put by hand.
    await ns.exec(['iptables', '-t', 'nat', '-A', 'POSTROUTING', '-d', '192.0.2.1/32', '-j', 'RETURN']);
    await ns.exec(['iptables', '-t', 'mangle', '-A', 'PREROUTING', '-d', '192.0.2.1/32', '-j', 'RETURN']);
    await ns.exec(['ip', 'addr', 'add', '10.99.0.50/32', 'dev', DEVICE]);
    source.poolList = [pool('pool-a', '10.99.0.100')];
    source.egressList = [
      egress('by-pool', { externalIPPool: 'pool-a', egressIP: '10.99.0.100' }),
      egress('static', { egressIP: '10.99.0.50' }),
    ];
    const on = await runAgent();
    expect(await addresses()).toEqual(['10.99.0.1/24', '10.99.0.100/32', '10.99.0.50/32']);
    const rules = await saved();
    expect(rules).toContain('-j SNAT --to-source 10.99.0.100');
    expect(rules).toContain('-j SNAT --to-source 10.99.0.50');
    await on.stop();

    runner.calls.length = 0;
    await removeEgressState(runner, DEVICE, logger);
    expect(await addresses()).toEqual(['10.99.0.1/24', '10.99.0.50/32']);
    const off = await saved();
    expect(off).not.toContain('ANTREA-EGRESS');
    expect(off).toContain('-A POSTROUTING -d 192.0.2.1/32 -j RETURN');
    expect(off).toContain('-A PREROUTING -d 192.0.2.1/32 -j RETURN');
    expect(runner.calls).toEqual([
      'iptables-save',
      `ip -o -4 addr show dev ${DEVICE}`,
      `ip addr del 10.99.0.100/32 dev ${DEVICE}`,
      'iptables-restore --noflush -w 5',
    ]);

    // Nothing left: one iptables-save and nothing else.
    runner.calls.length = 0;
    await removeEgressState(runner, DEVICE, logger);
    expect(runner.calls).toEqual(['iptables-save']);
    await ns.exec(['ip', 'addr', 'del', '10.99.0.50/32', 'dev', DEVICE]);
  });

  it('releases an IP whose pool was deleted while the agent was down, and one whose Egress is deleted', async () => {
    source.poolList = [pool('pool-a', '10.99.0.100'), pool('pool-b', '10.99.0.101')];
    source.egressList = [
      egress('a', { externalIPPool: 'pool-a', egressIP: '10.99.0.100' }),
      egress('b', { externalIPPool: 'pool-b', egressIP: '10.99.0.101' }),
    ];
    const first = await runAgent();
    expect(await addresses()).toEqual(['10.99.0.1/24', '10.99.0.100/32', '10.99.0.101/32']);
    await first.stop();

    // Down: pool-a and its Egress are deleted (the controller would have cleared the Egress's IP).
    source = new TestSource();
    source.poolList = [pool('pool-b', '10.99.0.101')];
    source.egressList = [egress('b', { externalIPPool: 'pool-b', egressIP: '10.99.0.101' })];
    const restarted = await runAgent();
    expect(await addresses()).toEqual(['10.99.0.1/24', '10.99.0.101/32']);

    // Running: Egress b is deleted.
    source.egressList = [];
    source.changed();
    await restarted.idle();
    expect(await addresses()).toEqual(['10.99.0.1/24']);
    expect(await saved()).not.toContain('--to-source');
    await restarted.stop();
    await removeEgressState(runner, DEVICE, logger);
  });
});
