import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeCluster } from '@antrea-ts/harness';
import { JsonFilePersistence, NsxSimServer, SimStore } from '@antrea-ts/nsx-sim';
import { pino } from 'pino';

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

/** The NSX simulator on loopback (plain HTTP, no auth), its state in a file so it survives a restart. */
export class SimProcess {
  server: NsxSimServer | undefined;
  url = '';
  port = 0;
  constructor(private readonly stateFile: string) {}

  async start(): Promise<void> {
    const logger = pino({ level: 'silent' });
    const store = new SimStore(new JsonFilePersistence(this.stateFile), logger);
    this.server = new NsxSimServer({ logger, store, port: this.port, auth: false });
    this.url = await this.server.start();
    this.port = Number(new URL(this.url).port);
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  // biome-ignore lint/suspicious/noExplicitAny: tests read NSX JSON directly
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  async must(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
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
