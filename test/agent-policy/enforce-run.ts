// The measuring part of bench:enforce, shared with its integration test: the Pods, the policy
// that is flipped between allowing and denying the client, and one timed change.
import { Agent, type RequestOptions, request } from 'node:https';
import type { Lab, PodRecord } from '@antrea-ts/lab';
import { KubeConfig } from '@kubernetes/client-node';
import { type Attempt, detectTransition, type Transition, type Want } from './enforce-detect.js';
import type { ProbeStream } from './enforce-probe-stream.js';

export const NAMESPACE = 'enforce';
export const SERVER_PORT = 80;
export type Placement = 'cross-node' | 'same-node';
export type PolicyKind = 'k8s-np' | 'acnp';
export const POLICY_KINDS: readonly PolicyKind[] = ['k8s-np', 'acnp'];

export interface EnforcePods {
  client: PodRecord;
  /** Probed in this order: target index t of the prober is servers[t]. */
  servers: Array<{ pod: PodRecord; placement: Placement }>;
}

/** A client on the first Node, one server on the second (cross-node) and one beside the client. */
export async function createEnforcePods(lab: Lab): Promise<EnforcePods> {
  const [first, second] = [...lab.state.nodes].sort((a, b) => a.index - b.index);
  if (!first || !second) throw new Error('bench:enforce needs a lab with at least 2 Nodes');
  const ports = [{ port: SERVER_PORT, protocol: 'TCP' as const }];
  const make = (name: string, node: string, app: string) =>
    lab.createPod({ namespace: NAMESPACE, name, node, labels: { app }, ports });
  const [client, remote, local] = await Promise.all([
    make('client', first.name, 'client'),
    make('server-remote', second.name, 'server'),
    make('server-local', first.name, 'server'),
  ]);
  return {
    client,
    servers: [
      { pod: remote, placement: 'cross-node' },
      { pod: local, placement: 'same-node' },
    ],
  };
}

export interface FlippedPolicy {
  apiVersion: string;
  kind: 'NetworkPolicy' | 'ClusterNetworkPolicy';
  metadata: { name: string; namespace?: string };
  spec: unknown;
}

/**
 * The policy in one of its two states. Both servers are selected; only the client's access flips.
 * k8s-np: the ingress rule's peer selects the client (allow) or no Pod (the servers stay isolated:
 * deny). acnp: one rule from the client whose action is Allow or Drop.
 */
export function flipPolicy(kind: PolicyKind, allow: boolean): FlippedPolicy {
  if (kind === 'k8s-np') {
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'bench-enforce', namespace: NAMESPACE },
      spec: {
        podSelector: { matchLabels: { app: 'server' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: allow ? 'client' : 'nobody' } } }] }],
      },
    };
  }
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterNetworkPolicy',
    metadata: { name: 'bench-enforce' },
    spec: {
      tier: 'application',
      priority: 5,
      appliedTo: [
        {
          podSelector: { matchLabels: { app: 'server' } },
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
        },
      ],
      ingress: [
        {
          name: 'flip',
          action: allow ? 'Allow' : 'Drop',
          from: [
            {
              podSelector: { matchLabels: { app: 'client' } },
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
            },
          ],
        },
      ],
    },
  };
}

/** Where the API serves a policy object (only the two kinds flipPolicy makes). */
function objectPath(o: FlippedPolicy, withName: boolean): string {
  const [group, version] = o.apiVersion.split('/') as [string, string];
  const base =
    o.kind === 'NetworkPolicy'
      ? `/apis/${group}/${version}/namespaces/${o.metadata.namespace}/networkpolicies`
      : `/apis/${group}/${version}/clusternetworkpolicies`;
  return withName ? `${base}/${o.metadata.name}` : base;
}

/**
 * Writes policies over one kept-alive HTTPS connection (kubectl would add a process spawn to every
 * write; client-node's typed serializer drops fields such as `from`). A flip is a JSON merge patch
 * of the spec, as `kubectl apply` of the changed policy would send.
 */
export class PolicyWriter {
  readonly #kc = new KubeConfig();
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(kubeconfigPath: string) {
    this.#kc.loadFromFile(kubeconfigPath);
  }

  create(o: FlippedPolicy): Promise<void> {
    return this.#send('POST', objectPath(o, false), 'application/json', o);
  }

  patch(o: FlippedPolicy): Promise<void> {
    return this.#send('PATCH', objectPath(o, true), 'application/merge-patch+json', { spec: o.spec });
  }

  delete(o: FlippedPolicy): Promise<void> {
    return this.#send('DELETE', objectPath(o, true), 'application/json', undefined);
  }

  close(): void {
    this.#agent.destroy();
  }

  async #send(method: string, path: string, contentType: string, body: unknown): Promise<void> {
    const url = new URL(path, this.#kc.getCurrentCluster()!.server);
    const opts: RequestOptions = {
      method,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      agent: this.#agent,
      headers: { 'content-type': contentType, accept: 'application/json' },
    };
    await this.#kc.applyToHTTPSOptions(opts);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    await new Promise<void>((resolve, reject) => {
      const req = request(opts, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`${method} ${path}: HTTP ${status} ${text.slice(0, 500)}`));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }
}

export interface MeasureOptions {
  /** How long the new behaviour must hold before the transition counts (see detectTransition). */
  confirmMs: number;
  /** Give up on a change after this long (the change counts as missed). */
  giveUpMs: number;
}

export interface TargetOutcome {
  transition: Transition | undefined;
  /**
   * The last attempts before the write showed the old behaviour (3 in a row): the change started
   * from a settled state, so a detected transition is a real one.
   */
  settledBefore: boolean;
}

export interface ChangeOutcome {
  want: Want;
  /** Wall-clock ms just before the API write, and when the write returned. */
  writeStart: number;
  writeReturn: number;
  targets: TargetOutcome[];
}

export const now = (): number => performance.timeOrigin + performance.now();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function settled(attempts: readonly Attempt[], before: number, want: Want): boolean {
  const last = attempts.filter((a) => a.start < before).slice(-3);
  const old = (a: Attempt) => (want === 'allow' ? a.result !== 'allow' : a.result === 'allow');
  return last.length === 3 && last.every(old);
}

/** Makes one change with `write` and waits until every target shows `want` for good. */
export async function measureChange(
  stream: ProbeStream,
  targets: number,
  want: Want,
  write: () => Promise<void>,
  options: MeasureOptions,
): Promise<ChangeOutcome> {
  const writeStart = now();
  await write();
  const writeReturn = now();
  const found: Array<Transition | undefined> = new Array(targets).fill(undefined);
  while (found.some((f) => f === undefined) && now() - writeStart < options.giveUpMs) {
    await sleep(10);
    for (let t = 0; t < targets; t++) {
      found[t] ??= detectTransition(stream.attempts(t), want, writeStart, options.confirmMs);
    }
  }
  const outcome: ChangeOutcome = {
    want,
    writeStart,
    writeReturn,
    targets: found.map((transition, t) => ({
      transition,
      settledBefore: settled(stream.attempts(t), writeStart, want),
    })),
  };
  stream.forget(writeStart - 1_000);
  return outcome;
}

/**
 * Waits, unmeasured, until every target shows `want` for good (after setup, after a missed
 * change); throws after `options.giveUpMs` x 2.
 */
export async function waitSettled(
  stream: ProbeStream,
  targets: number,
  options: MeasureOptions,
  want: Want,
): Promise<void> {
  const since = now();
  for (;;) {
    const done = Array.from({ length: targets }, (_, t) =>
      detectTransition(stream.attempts(t), want, since, options.confirmMs),
    );
    if (done.every(Boolean)) return;
    if (now() - since > 2 * options.giveUpMs) {
      throw new Error(`no settled ${want} within ${2 * options.giveUpMs} ms: ${stream.diagnostics}`);
    }
    await sleep(20);
  }
}
