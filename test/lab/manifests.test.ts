// The deployment artifacts: generated files match their source (drift check), and a real
// kube-apiserver accepts every object of build/yamls/antrea.yml (server-side dry run validates
// each against its schema: Deployment, DaemonSet, RBAC, APIService, ConfigMap, Service, CRDs).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const exec = promisify(execFile);

describe('deployment artifacts', () => {
  let kube: KubeCluster;

  beforeAll(async () => {
    kube = await startKube();
  });

  afterAll(async () => {
    await kube?.stop();
  });

  it('are what build/manifests/source.mjs generates', async () => {
    await expect(
      exec(process.execPath, ['build/manifests/generate.mjs', '--check'], { cwd: ROOT }),
    ).resolves.toBeDefined();
  });

  it('apply to a real kube-apiserver', async () => {
    const manifest = `${ROOT}build/yamls/antrea.yml`;
    // CRDs for real (the dry run of custom resources needs them), then everything server-side.
    await kube.kubectl(['apply', '-f', `${ROOT}build/crds`]);
    const out = await kube.kubectl(['apply', '--dry-run=server', '-f', manifest]);
    for (const want of [
      'clusterrole.rbac.authorization.k8s.io/antrea-agent',
      'configmap/antrea-config',
      'service/antrea',
      'apiservice.apiregistration.k8s.io/v1beta2.controlplane.antrea.io',
      'deployment.apps/antrea-controller',
      'daemonset.apps/antrea-agent',
    ]) {
      expect(out).toContain(want);
    }
  });
});
