// Pods of a real cluster with a kubelet (kind), made and probed through kubectl only: each Pod runs
// agent-tools/serve.mjs, its source passed on the command line (`node -e`), so any image with Node
// serves; probes run agent-tools/probe.mjs fed on stdin to `kubectl exec -i`. The shape is the
// lab's LabPodNetwork, so LabProvider's object handling and realization wait carry over.
import { readFileSync } from 'node:fs';
import { PROBE_TOOL, parseProbeOutput, probeArgs, SERVE_TOOL, serveArgs } from '../agent-tools.js';
import type { Protocol } from '../case-types.js';
import { E2eError } from '../errors.js';
import type { PodRef, ProbeOutcome } from '../provider.js';
import type { Kubectl } from './kubectl-objects.js';
import type { LabPodNetwork } from './lab-provider.js';

/** The container every e2e Pod runs, and what `exec` enters. */
export const POD_CONTAINER = 'serve';

export interface KubectlPodNetworkOptions {
  /** An image with `node` (20+) on its PATH: the project's image has it. */
  image: string;
  /** How long a Pod may take to be Ready (image pull, CNI ADD) or to go. */
  podTimeoutMs?: number;
}

type PodPort = { name?: string; port: number; protocol: Protocol };

export class KubectlPodNetwork implements LabPodNetwork {
  private readonly serveSource = readFileSync(SERVE_TOOL, 'utf8');
  private readonly probeSource = readFileSync(PROBE_TOOL, 'utf8');
  private readonly timeout: string;

  constructor(
    private readonly kubectl: Kubectl,
    private readonly opts: KubectlPodNetworkOptions,
  ) {
    this.timeout = `${Math.ceil((opts.podTimeoutMs ?? 180_000) / 1000)}s`;
  }

  private async call(what: string, args: readonly string[], input?: string): Promise<string> {
    try {
      return await this.kubectl(args, input === undefined ? {} : { input });
    } catch (cause) {
      throw new E2eError('E2E_PROVIDER', `${what}: ${(cause as Error).message}`, { cause });
    }
  }

  /** The Pod object: servers on every declared port, ready once the first TCP port accepts. */
  podObject(spec: {
    namespace: string;
    name: string;
    node?: string;
    labels?: Record<string, string>;
    ports?: PodPort[];
  }): Record<string, unknown> {
    const ports = spec.ports ?? [];
    const args = serveArgs({ namespace: spec.namespace, name: spec.name, labels: {}, ports });
    const first = ports.find((p) => p.protocol !== 'SCTP');
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels ?? {} },
      spec: {
        ...(spec.node ? { nodeName: spec.node } : {}),
        terminationGracePeriodSeconds: 0,
        // kind's control-plane Node is tainted; e2e Pods go wherever a check puts them.
        tolerations: [{ operator: 'Exists' }],
        containers: [
          {
            name: POD_CONTAINER,
            image: this.opts.image,
            imagePullPolicy: 'IfNotPresent',
            // argv[1] is a placeholder: serve.mjs reads its options from argv[2] on, as when run
            // from a file.
            command: ['node', '--input-type=module', '-e', this.serveSource, 'serve.mjs', ...args],
            ports: ports.map((p) => ({
              containerPort: p.port,
              protocol: p.protocol,
              ...(p.name ? { name: p.name } : {}),
            })),
            ...(first ? { readinessProbe: { tcpSocket: { port: first.port }, periodSeconds: 1 } } : {}),
          },
        ],
      },
    };
  }

  async createPod(spec: {
    namespace: string;
    name: string;
    node?: string;
    labels?: Record<string, string>;
    ports?: PodPort[];
  }): Promise<{ ips: string[] }> {
    const id = `${spec.namespace}/${spec.name}`;
    await this.call(`create Pod ${id}`, ['create', '-f', '-'], JSON.stringify(this.podObject(spec)));
    await this.call(`Pod ${id} Ready`, [
      'wait',
      '-n',
      spec.namespace,
      `pod/${spec.name}`,
      '--for=condition=Ready',
      `--timeout=${this.timeout}`,
    ]);
    const out = await this.call(`IPs of Pod ${id}`, [
      'get',
      'pod',
      spec.name,
      '-n',
      spec.namespace,
      '-o',
      'jsonpath={.status.podIPs[*].ip}',
    ]);
    return { ips: out.trim().split(/\s+/).filter(Boolean) };
  }

  async deletePod(namespace: string, name: string): Promise<void> {
    await this.call(`delete Pod ${namespace}/${name}`, [
      'delete',
      'pod',
      name,
      '-n',
      namespace,
      '--ignore-not-found',
      '--wait=true',
      `--timeout=${this.timeout}`,
    ]);
  }

  /** Runs argv in the Pod's container; resolves to stdout. */
  exec(pod: PodRef, argv: readonly string[], input?: string): Promise<string> {
    return this.call(
      `exec in ${pod.namespace}/${pod.name}`,
      [
        'exec',
        ...(input === undefined ? [] : ['-i']),
        '-n',
        pod.namespace,
        pod.name,
        '-c',
        POD_CONTAINER,
        '--',
        ...argv,
      ],
      input,
    );
  }

  async probe(
    from: PodRef,
    targets: readonly { ip: string; port: number; protocol: 'TCP' | 'UDP' }[],
    timeoutMs = 2_000,
  ): Promise<{ result: ProbeOutcome }[]> {
    if (targets.length === 0) return [];
    const out = await this.exec(
      from,
      ['node', '--input-type=module', '-', ...probeArgs(targets, timeoutMs)],
      this.probeSource,
    );
    return parseProbeOutput(out, targets).map((result) => ({ result }));
  }
}
