// The Traceflow informers of both sides, built by @antrea-ts/apis crdInformer, against a real
// kube-apiserver: the controller's KubeTraceflowStore (cache, status writes) and the agent's
// KubeTraceflowApi (events, result appends) see the same CR come, change and go.
import { fileURLToPath } from 'node:url';
import { KubeTraceflowApi } from '@antrea-ts/agent';
import { CRD_KINDS, type Traceflow } from '@antrea-ts/apis';
import { KubeTraceflowStore } from '@antrea-ts/controller';
import { installCrds, type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const { group, version, plural } = CRD_KINDS.Traceflow;

let kube: KubeCluster;
let store: KubeTraceflowStore | undefined;
let agentApi: KubeTraceflowApi | undefined;

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
}, 180_000);

afterAll(async () => {
  await agentApi?.stop();
  await store?.stop();
  await kube?.stop();
});

describe('Traceflow informers on crdInformer', () => {
  it('controller store and agent watch follow a Traceflow from creation to deletion', async () => {
    const controllerSeen: string[] = [];
    const agentSeen: string[] = [];
    store = new KubeTraceflowStore(kube.kubeConfig, logger);
    await store.start({
      changed: (tf) => controllerSeen.push(`changed ${tf.metadata.name} ${tf.status?.phase ?? '-'}`),
      removed: (tf) => controllerSeen.push(`removed ${tf.metadata.name}`),
    });
    agentApi = new KubeTraceflowApi(kube.kubeConfig, logger);
    await agentApi.watch({
      upsert: (tf) => agentSeen.push(`upsert ${tf.metadata.name} ${tf.status?.results?.length ?? 0}`),
      remove: (name) => agentSeen.push(`remove ${name}`),
    });

    const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
    const body: Traceflow = {
      apiVersion: `${group}/${version}`,
      kind: 'Traceflow',
      metadata: { name: 'tf-1' },
      spec: { source: { namespace: 'ns', pod: 'a' }, destination: { namespace: 'ns', pod: 'b' } },
    } as Traceflow;
    await api.createClusterCustomObject({ group, version, plural, body });
    await waitFor('the controller store caches tf-1', async () => store?.get('tf-1'), 30_000);

    await store.updateStatus(store.get('tf-1') as Traceflow, { phase: 'Running' });
    await agentApi.appendResult('tf-1', { node: 'n1', role: 'sender', observations: [] });
    await waitFor('the agent sees its result', async () => agentSeen.includes('upsert tf-1 1'), 30_000);
    await waitFor(
      'the store has the result',
      async () => store?.get('tf-1')?.status?.results?.length === 1,
      30_000,
    );
    expect(store.list().map((tf) => [tf.metadata.name, tf.status?.phase])).toEqual([['tf-1', 'Running']]);

    await api.deleteClusterCustomObject({ group, version, plural, name: 'tf-1' });
    await waitFor('the agent sees the deletion', async () => agentSeen.includes('remove tf-1'), 30_000);
    await waitFor('the store forgets tf-1', async () => store?.get('tf-1') === undefined, 30_000);
    expect(controllerSeen).toEqual([
      'changed tf-1 -',
      'changed tf-1 Running',
      'changed tf-1 Running',
      'removed tf-1',
    ]);
    expect(agentSeen).toEqual(['upsert tf-1 0', 'upsert tf-1 0', 'upsert tf-1 1', 'remove tf-1']);
  }, 120_000);
});
