import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeCluster } from '@antrea-ts/harness';

export const CRD_DIR = fileURLToPath(new URL('../../build/crds/', import.meta.url));
export const SP = '/policy/api/v1/infra/domains/default/security-policies';
export const G = '/policy/api/v1/infra/domains/default/groups';
export const CCP = '/policy/api/v1/infra/sites/default/enforcement-points/default/cluster-control-planes';
export const CLUSTER = 'kind-a';
export const CLUSTER_PATH = `/infra/sites/default/enforcement-points/default/cluster-control-planes/${CLUSTER}`;

/** Installs every generated CRD and waits until the apiserver serves them. */
export async function installCrds(kube: KubeCluster): Promise<void> {
  const files = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
  for (const f of files) await kube.kubectl(['apply', '-f', join(CRD_DIR, f)]);
  await kube.kubectl(['wait', '--for=condition=established', '--timeout=60s', 'crd', '--all']);
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
