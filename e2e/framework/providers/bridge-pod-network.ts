// A LabPodNetwork with real packets and no Antrea: each Pod is a netns on one Linux bridge running
// agent-tools/serve.mjs, and probes run agent-tools/probe.mjs in the source netns. Nothing enforces
// policy, so it proves the lab provider's plumbing (Pod objects, IPs, servers, probes, cleanup)
// before the lab exists, and stays useful as a "no CNI" baseline.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  createLinuxBridge,
  createNetns,
  createVethPair,
  type Netns,
  run,
  uniqueTag,
} from '@antrea-ts/harness';
import { runProbeTool, SERVE_TOOL, serveArgs } from '../agent-tools.js';
import { E2eError } from '../errors.js';
import type { KubectlObjects } from './kubectl-objects.js';
import type { LabPodNetwork } from './lab-provider.js';

interface BridgePod {
  netns: Netns;
  ip: string;
  server: ChildProcess;
}

export class BridgePodNetwork implements LabPodNetwork {
  private readonly tag = uniqueTag();
  /** A promise, so Pods created at once share one bridge. */
  private bridge: Promise<{ name: string; delete(): Promise<void> }> | undefined;
  private readonly pods = new Map<string, BridgePod>();
  private nextHost = 10;
  private seq = 0;

  /** `objects` creates the Pod objects, as kubelet's side would; `prefix` is a /24 base ("10.123.0"). */
  constructor(
    private readonly objects: KubectlObjects,
    private readonly prefix = '10.123.0',
  ) {}

  private async ensureBridge(): Promise<string> {
    this.bridge ??= createLinuxBridge(`atsbr${this.tag}`);
    return (await this.bridge).name;
  }

  async createPod(spec: Parameters<LabPodNetwork['createPod']>[0]): Promise<{ ips: string[] }> {
    const key = `${spec.namespace}/${spec.name}`;
    if (this.pods.has(key)) throw new E2eError('E2E_PROVIDER', `Pod ${key} exists`);
    if (this.nextHost > 250) throw new E2eError('E2E_PROVIDER', 'bridge Pod network ran out of IPs');
    const ports = spec.ports ?? [];
    await this.objects.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels ?? {} },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'antrea-ts/bridge-pod',
            ports: ports.map((p) => ({
              containerPort: p.port,
              protocol: p.protocol,
              ...(p.name ? { name: p.name } : {}),
            })),
          },
        ],
      },
    });
    const bridge = await this.ensureBridge();
    const n = ++this.seq;
    const netns = await createNetns(`ats-e2e-${this.tag}-p${n}`);
    const ip = `${this.prefix}.${this.nextHost++}`;
    try {
      const host = `atsv${this.tag}${n}`;
      await createVethPair({ name: 'eth0', netns: netns.name }, { name: host });
      await run(['ip', 'link', 'set', host, 'master', bridge]);
      await netns.exec(['ip', 'addr', 'add', `${ip}/24`, 'dev', 'eth0']);
      const server = await this.startServer(netns.name, {
        namespace: spec.namespace,
        name: spec.name,
        labels: {},
        ports,
      });
      this.pods.set(key, { netns, ip, server });
    } catch (e) {
      await netns.delete();
      throw e;
    }
    return { ips: [ip] };
  }

  private startServer(netns: string, spec: Parameters<typeof serveArgs>[0]): Promise<ChildProcess> {
    const proc = spawn('ip', ['netns', 'exec', netns, process.execPath, SERVE_TOOL, ...serveArgs(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    return new Promise((resolve, reject) => {
      proc.once('exit', (code) =>
        reject(new E2eError('E2E_PROVIDER', `serve.mjs in ${netns} exited ${code}: ${stderr.trim()}`)),
      );
      createInterface({ input: proc.stdout! }).once('line', () => resolve(proc));
    });
  }

  async deletePod(namespace: string, name: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const p = this.pods.get(key);
    if (p) {
      this.pods.delete(key);
      if (p.server.exitCode === null) {
        const exited = new Promise((r) => p.server.once('exit', r));
        p.server.kill('SIGTERM');
        await exited;
      }
      await p.netns.delete(); // takes the veth with it
    }
    await this.objects.delete({ apiVersion: 'v1', kind: 'Pod', namespace, name });
  }

  async probe(
    from: { namespace: string; name: string },
    targets: readonly { ip: string; port: number; protocol: 'TCP' | 'UDP' }[],
    timeoutMs = 2000,
  ): Promise<{ result: 'allow' | 'drop' | 'reject' | 'error' }[]> {
    const p = this.pods.get(`${from.namespace}/${from.name}`);
    if (!p) return targets.map(() => ({ result: 'error' as const }));
    const out = await runProbeTool(
      (argv) => p.netns.exec(argv, { timeoutMs: timeoutMs + 15_000 }),
      targets,
      timeoutMs,
      process.execPath,
    );
    return out.map((result) => ({ result }));
  }

  /** Deletes every Pod's netns and server, and the bridge (not the Pod objects). Idempotent. */
  async close(): Promise<void> {
    for (const [key, p] of [...this.pods]) {
      this.pods.delete(key);
      p.server.kill('SIGTERM');
      await p.netns.delete();
    }
    const bridge = this.bridge;
    this.bridge = undefined;
    if (bridge) await (await bridge.catch(() => undefined))?.delete();
  }
}
