import { existsSync } from 'node:fs';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('startKube', () => {
  let kube: KubeCluster;

  beforeAll(async () => {
    kube = await startKube({ controllerManager: true });
  });

  afterAll(async () => {
    await kube?.stop();
  });

  it('serves the Kubernetes API to the admin kubeconfig', async () => {
    const core = kube.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'harness-check', labels: { a: 'b' } } } });
    const ns = await core.readNamespace({ name: 'harness-check' });
    expect(ns.metadata?.labels).toEqual(expect.objectContaining({ a: 'b' }));
    expect(await kube.kubectl(['get', 'ns', 'harness-check', '-o', 'jsonpath={.metadata.name}'])).toBe(
      'harness-check',
    );
  });

  it('issues service-account tokens that TokenReview accepts', async () => {
    const core = kube.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'probe' } },
    });
    const token = (await kube.kubectl(['create', 'token', 'probe', '-n', 'default'])).trim();
    const review = JSON.parse(
      await kube.kubectl(['create', '-f', '-', '-o', 'json'], {
        input: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        }),
      }),
    );
    expect(review.status.authenticated).toBe(true);
    expect(review.status.user.username).toBe('system:serviceaccount:default:probe');
  });

  it('finalizes namespace deletion through kube-controller-manager', async () => {
    const core = kube.kubeConfig.makeApiClient(CoreV1Api);
    await core.deleteNamespace({ name: 'harness-check' });
    const deadline = Date.now() + 60_000;
    let gone = false;
    while (!gone && Date.now() < deadline) {
      try {
        await core.readNamespace({ name: 'harness-check' });
        await new Promise((r) => setTimeout(r, 250));
      } catch {
        gone = true;
      }
    }
    expect(gone).toBe(true);
  });

  it('removes its processes and files on stop', async () => {
    const dir = kube.dir;
    await kube.stop();
    expect(existsSync(dir)).toBe(false);
    await expect(fetch(`${kube.server}/readyz`)).rejects.toThrow();
  });
});
