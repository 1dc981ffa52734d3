// The proxier fed by the real informer source from a real kube-apiserver: a Service and its
// EndpointSlice become one service port with the right endpoints, a scale-up is one change of that
// port only, and deleting the Service removes its owner. Flows go to a recording FlowCache; real
// packets through these flows are proven in test/agent/service-flows.test.ts and e2e.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  InformerServiceSource,
  type OwnerChange,
  Pipeline,
  Proxier,
  type ProxyFlowSink,
} from '@antrea-ts/agent';
import { type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { formatFlow, formatGroup } from '@antrea-ts/openflow';
import { CoreV1Api, DiscoveryV1Api, type V1EndpointSlice } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NS = 'proxy-test';
const OWNER = `service/${NS}/web/http/TCP`;

class RecordingFlows implements ProxyFlowSink {
  readonly batches: OwnerChange[][] = [];
  async replace(): Promise<void> {}
  async replaceMany(changes: ReadonlyArray<OwnerChange>): Promise<void> {
    this.batches.push([...changes]);
  }
  async pruneGroups(): Promise<number> {
    return 0;
  }
  /** This test's service port changes, in order. */
  changesOf(owner: string): OwnerChange[] {
    return this.batches.flatMap((b) => b.filter(([o]) => o === owner));
  }
}

const bucketCount = (c: OwnerChange | undefined) => c?.[2]?.[0]?.buckets.length ?? 0;

let kube: KubeCluster;
let proxier: Proxier | undefined;

beforeAll(async () => {
  kube = await startKube({ logger });
}, 180_000);

afterAll(async () => {
  await proxier?.stop();
  await kube?.stop();
});

function slice(ips: string[]): V1EndpointSlice {
  return {
    metadata: { name: 'web-abc', namespace: NS, labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  };
}

describe('Proxier on a real kube-apiserver', () => {
  it('follows a Service and its EndpointSlice through create, scale and delete', async () => {
    const core = kube.kubeConfig.makeApiClient(CoreV1Api);
    const discovery = kube.kubeConfig.makeApiClient(DiscoveryV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    const flows = new RecordingFlows();
    const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
    proxier = new Proxier({
      nodeName: 'node-a',
      source: new InformerServiceSource(kube.kubeConfig, logger),
      flows,
      ctx,
      logger,
    });
    await proxier.start();
    // The apiserver's own default/kubernetes Service is proxied from the first sync.
    expect(proxier.installed()).toContain('service/default/kubernetes/https/TCP');

    const svc = await core.createNamespacedService({
      namespace: NS,
      body: {
        metadata: { name: 'web' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
      },
    });
    await discovery.createNamespacedEndpointSlice({ namespace: NS, body: slice(['10.10.0.7']) });
    await waitFor(
      'the service port has its endpoint',
      async () => bucketCount(flows.changesOf(OWNER).at(-1)) === 1,
      30_000,
    );
    const [, installedFlows, groups] = flows.changesOf(OWNER).at(-1) as OwnerChange;
    const clusterIp = svc.spec?.clusterIP as string;
    expect((installedFlows ?? []).map((f) => formatFlow(f)).join('\n')).toContain(`nw_dst=${clusterIp}`);
    // The bucket loads the endpoint 10.10.0.7 into reg3 and port 8080 into reg4[0..15].
    expect((groups ?? []).map((g) => formatGroup(g)).join('\n')).toMatch(
      /type=select,.*bucket=.*set_field:0xa0a0007->reg3,set_field:0x1f90\/0xffff->reg4/,
    );

    const before = flows.batches.length;
    const current = await discovery.readNamespacedEndpointSlice({ namespace: NS, name: 'web-abc' });
    await discovery.replaceNamespacedEndpointSlice({
      namespace: NS,
      name: 'web-abc',
      body: { ...slice(['10.10.0.7', '10.10.1.5']), metadata: current.metadata },
    });
    await waitFor(
      'the scale-up is applied',
      async () => bucketCount(flows.changesOf(OWNER).at(-1)) === 2,
      30_000,
    );
    // Same group id: the group is modified in place.
    expect(flows.changesOf(OWNER).at(-1)?.[2]?.[0]?.groupId).toBe(groups?.[0]?.groupId);
    await proxier.idle();
    const after = flows.batches.slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]?.map(([o]) => o)).toEqual([OWNER]);

    await core.deleteNamespacedService({ namespace: NS, name: 'web' });
    await waitFor(
      'the owner is removed',
      async () => flows.changesOf(OWNER).at(-1)?.[1] === undefined,
      30_000,
    );
    expect(proxier.installed()).not.toContain(OWNER);
  }, 120_000);
});
