import type { Egress, EgressStatus, ExternalIPPool } from '@antrea-ts/apis';
import type { FlowMod } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRunner, RunOptions } from '../net/command-runner.js';
import type { ControllerConnection } from '../networkpolicy/controller-connection.js';
import { CookieAllocator } from '../openflow/cookie.js';
import { FlowCache } from '../openflow/flow-cache.js';
import type { FlowSwitch, GroupChange } from '../openflow/of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { EgressAgent, type EgressAgentOptions } from './egress-agent.js';
import type { EgressNodeInfo, EgressSource } from './egress-source.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

class FakeSwitch implements FlowSwitch {
  connected = true;
  async bundle(_mods: readonly (FlowMod | GroupChange)[]): Promise<void> {}
  async dumpFlows() {
    return [];
  }
  onConnected() {
    return () => undefined;
  }
  async waitConnected() {}
}

/** ip and iptables on a Node: the addresses it has and the Egress SNAT chain a previous run left. */
class FakeRunner implements CommandRunner {
  readonly calls: string[] = [];
  readonly restores: string[] = [];
  constructor(
    private readonly addresses: string,
    private readonly snatChain: string,
  ) {}
  async run(argv: readonly string[], options?: RunOptions): Promise<string> {
    const line = argv.join(' ');
    this.calls.push(line);
    if (argv[0] === 'iptables-restore') this.restores.push(String(options?.input ?? ''));
    if (line === 'iptables -w 5 -t nat -S ANTREA-EGRESS') return this.snatChain;
    if (line.startsWith('ip -o -4 addr show')) return this.addresses;
    return '';
  }
}

const staticEgress = (name: string, ip: string): Egress =>
  ({ metadata: { name }, spec: { appliedTo: {}, egressIP: ip }, status: {} }) as Egress;

const poolEgress = (name: string, pool: string, ip: string): Egress =>
  ({ metadata: { name }, spec: { appliedTo: {}, externalIPPool: pool, egressIP: ip }, status: {} }) as Egress;

class FakeSource implements EgressSource {
  readonly statuses: EgressStatus[] = [];
  constructor(
    private readonly list: Egress[],
    private readonly poolList: ExternalIPPool[] = [],
  ) {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  egresses(): Egress[] {
    return this.list;
  }
  pool(name: string): ExternalIPPool | undefined {
    return this.poolList.find((p) => p.metadata.name === name);
  }
  pools(): ExternalIPPool[] {
    return this.poolList;
  }
  nodes(): EgressNodeInfo[] {
    return [{ name: 'node-1', labels: {}, ready: true, internalIp: '10.0.0.1' }];
  }
  async updateStatus(_e: Egress, status: EgressStatus): Promise<void> {
    this.statuses.push(status);
  }
}

/** A controller that never answers: the EgressGroups watch keeps retrying, syncs go on without it. */
const noController: ControllerConnection = {
  session: () => Promise.reject(new Error('no controller')),
  token: async () => '',
  post: async () => 503,
  close: () => undefined,
};

describe('EgressAgent', () => {
  let agent: EgressAgent | undefined;
  let agentOptions: Partial<EgressAgentOptions> = {};
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    agentOptions = {};
  });

  const startAgent = async (runner: FakeRunner, source: FakeSource) => {
    agent = new EgressAgent({
      nodeName: 'node-1',
      source,
      connection: noController,
      flows: new FlowCache(new FakeSwitch(), logger),
      ctx: {
        pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'egress'])),
        cookies: new CookieAllocator(1),
      },
      runner,
      transportInterface: 'br-phy',
      gatewayName: 'antrea-gw0',
      gatewayMac: '0a:00:00:00:00:01',
      logger,
      retryMs: 60_000,
      ...agentOptions,
    });
    await agent.start();
    await agent.idle();
  };

  it('keeps the SNAT mark each Egress IP had before a restart, and gives new IPs free marks', async () => {
    // The previous run had 10.0.0.6 on mark 2 (mark 1's Egress was deleted while it ran).
    const runner = new FakeRunner(
      [
        '2: br-phy    inet 10.0.0.1/24 brd 10.0.0.255 scope global br-phy\\       valid_lft forever',
        '2: br-phy    inet 10.0.0.5/32 scope global br-phy\\       valid_lft forever',
        '2: br-phy    inet 10.0.0.6/32 scope global br-phy\\       valid_lft forever',
      ].join('\n'),
      [
        '-N ANTREA-EGRESS',
        '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x2/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 10.0.0.6',
        '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x3/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 10.0.0.9',
      ].join('\n'),
    );
    const source = new FakeSource([staticEgress('a', '10.0.0.6'), staticEgress('b', '10.0.0.5')]);
    await startAgent(runner, source);

    const restore = runner.restores.at(-1) ?? '';
    expect(restore).toContain(
      '--mark 0x2/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 10.0.0.6',
    );
    expect(restore).toContain(
      '--mark 0x1/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 10.0.0.5',
    );
    // An IP no Egress of this Node has any more loses its rule.
    expect(restore).not.toContain('10.0.0.9');
    // One look at the Node's addresses per sync, however many static Egresses there are.
    const syncs = runner.restores.length;
    expect(runner.calls.filter((c) => c === 'ip -o -4 addr show')).toHaveLength(syncs);
    expect(source.statuses.map((s) => s.egressIP).sort()).toEqual(['10.0.0.5', '10.0.0.6']);
  });

  it('after a restart, releases the IPs it assigned that no Egress wants here, takes its own, leaves other addresses', async () => {
    // The previous run assigned 10.0.0.201, whose pool was deleted while the agent was down;
    // 10.0.0.5 is a /32 someone else put there.
    const pool = {
      metadata: { name: 'pool' },
      spec: { ipRanges: [{ start: '10.0.0.200', end: '10.0.0.200' }], nodeSelector: {} },
    } as ExternalIPPool;
    const runner = new FakeRunner(
      [
        '2: br-phy    inet 10.0.0.1/24 brd 10.0.0.255 scope global br-phy\\       valid_lft forever',
        '2: br-phy    inet 10.0.0.5/32 scope global br-phy\\       valid_lft forever',
        '2: br-phy    inet 10.0.0.201/32 scope global br-phy\\       valid_lft forever',
      ].join('\n'),
      '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x1/0xff -m comment --comment "Antrea: SNAT Egress packets to an IP the agent assigned" -j SNAT --to-source 10.0.0.201',
    );
    await startAgent(runner, new FakeSource([poolEgress('p', 'pool', '10.0.0.200')], [pool]));
    const changes = runner.calls.filter((c) => /^(ip addr (del|replace)|iptables-restore)/.test(c));
    // The old IP goes before the chain forgets it; the new one is recorded before it is added.
    expect(changes).toEqual([
      'ip addr del 10.0.0.201/32 dev br-phy',
      'iptables-restore --noflush -w 5',
      'ip addr replace 10.0.0.200/32 dev br-phy',
    ]);
    expect(runner.restores.at(-1)).toContain(
      '--mark 0x1/0xff -m comment --comment "Antrea: SNAT Egress packets to an IP the agent assigned" -j SNAT --to-source 10.0.0.200',
    );
    expect(runner.restores.at(-1)).not.toContain('10.0.0.201');
  });

  it('reports AssignmentError when every selected Node holds its maximum of Egress IPs', async () => {
    const pool = {
      metadata: { name: 'pool' },
      spec: { ipRanges: [{ start: '10.0.0.200', end: '10.0.0.201' }], nodeSelector: {} },
    } as ExternalIPPool;
    const older = poolEgress('a', 'pool', '10.0.0.200');
    older.metadata.creationTimestamp = new Date('2026-01-01T00:00:00Z');
    const newer = poolEgress('b', 'pool', '10.0.0.201');
    newer.metadata.creationTimestamp = new Date('2026-01-02T00:00:00Z');
    const source = new FakeSource([newer, older], [pool]);
    const runner = new FakeRunner('', '');
    agentOptions = { maxEgressIpsPerNode: 1 };
    await startAgent(runner, source);
    expect(runner.calls.filter((c) => c.startsWith('ip addr replace'))).toEqual([
      'ip addr replace 10.0.0.200/32 dev br-phy',
    ]);
    const failed = source.statuses.find((s) => s.conditions?.some((c) => c.status === 'False'));
    expect(failed?.egressNode).toBeUndefined();
    expect(failed?.conditions?.[0]?.message).toBe(
      'Failed to assign the IP to EgressNode: no Node available: every Ready Node ExternalIPPool pool selects holds its maximum of Egress IPs',
    );
  });
});
