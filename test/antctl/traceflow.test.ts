// antctl traceflow against a real kube-apiserver with the Traceflow CRD, and a fake controller
// loop in the test that fills in status the way antrea-controller does.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnections, decideMode, type HttpApiClient } from '@antrea-ts/antctl';
import type { Traceflow } from '@antrea-ts/apis';
import { applyObjects, installCrds, type KubeCluster, startKube } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antctl } from './helpers.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TF = '/apis/crd.antrea.io/v1beta1/traceflows';

describe('antctl traceflow with the Traceflow CRD', () => {
  let kube: KubeCluster;
  let api: HttpApiClient;
  let stopLoop = false;
  let loop: Promise<void> | undefined;
  const specs: Traceflow['spec'][] = [];

  /** Plays antrea-controller: every new Traceflow is answered with two Nodes' observations. */
  async function fakeController(): Promise<void> {
    while (!stopLoop) {
      const res = await api.request({ path: TF });
      const list = JSON.parse(res.body.toString()) as { items: Traceflow[] };
      for (const tf of list.items ?? []) {
        if (tf.status?.phase || tf.metadata.name?.includes('slow')) continue;
        specs.push(tf.spec);
        const dropped = tf.spec.destination?.service === 'db-svc';
        const status = {
          phase: 'Succeeded',
          dataplaneTag: 7,
          results: [
            {
              node: 'node-a',
              role: 'sender',
              timestamp: 1763717000,
              observations: [
                { component: 'SpoofGuard', action: 'Forwarded' },
                dropped
                  ? {
                      component: 'NetworkPolicy',
                      componentInfo: 'EgressMetric',
                      action: 'Dropped',
                      networkPolicy: 'AntreaNetworkPolicy:prod/annp-deny',
                      networkPolicyRule: 'deny-db',
                    }
                  : {
                      component: 'Forwarding',
                      componentInfo: 'Output',
                      action: 'Forwarded',
                      tunnelDstIP: '192.168.77.11',
                    },
              ],
            },
            ...(dropped
              ? []
              : [
                  {
                    node: 'node-b',
                    role: 'receiver',
                    timestamp: 1763717001,
                    observations: [
                      {
                        component: 'Forwarding',
                        componentInfo: 'Output',
                        action: 'Delivered',
                        pod: 'prod/db-0',
                      },
                    ],
                  },
                ]),
          ],
        };
        await api.request({
          method: 'PATCH',
          path: `${TF}/${tf.metadata.name}/status`,
          body: { status },
          contentType: 'application/merge-patch+json',
        });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    kube = await startKube();
    await installCrds(kube, [join(repo, 'build/crds/crd-traceflow.yaml')]);
    const pod = (name: string, namespace: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await applyObjects(kube, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } },
      pod('web-0', 'default'),
      pod('db-0', 'prod'),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'db-svc', namespace: 'prod' },
        spec: { ports: [{ port: 5432 }], selector: { app: 'db' } },
      },
    ]);
    api = (await createConnections(decideMode(undefined), {
      kubeconfig: kube.kubeconfigPath,
      timeoutMs: 10_000,
      fileExists: () => true,
      readFile: () => '',
    }).kube()) as HttpApiClient;
    loop = fakeController();
  });

  afterAll(async () => {
    stopLoop = true;
    await loop?.catch(() => {});
    await kube?.stop();
  });

  const remaining = async () => (await kube.kubectl(['get', 'traceflows', '-o', 'name'])).trim();

  it('traces Pod to Pod, prints the observations readably, and deletes the Traceflow', async () => {
    const r = await antctl([
      'traceflow',
      '-S',
      'default/web-0',
      '-D',
      'prod/db-0',
      '-f',
      'tcp,tcp_dst=5432',
      '-o',
      'table',
      '-k',
      kube.kubeconfigPath,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^Traceflow default-web-0-to-prod-db-0-[a-f0-9]{8}: Succeeded$/);
    expect(lines.slice(1)).toEqual([
      'From default/web-0 to prod/db-0',
      'NODE   ROLE     COMPONENT  ACTION    DETAILS',
      'node-a sender   SpoofGuard Forwarded <NONE>',
      'node-a sender   Forwarding Forwarded Output; tunnel to 192.168.77.11',
      'node-b receiver Forwarding Delivered Output; pod prod/db-0',
      '',
    ]);
    expect(specs.at(-1)).toEqual({
      source: { namespace: 'default', pod: 'web-0' },
      destination: { namespace: 'prod', pod: 'db-0' },
      packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 5432 } } },
      timeout: 10,
    });
    expect(await remaining()).toBe('');
  });

  it('traces to a Service, names the dropping rule in yaml, and keeps the Traceflow with --keep', async () => {
    const r = await antctl([
      'tf',
      '-S',
      'default/web-0',
      '-D',
      'prod/db-svc',
      '--keep',
      '-k',
      kube.kubeconfigPath,
    ]);
    expect(r.code).toBe(0);
    expect(specs.at(-1)?.destination).toEqual({ namespace: 'prod', service: 'db-svc' });
    expect(r.out).toContain('phase: Succeeded\nsource: default/web-0\ndestination: prod/db-svc\n');
    expect(r.out).toContain('action: Dropped');
    expect(r.out).toContain('networkPolicyRule: deny-db');
    const kept = await remaining();
    expect(kept).toMatch(/^traceflow.crd.antrea.io\/default-web-0-to-prod-db-svc-[a-f0-9]{8}$/);
    await kube.kubectl(['delete', kept]);
  });

  it('times out when no controller answers, with advice, and still cleans up', async () => {
    const r = await antctl([
      'traceflow',
      '-S',
      'default/slow',
      '-D',
      '10.0.0.9',
      '-t',
      '2s',
      '-k',
      kube.kubeconfigPath,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /timeout waiting for Traceflow default-slow-to-10\.0\.0\.9-[a-f0-9]{8} done \(2s\)/,
    );
    expect(r.err).toContain('is the Traceflow feature gate enabled');
    expect(await remaining()).toBe('');
  });
});
