import { fileURLToPath } from 'node:url';
import { formatIP, type GroupMember } from '@antrea-ts/apis';
import { makePolicyInformers, NetworkPolicyController } from '@antrea-ts/controller';
import { installCrds, type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A ClusterNetworkPolicy applied to Nodes (NodeNetworkPolicy) through a real kube-apiserver with
// the CRDs of build/crds: the controller turns its appliedTo nodeSelector into an AppliedToGroup of
// Node members spanning exactly the selected Nodes, and its nodeSelector peer into an AddressGroup
// of the peer Nodes' IPs; both follow Node label changes, and the delete removes them.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const ACNP = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'clusternetworkpolicies' };

let kube: KubeCluster;
let core: CoreV1Api;
let custom: CustomObjectsApi;
let controller: NetworkPolicyController;
const abort = new AbortController();

const NODES = [
  { name: 'n1', role: 'control', ip: '192.168.0.1' },
  { name: 'n2', role: 'worker', ip: '192.168.0.2' },
  { name: 'n3', role: 'worker', ip: '192.168.0.3' },
];

const acnp = () =>
  controller.networkPolicies
    .list()
    .items.map((i) => i.object)
    .find((p) => p.sourceRef.name === 'lock-node-ssh');
const atg = (name: string) => controller.appliedToGroups.get(name)?.object;
const ag = (name: string) => controller.addressGroups.get(name)?.object;
const nodeMembers = (members: readonly GroupMember[]) =>
  members.map((m) => `${m.node?.name}@${(m.ips ?? []).map(formatIP).join(',')}`).sort();
const sorted = (span: Iterable<string>) => [...span].sort();

async function label(node: string, role: string): Promise<void> {
  const n = await core.readNode({ name: node });
  n.metadata!.labels = { ...n.metadata!.labels, role };
  await core.replaceNode({ name: node, body: n });
}

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const n of NODES) {
    await core.createNode({ body: { metadata: { name: n.name, labels: { role: n.role } } } });
    const node = await core.readNodeStatus({ name: n.name });
    node.status = { addresses: [{ type: 'InternalIP', address: n.ip }] };
    await core.replaceNodeStatus({ name: n.name, body: node });
  }
  controller = new NetworkPolicyController({ informers: makePolicyInformers(kube.kubeConfig), logger });
  await controller.start(abort.signal);
}, 180_000);

afterAll(async () => {
  abort.abort();
  await controller?.stop();
  await kube?.stop();
});

describe('NodeNetworkPolicy in the controller', () => {
  it('computes the policy, its AppliedToGroup of Nodes and the AddressGroup of Node IPs, with spans', async () => {
    await custom.createClusterCustomObject({
      ...ACNP,
      body: {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name: 'lock-node-ssh' },
        spec: {
          priority: 5,
          tier: 'securityops',
          appliedTo: [{ nodeSelector: { matchLabels: { role: 'control' } } }],
          ingress: [
            {
              name: 'allow-admins',
              action: 'Allow',
              from: [{ ipBlock: { cidr: '10.10.0.0/16' } }],
              ports: [{ protocol: 'TCP', port: 22 }],
            },
            {
              name: 'drop-workers',
              action: 'Drop',
              from: [{ nodeSelector: { matchLabels: { role: 'worker' } } }],
              ports: [{ protocol: 'TCP', port: 22 }],
            },
          ],
          egress: [{ name: 'reject-out', action: 'Reject', to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }],
        },
      },
    });
    await waitFor(
      'the internal policy spanning n1',
      async () => sorted(acnp()?.span ?? []).join() === 'n1',
      30_000,
    );
    const p = acnp()!;
    expect(p.sourceRef.type).toBe('AntreaClusterNetworkPolicy');
    expect(p.appliedToGroups).toHaveLength(1);
    expect(p.rules.map((r) => [r.direction, r.action, r.name])).toEqual([
      ['In', 'Allow', 'allow-admins'],
      ['In', 'Drop', 'drop-workers'],
      ['Out', 'Reject', 'reject-out'],
    ]);
    const group = atg(p.appliedToGroups[0]!)!;
    expect([...group.membersByNode.entries()]).toEqual([['n1', [{ node: { name: 'n1' } }]]]);
    expect(sorted(group.span)).toEqual(['n1']);
    const peer = ag(p.rules[1]!.from!.addressGroups![0]!)!;
    expect(nodeMembers(peer.members)).toEqual(['n2@192.168.0.2', 'n3@192.168.0.3']);
    // The AddressGroup goes to the Nodes the policy applies to, not to the peer Nodes.
    expect(sorted(peer.span)).toEqual(['n1']);
  });

  it('follows Node labels: a Node becoming control joins the appliedTo and leaves the peers', async () => {
    await label('n3', 'control');
    await waitFor(
      'the policy spanning n1 and n3',
      async () => sorted(acnp()?.span ?? []).join() === 'n1,n3',
      30_000,
    );
    const p = acnp()!;
    const group = atg(p.appliedToGroups[0]!)!;
    expect(sorted(group.membersByNode.keys())).toEqual(['n1', 'n3']);
    const peerName = p.rules[1]!.from!.addressGroups![0]!;
    await waitFor(
      'n3 out of the peer Nodes',
      async () => nodeMembers(ag(peerName)?.members ?? []).join() === 'n2@192.168.0.2',
      30_000,
    );
    expect(sorted(ag(peerName)!.span)).toEqual(['n1', 'n3']);
  });

  it('the delete removes the policy and its groups', async () => {
    const p = acnp()!;
    await custom.deleteClusterCustomObject({ ...ACNP, name: 'lock-node-ssh' });
    await waitFor('the policy gone', async () => acnp() === undefined, 30_000);
    await waitFor('its groups gone', async () => atg(p.appliedToGroups[0]!) === undefined, 30_000);
    expect(ag(p.rules[1]!.from!.addressGroups![0]!)).toBeUndefined();
  });
});
