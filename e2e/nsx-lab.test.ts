// The NSX adapter end to end on the lab (instance 19: lab19-*, lb19*, 198.19.19.0/24): a 2-Node
// lab (real antrea-controller, agents in netns Nodes with userspace OVS, Pods through the CNI
// chain), the NSX Manager simulator on loopback with its state in a file, and the nsx-adapter
// process between them. DFW policies written into the simulator must become Tiers,
// ClusterNetworkPolicies and ClusterGroups, be enforced on real packets, and come back to the
// simulator as realized; the simulator's container inventory must follow the cluster.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { condition, conjunction, generateClientCertificate } from '@antrea-ts/nsx-sim';
import { LoopbackSim } from '@antrea-ts/nsx-sim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { NsxAdapterProcess } from './framework/nsx-adapter-process.js';

const ROOT = join(import.meta.dirname, '..');
const STATE_DIR = '/var/run/antrea-ts-lab-e2e-19';
const options = e2eLabOptions(19);
const isRoot = process.getuid?.() === 0;

const CLUSTER = 'lab19';
const POLICY = '/policy/api/v1';
const DOMAIN = '/infra/domains/default';
const CCP = `/infra/sites/default/enforcement-points/default/cluster-control-planes/${CLUSTER}`;
const MANAGED = 'ccp-adapter.antrea.tanzu.vmware.com/managedBy=ccp-adapter';
const group = (id: string) => `${DOMAIN}/groups/${id}`;
const policy = (id: string) => `${DOMAIN}/security-policies/${id}`;
const HTTP = '/infra/services/HTTP';

// Pods of the probe matrix: web and the shop client on Node 1 and 2, a client with the same label
// in another Namespace, a database.
const SHOP = 'nsx-shop';
const DEV = 'nsx-dev';
const PODS = [
  { namespace: SHOP, name: 'web', node: 'lab19-node-1', labels: { app: 'web' } },
  { namespace: SHOP, name: 'db', node: 'lab19-node-2', labels: { app: 'db' } },
  { namespace: SHOP, name: 'client', node: 'lab19-node-2', labels: { app: 'client' } },
  { namespace: DEV, name: 'client', node: 'lab19-node-1', labels: { app: 'client' } },
];
const TARGETS = ['nsx-shop/web', 'nsx-shop/db'];
type Matrix = Record<string, string>;

/** Every cell allowed, then `changes`: the matrix with no policy in the way. */
function expected(changes: Matrix = {}): Matrix {
  const m: Matrix = {};
  for (const p of PODS)
    for (const t of TARGETS)
      if (`${p.namespace}/${p.name}` !== t) m[`${p.namespace}/${p.name} > ${t}`] = 'allow';
  return { ...m, ...changes };
}

// biome-ignore lint/suspicious/noExplicitAny: kubectl JSON
type Json = any;

describe.skipIf(!isRoot)('NSX adapter on the lab', () => {
  let lab: Lab;
  let sim: LoopbackSim;
  let adapter: NsxAdapterProcess;
  let dir: string;

  const kubectlJson = async (args: string[]): Promise<Json> =>
    JSON.parse(await lab.kubectl([...args, '-o', 'json']));
  const managed = async (kind: string): Promise<Json[]> =>
    (await kubectlJson(['get', kind, '-l', MANAGED])).items;
  const uid = async (path: string): Promise<string> => (await sim.must('GET', `${POLICY}${path}`)).unique_id;

  const until = <T>(fn: () => Promise<T | undefined | false>, what: string, ms = 60_000) =>
    waitFor(what, fn, ms, 250);

  /** One TCP/80 probe per (Pod, target) pair, every source at once. */
  async function matrix(): Promise<Matrix> {
    const m: Matrix = {};
    await Promise.all(
      PODS.map(async (p) => {
        const from = `${p.namespace}/${p.name}`;
        const to = TARGETS.filter((t) => t !== from);
        const targets = to.map((t) => {
          const [ns, name] = t.split('/') as [string, string];
          return { ip: lab.pod(ns, name).ips[0]!, port: 80, protocol: 'TCP' as const };
        });
        const results = await lab.probe(p, targets, 1500);
        to.forEach((t, i) => {
          m[`${from} > ${t}`] = results[i]!.result;
        });
      }),
    );
    return m;
  }

  /** Probes until the matrix is `want` (realization on the Nodes is eventual); returns the last one. */
  async function matrixBecomes(want: Matrix, ms = 60_000): Promise<Matrix> {
    const end = Date.now() + ms;
    for (;;) {
      const m = await matrix();
      if (Object.entries(want).every(([k, v]) => m[k] === v) || Date.now() > end) return m;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** The simulator's consolidated realization of a security policy: overall and this cluster's entry. */
  async function realization(id: string): Promise<{ overall: string; cluster: Json }> {
    const s = await sim.must('GET', `${POLICY}/infra/realized-state/status?intent_path=${policy(id)}`);
    return {
      overall: s.consolidated_status.consolidated_status,
      cluster: s.consolidated_status_per_enforcement_point[0].consolidated_status_per_container_cluster[0],
    };
  }

  /** An IN rule: from source groups (or ANY) to destination groups on services (or ANY). */
  interface InRule {
    id: string;
    action: 'ALLOW' | 'DROP' | 'REJECT';
    from: string[];
    to: string[];
    services: string[];
  }

  /** Writes a security policy of IN rules (sequence numbers in order) and spans it to the lab. */
  async function putPolicy(id: string, spec: Record<string, unknown>, rules: InRule[]): Promise<void> {
    await sim.must('PATCH', `${POLICY}${policy(id)}`, {
      ...spec,
      rules: rules.map((r, i) => ({
        id: r.id,
        sequence_number: i + 1,
        action: r.action,
        direction: 'IN',
        source_groups: r.from,
        destination_groups: r.to,
        services: r.services,
      })),
    });
    await sim.must('PATCH', `${POLICY}${policy(id)}/container-cluster-span/${CLUSTER}`, {
      container_cluster_path: CCP,
    });
  }

  beforeAll(async () => {
    // A tree mid-edit may not compile: the last build's dist then serves (a missing binary fails Lab.up).
    await promisify(execFile)(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/nsx-adapter'],
      { cwd: ROOT },
    ).catch(() => undefined);
    await Lab.down(options);
    dir = mkdtempSync('/tmp/antrea-ts-nsx-lab-');
    sim = new LoopbackSim(join(dir, 'sim-state.json'));
    const [started] = await Promise.all([Lab.up({ ...options, nodes: 2 }), sim.start()]);
    lab = started;
    await Promise.all(PODS.map((p) => lab.createPod({ ...p, ports: [{ port: 80, protocol: 'TCP' }] })));

    // The principal identity of the cluster; the adapter registers itself with it.
    const { cert, key } = await generateClientCertificate(dir, CLUSTER);
    writeFileSync(join(dir, 'tls.crt'), cert);
    writeFileSync(join(dir, 'tls.key'), key);
    adapter = new NsxAdapterProcess({
      root: ROOT,
      nsxUrl: sim.url,
      clusterName: CLUSTER,
      kubeconfig: lab.kubeconfigPath,
      logFile: join(STATE_DIR, 'logs', 'nsx-adapter'),
      args: [
        ...['--cert', join(dir, 'tls.crt'), '--key', join(dir, 'tls.key'), '--register'],
        ...['--policy-poll', '1', '--inventory-batch-period', '1', '--stats-interval', '5'],
        // debug: the CCP adapter's retries during an outage log at debug.
        ...['--log-level', 'debug'],
      ],
    });
    adapter.start();
    await until(async () => (await adapter.health())?.status === 'UP', 'adapter UP');

    // Groups the policies below share.
    const groups: Record<string, unknown[]> = {
      web: [condition('Pod', 'Tag', 'dis:k8s:app|web')],
      db: [condition('Pod', 'Tag', 'dis:k8s:app|db')],
      'shop-clients': [
        {
          resource_type: 'NestedExpression',
          expressions: [
            condition('Namespace', 'Name', SHOP),
            conjunction('AND'),
            condition('Pod', 'Tag', 'dis:k8s:app|client'),
          ],
        },
      ],
      'dev-pods': [condition('Namespace', 'Name', DEV)],
    };
    for (const [id, expression] of Object.entries(groups))
      await sim.must('PATCH', `${POLICY}${group(id)}`, { group_type: ['ANTREA'], expression });
  }, 300_000);

  afterAll(async () => {
    await adapter?.stop();
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (!process.env.KEEP_LAB) await Lab.down(options);
  }, 120_000);

  it('starts with every Pod reaching every Pod', async () => {
    expect(await matrixBecomes(expected())).toEqual(expected());
  });

  it('turns a DFW policy into Tier/ClusterGroups/ACNP, enforces it on packets, reports it realized', async () => {
    await putPolicy('shop-web', { display_name: 'Shop web', category: 'Application', sequence_number: 10 }, [
      {
        id: 'clients-in',
        action: 'ALLOW',
        from: [group('shop-clients')],
        to: [group('web')],
        services: [HTTP],
      },
      { id: 'others-in', action: 'DROP', from: ['ANY'], to: [group('web')], services: ['ANY'] },
    ]);
    const name = await uid(policy('shop-web'));
    const acnp = await until(
      async () => (await managed('acnp')).find((p: Json) => p.metadata.name === name),
      'ACNP',
    );
    expect(acnp.metadata.annotations['ccp-adapter.antrea.tanzu.vmware.com/display-name']).toBe('Shop web');
    expect(acnp.spec.tier).toBe('nsx-category-application');
    // Rules are named by NSX rule_id (a number NSX assigns), as the real adapter names them.
    const ruleId = async (id: string) =>
      String((await sim.must('GET', `${POLICY}${policy('shop-web')}/rules/${id}`)).rule_id);
    expect(acnp.spec.ingress.map((r: Json) => [r.name, r.action])).toEqual([
      [await ruleId('clients-in'), 'Allow'],
      [await ruleId('others-in'), 'Drop'],
    ]);
    expect((await managed('tiers')).map((t: Json) => t.metadata.name).sort()).toEqual([
      'nsx-category-application',
      'nsx-category-emergency',
      'nsx-category-environment',
      'nsx-category-ethernet',
      'nsx-category-infrastructure',
    ]);
    const web = await uid(group('web'));
    const clients = await uid(group('shop-clients'));
    expect((await managed('clustergroups')).map((g: Json) => g.metadata.name).sort()).toEqual(
      [web, `${web}-0`, clients, `${clients}-0`].sort(),
    );

    const want = expected({ 'nsx-dev/client > nsx-shop/web': 'drop', 'nsx-shop/db > nsx-shop/web': 'drop' });
    expect(await matrixBecomes(want)).toEqual(want);

    // The controller's status (web runs on one Node) comes back to NSX as SUCCESS.
    const r = await until(async () => {
      const s = await realization('shop-web');
      return s.overall === 'SUCCESS' && s;
    }, 'realized in NSX');
    expect(r.cluster).toMatchObject({
      status: 'SUCCESS',
      current_nodes_realized: 1,
      desired_nodes_realized: 1,
    });
  });

  it('follows a rule change on CRDs, packets and realization', async () => {
    const name = await uid(policy('shop-web'));
    await sim.must('PATCH', `${POLICY}${policy('shop-web')}/rules/clients-in`, {
      source_groups: [group('dev-pods')],
    });
    await sim.must('PATCH', `${POLICY}${policy('shop-web')}/rules/others-in`, { action: 'REJECT' });
    const dev = await uid(group('dev-pods'));
    await until(async () => {
      const acnp = (await managed('acnp')).find((p: Json) => p.metadata.name === name);
      return acnp?.spec.ingress[1]?.action === 'Reject' && acnp.spec.ingress[0]?.from[0]?.group === dev;
    }, 'ACNP updated');
    const want = expected({
      'nsx-shop/client > nsx-shop/web': 'reject',
      'nsx-shop/db > nsx-shop/web': 'reject',
    });
    expect(await matrixBecomes(want)).toEqual(want);
    // A rule has its own _revision (the policy's stays), so NSX cannot tell an old SUCCESS from a new
    // one: what says the change is realized is the ACNP status for its new generation, which the
    // adapter reports as SUCCESS.
    const updated = await until(async () => {
      const acnp = (await managed('acnp')).find((p: Json) => p.metadata.name === name);
      return (
        acnp?.status?.phase === 'Realized' &&
        acnp.status.observedGeneration === acnp.metadata.generation &&
        acnp
      );
    }, 'new generation realized');
    expect(updated.metadata.generation).toBeGreaterThan(1);
    // The adapter reports the status it watches, so NSX sees it a report cycle after the CRD has it.
    await until(async () => (await realization('shop-web')).overall === 'SUCCESS', 'SUCCESS in NSX');
  });

  it('follows a policy deletion: CRDs gone, packets allowed', async () => {
    await sim.must('DELETE', `${POLICY}${policy('shop-web')}`);
    await until(async () => (await managed('acnp')).length === 0, 'ACNP deleted');
    await until(async () => (await managed('clustergroups')).length === 0, 'ClusterGroups deleted');
    expect(await matrixBecomes(expected())).toEqual(expected());
  });

  it('restarted after an NSX-side deletion, removes the stale CRDs', async () => {
    await putPolicy('db-lockdown', { category: 'Emergency', sequence_number: 1 }, [
      { id: 'dev-in', action: 'DROP', from: [group('dev-pods')], to: [group('db')], services: ['ANY'] },
    ]);
    const name = await uid(policy('db-lockdown'));
    const want = expected({ 'nsx-dev/client > nsx-shop/db': 'drop' });
    expect(await matrixBecomes(want)).toEqual(want);

    expect(await adapter.stop()).toBe(0);
    await sim.must('DELETE', `${POLICY}${policy('db-lockdown')}`);
    // Nobody runs the adapter: the CRDs and their enforcement are still there.
    expect((await managed('acnp')).map((p: Json) => p.metadata.name)).toEqual([name]);
    expect(await matrix()).toEqual(want);

    adapter.start();
    await until(async () => (await managed('acnp')).length === 0, 'stale ACNP removed');
    await until(async () => (await managed('clustergroups')).length === 0, 'stale ClusterGroups removed');
    expect(await matrixBecomes(expected())).toEqual(expected());
  });

  it('NSX stopped: enforcement unchanged, health DEGRADED and retries; NSX back: sync resumes', async () => {
    await putPolicy('db-from-shop', { category: 'Environment', sequence_number: 5 }, [
      {
        id: 'shop-clients-in',
        action: 'REJECT',
        from: [group('shop-clients')],
        to: [group('db')],
        services: [HTTP],
      },
    ]);
    const want = expected({ 'nsx-shop/client > nsx-shop/db': 'reject' });
    expect(await matrixBecomes(want)).toEqual(want);
    await until(async () => (await realization('db-from-shop')).overall === 'SUCCESS', 'realized');
    await until(async () => (await adapter.health())?.status === 'UP', 'adapter UP');
    const acnps = await managed('acnp');
    const heartbeats = (await sim.must('GET', `${POLICY}${CCP}/status`)).heartbeat_count;

    await sim.stop();
    const degraded = await until(async () => {
      const h = await adapter.health();
      return h?.ccp.status === 'DEGRADED' && h.mp.status === 'DEGRADED' && h;
    }, 'DEGRADED');
    expect(degraded.ccp.conditions.find((c) => c.type === 'NSXConnectionUp')).toMatchObject({
      status: 'FALSE',
    });
    // It keeps trying, backing off (0.5 s doubling; the first failure warns, the rest log at debug).
    const retries = () => adapter.logged('NSX policy feed unavailable; keeping existing policies');
    await until(async () => retries().length >= 3, 'three attempts');
    expect(
      retries()
        .slice(0, 3)
        .map((l) => l['retryInMs']),
    ).toEqual([500, 1000, 2000]);
    expect(await matrix()).toEqual(want);
    expect(await managed('acnp')).toEqual(acnps);

    await sim.start(); // same port, same state file
    await until(async () => (await adapter.health())?.status === 'UP', 'UP again');
    await until(
      async () => (await sim.must('GET', `${POLICY}${CCP}/status`)).heartbeat_count > heartbeats,
      'heartbeats again',
    );
    // Sync resumed: an NSX change made now reaches the CRDs and the packets.
    await sim.must('DELETE', `${POLICY}${policy('db-from-shop')}`);
    await until(async () => (await managed('acnp')).length === 0, 'ACNP deleted after the outage');
    expect(await matrixBecomes(expected())).toEqual(expected());
  });

  it('keeps the NSX inventory equal to the cluster through Pod churn and relabelling', async () => {
    const nsx = async (collection: string, id: string): Promise<Json[]> => {
      const out: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = await sim.must(
          'GET',
          `/api/v1/fabric/${collection}?container_cluster_id=${id}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        out.push(...page.results);
        cursor = page.cursor;
      } while (cursor);
      return out;
    };
    const clusterId = (await sim.must('GET', `${POLICY}${CCP}`)).node_id as string;
    const tags = (labels: Record<string, string> | undefined) =>
      Object.entries(labels ?? {})
        .map(([k, v]) => `dis:k8s:${k}=${v}`)
        .sort();
    // Both sides as comparable lines: what NSX holds and what the cluster says it should.
    const nsxPods = async () =>
      (await nsx('container-application-instances', clusterId))
        .map(
          (p: Json) =>
            `${p.external_id} ${p.display_name} node=${p.cluster_node_id} ip=${
              p.origin_properties.find((o: Json) => o.key === 'ip')?.value
            } ${p.tags.map((t: Json) => `${t.scope}=${t.tag}`).sort()}`,
        )
        .sort();
    const kubePods = async () => {
      const nodes = new Map(
        (await kubectlJson(['get', 'nodes'])).items.map((n: Json) => [n.metadata.name, n.metadata.uid]),
      );
      return (await kubectlJson(['get', 'pods', '-A'])).items
        .map(
          (p: Json) =>
            `${p.metadata.uid} ${p.metadata.name} node=${nodes.get(p.spec.nodeName)} ip=${p.status.podIP ?? ''} ${tags(
              p.metadata.labels,
            )}`,
        )
        .sort();
    };
    const same = async (collection: string, kind: string) =>
      JSON.stringify((await nsx(collection, clusterId)).map((o: Json) => o.external_id).sort()) ===
      JSON.stringify((await kubectlJson(['get', kind])).items.map((o: Json) => o.metadata.uid).sort());

    const pods = async () => JSON.stringify(await nsxPods()) === JSON.stringify(await kubePods());
    // Each kind comes from its own informer: the Pods agreeing says nothing of the other kinds.
    await until(pods, 'initial Pod inventory');
    await until(() => same('container-projects', 'namespaces'), 'initial Namespace inventory');
    await until(() => same('container-cluster-nodes', 'nodes'), 'initial Node inventory');
    const before = (await nsxPods()).length;

    // Churn: two Pods and a Namespace come, one Pod goes, one is relabelled.
    await Promise.all([
      lab.createPod({ namespace: SHOP, name: 'extra', node: 'lab19-node-1', labels: { app: 'extra' } }),
      lab.createPod({ namespace: 'nsx-churn', name: 'new', node: 'lab19-node-2', labels: { tier: 'x' } }),
    ]);
    await lab.deletePod(DEV, 'client');
    await lab.kubectl(['label', 'pod', '-n', SHOP, 'client', 'app=client2', 'role=buyer', '--overwrite']);
    await until(pods, 'Pod inventory after churn');
    await until(() => same('container-projects', 'namespaces'), 'Namespaces after churn');
    const after = await nsxPods();
    expect(after.length).toBe(before + 1);
    const client = (await kubectlJson(['get', 'pod', '-n', SHOP, 'client'])).metadata.uid;
    expect(after.find((l) => l.startsWith(client))).toContain('dis:k8s:app=client2,dis:k8s:role=buyer');
    // NSX's own view of the group follows the new label: the shop client left shop-clients.
    const members = await sim.must(
      'GET',
      `${POLICY}${group('shop-clients')}/members/pods?cluster_id=${clusterId}`,
    );
    expect(members.results.map((p: Json) => p.display_name)).toEqual([]);
  });
});
