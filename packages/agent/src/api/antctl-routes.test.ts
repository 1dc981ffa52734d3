import type { GroupMember, NetworkPolicy, NetworkPolicyType } from '@antrea-ts/apis';
import Fastify from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { NetworkPolicyController } from '../networkpolicy/network-policy-controller.js';
import { RuleCache } from '../networkpolicy/rule-cache.js';
import { registerAntctlRoutes } from './antctl-routes.js';
import { agentFeatureGates } from './feature-gates.js';
import { LogLevelControl } from './log-level.js';

const member = (name: string, ip: number[]): GroupMember => ({
  pod: { namespace: 'ns', name },
  ips: [Uint8Array.from(ip)],
});
const policy = (name: string, type: NetworkPolicyType, source: string, atg: string): NetworkPolicy => ({
  metadata: { name, generation: 1 },
  appliedToGroups: [atg],
  rules: [{ direction: 'In', from: { addressGroups: ['ag'] }, priority: 0, enableLogging: false }],
  sourceRef: { type, namespace: 'ns', name: source, uid: name },
});

function app(levels = new LogLevelControl()) {
  const cache = new RuleCache();
  cache.setPods([
    { namespace: 'ns', name: 'web', ofport: 3, ip: '10.0.0.3' },
    { namespace: 'ns', name: 'db', ofport: 4, ip: '10.0.0.4' },
  ]);
  cache.replaceGroups('appliedtogroups', [
    { metadata: { name: 'atg-web' }, groupMembers: [member('web', [10, 0, 0, 3])] },
    { metadata: { name: 'atg-db' }, groupMembers: [member('db', [10, 0, 0, 4])] },
  ]);
  cache.replaceGroups('addressgroups', [
    { metadata: { name: 'ag' }, groupMembers: [member('c', [10, 0, 0, 9])] },
  ]);
  cache.replacePolicies([
    policy('uid-1', 'K8sNetworkPolicy', 'allow-web', 'atg-web'),
    policy('uid-2', 'AntreaNetworkPolicy', 'deny-db', 'atg-db'),
  ]);
  const a = Fastify();
  registerAntctlRoutes(a, {
    policy: () => ({ cache }) as unknown as NetworkPolicyController,
    featureGates: () => agentFeatureGates(new Set(['AntreaPolicy'])),
    logLevel: levels,
  });
  return a;
}

const get = async (a: ReturnType<typeof app>, url: string) => {
  const r = await a.inject({ method: 'GET', url });
  return { status: r.statusCode, body: r.json() as unknown };
};
const names = (b: unknown) => (b as { metadata: { name: string } }[]).map((p) => p.metadata.name);

describe('agent antctl routes', () => {
  it('/networkpolicies filters by name, source, namespace, type and Pod', async () => {
    const a = app();
    expect(names((await get(a, '/networkpolicies')).body)).toEqual(['uid-1', 'uid-2']);
    expect((await get(a, '/networkpolicies?name=uid-2')).body).toMatchObject({ metadata: { name: 'uid-2' } });
    expect((await get(a, '/networkpolicies?name=nope')).status).toBe(404);
    expect(names((await get(a, '/networkpolicies?source=allow-web&namespace=ns')).body)).toEqual(['uid-1']);
    expect(names((await get(a, '/networkpolicies?type=ANNP')).body)).toEqual(['uid-2']);
    expect(names((await get(a, '/networkpolicies?pod=ns/db')).body)).toEqual(['uid-2']);
    expect((await get(a, '/networkpolicies?type=XYZ')).status).toBe(400);
  });

  it('/appliedtogroups and /addressgroups print IPs as base64, as Go does', async () => {
    const a = app();
    expect((await get(a, '/addressgroups')).body).toEqual([
      {
        metadata: { name: 'ag' },
        groupMembers: [{ pod: { namespace: 'ns', name: 'c' }, ips: ['CgAACQ=='] }],
      },
    ]);
    expect(names((await get(a, '/appliedtogroups')).body)).toEqual(['atg-db', 'atg-web']);
    expect((await get(a, '/appliedtogroups?name=atg-web')).body).toMatchObject({
      metadata: { name: 'atg-web' },
    });
    expect((await get(a, '/appliedtogroups?name=x')).status).toBe(404);
  });

  it('/featuregates says Enabled only for what runs', async () => {
    const gates = (await get(app(), '/featuregates')).body as { name: string; status: string }[];
    expect(gates.find((g) => g.name === 'AntreaPolicy')?.status).toBe('Enabled');
    expect(gates.find((g) => g.name === 'AntreaProxy')?.status).toBe('Disabled');
  });

  it('/loglevel shows and sets the verbosity of every tracked logger, children included', async () => {
    const levels = new LogLevelControl();
    const root = pino({ level: 'info', onChild: levels.onChild });
    levels.track(root);
    const child = root.child({ component: 'x' });
    const grandchild = child.child({ op: 'y' });
    const a = app(levels);
    expect((await get(a, '/loglevel')).body).toBe(0);
    expect((await get(a, '/loglevel?level=4')).body).toBe(4);
    expect([root.level, child.level, grandchild.level]).toEqual(['trace', 'trace', 'trace']);
    expect((await get(a, '/loglevel?level=2')).body).toBe(2);
    expect(grandchild.level).toBe('debug');
    expect((await get(a, '/loglevel?level=-1')).status).toBe(400);
  });
});
