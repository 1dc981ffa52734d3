import { fileURLToPath } from 'node:url';
import { installCrds as installCrdsFrom, type KubeCluster } from '@antrea-ts/harness';

export const CRD_DIR = fileURLToPath(new URL('../../build/crds/', import.meta.url));
export const SP = '/policy/api/v1/infra/domains/default/security-policies';
export const G = '/policy/api/v1/infra/domains/default/groups';
export const CCP = '/policy/api/v1/infra/sites/default/enforcement-points/default/cluster-control-planes';
export const CLUSTER = 'kind-a';
export const CLUSTER_PATH = `/infra/sites/default/enforcement-points/default/cluster-control-planes/${CLUSTER}`;

/** Installs every generated CRD and waits until the apiserver serves them. */
export function installCrds(kube: KubeCluster): Promise<void> {
  return installCrdsFrom(kube, [CRD_DIR]);
}

/** Polls until `fn` returns a truthy value (or throws its last error after `ms`). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  what: string,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: kubectl JSON
export async function getJson(kube: KubeCluster, args: string[]): Promise<any> {
  return JSON.parse(await kube.kubectl([...args, '-o', 'json']));
}
