// ClusterProvider for a kind cluster running the project's manifests (hack/kind-up.sh): every
// operation is a kubectl call. Pods come from KubectlPodNetwork, objects from KubectlObjects, and
// the suites' capabilities map to the deployed components: antctl runs inside the controller and
// agent Pods (as Antrea's own e2e tests do), restarts delete those Pods or kill ovs-vswitchd in
// the agent Pod's OVS container. kind Nodes are fixed: no addNode/removeNode.
import { run } from '@antrea-ts/harness';
import { E2eError } from '../errors.js';
import type { AddressTarget, AntctlTarget, PodRef, ProbeOutcome, RestartableComponent } from '../provider.js';
import type { Kubectl } from './kubectl-objects.js';
import { KubectlObjects } from './kubectl-objects.js';
import { KubectlPodNetwork } from './kubectl-pod-network.js';
import { LabProvider } from './lab-provider.js';

export const ANTREA_NAMESPACE = 'kube-system';
export const DEFAULT_POD_IMAGE = 'antrea-ts/antrea:latest';
const OVS_PIDFILE = '/var/run/openvswitch/ovs-vswitchd.pid';

export interface KindProviderOptions {
  /** Image of the e2e Pods (needs `node`); the project's image, loaded by hack/kind-up.sh. */
  podImage?: string;
  /** The server Pods must reach outside the Pod network; default: the control-plane Node's API port. */
  external?: { ip: string; port: number };
  settleMs?: number;
  /** How long a restarted component may take to be Ready again. */
  restartTimeoutMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface KubectlCommandOptions {
  /** The kubectl executable; default `kubectl` from PATH. */
  kubectl?: string;
  /** A kubeconfig file (the lab's admin one); default: kubectl's own lookup (KUBECONFIG, ~/.kube). */
  kubeconfig?: string;
  /** A kubeconfig context (kind-<cluster>); default: kubectl's current context. */
  context?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs kubectl as a process, the way every kind and lab provider call goes out. */
export function kubectlCommand(o: KubectlCommandOptions = {}): Kubectl {
  const base = [
    o.kubectl ?? 'kubectl',
    ...(o.kubeconfig ? ['--kubeconfig', o.kubeconfig] : []),
    ...(o.context ? ['--context', o.context] : []),
  ];
  return (args, opt) =>
    run([...base, ...args], {
      env: o.env ?? process.env,
      timeoutMs: o.timeoutMs ?? 300_000,
      ...(opt?.input !== undefined ? { input: opt.input } : {}),
    });
}

interface PodInfo {
  name: string;
  ready: boolean;
  uid: string;
}

export class KindProvider extends LabProvider {
  private readonly network: KubectlPodNetwork;
  private readonly restartTimeoutMs: number;
  private readonly poll: number;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(
    private readonly kubectl: Kubectl,
    private readonly opts: KindProviderOptions = {},
  ) {
    const network = new KubectlPodNetwork(kubectl, { image: opts.podImage ?? DEFAULT_POD_IMAGE });
    super(network, new KubectlObjects(kubectl), {
      name: 'kind',
      ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
    });
    this.network = network;
    this.restartTimeoutMs = opts.restartTimeoutMs ?? 180_000;
    this.poll = opts.pollMs ?? 1_000;
    this.wait = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  private async call(what: string, args: readonly string[]): Promise<string> {
    try {
      return await this.kubectl(args);
    } catch (cause) {
      throw new E2eError('E2E_PROVIDER', `${what}: ${(cause as Error).message}`, { cause });
    }
  }

  async listNodes(): Promise<string[]> {
    const out = await this.call('list Nodes', ['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}']);
    return out.trim().split(/\s+/).filter(Boolean);
  }

  exec(pod: PodRef, argv: readonly string[]): Promise<string> {
    return this.network.exec(pod, argv);
  }

  async probeAddresses(
    from: PodRef,
    targets: readonly AddressTarget[],
    timeoutMs: number,
  ): Promise<ProbeOutcome[]> {
    return (await this.network.probe(from, targets, timeoutMs)).map((r) => r.result);
  }

  async externalEndpoint(): Promise<AddressTarget & { description: string }> {
    if (this.opts.external)
      return { ...this.opts.external, protocol: 'TCP', description: 'the given external server' };
    const ip = await this.call('control-plane Node address', [
      'get',
      'nodes',
      '-l',
      'node-role.kubernetes.io/control-plane',
      '-o',
      'jsonpath={.items[0].status.addresses[?(@.type=="InternalIP")].address}',
    ]);
    if (!ip.trim()) throw new E2eError('E2E_PROVIDER', 'no control-plane Node with an InternalIP');
    return {
      ip: ip.trim(),
      port: 6443,
      protocol: 'TCP',
      description: 'kube-apiserver on the control-plane Node (host network)',
    };
  }

  /** antctl inside the controller Pod (controller mode, in-Pod) or the Node's agent Pod (agent mode). */
  async antctl(args: readonly string[], target: AntctlTarget): Promise<string> {
    const [pod, container] =
      target.mode === 'controller'
        ? ['deploy/antrea-controller', 'antrea-controller']
        : [(await this.agentPod(target.node)).name, 'antrea-agent'];
    return this.call(`antctl ${args.join(' ')}`, [
      'exec',
      '-n',
      ANTREA_NAMESPACE,
      pod,
      '-c',
      container,
      '--',
      'antctl',
      ...args,
    ]);
  }

  private async componentPods(component: string, node?: string): Promise<PodInfo[]> {
    const out = await this.call(`${component} Pods`, [
      'get',
      'pods',
      '-n',
      ANTREA_NAMESPACE,
      '-l',
      `component=${component}`,
      ...(node ? ['--field-selector', `spec.nodeName=${node}`] : []),
      '-o',
      'json',
    ]);
    const list = JSON.parse(out) as {
      items: {
        metadata: { name: string; uid: string; deletionTimestamp?: string };
        status?: { conditions?: { type: string; status: string }[] };
      }[];
    };
    return list.items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => ({
        name: p.metadata.name,
        uid: p.metadata.uid,
        ready: (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      }));
  }

  private async agentPod(node: string): Promise<PodInfo> {
    const [pod] = await this.componentPods('antrea-agent', node);
    if (!pod) throw new E2eError('E2E_PROVIDER', `no antrea-agent Pod on Node ${node}`);
    return pod;
  }

  private async until(what: string, ok: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + this.restartTimeoutMs;
    while (!(await ok().catch(() => false))) {
      if (Date.now() > deadline)
        throw new E2eError('E2E_PROVIDER', `${what} not done after ${this.restartTimeoutMs} ms`);
      await this.wait(this.poll);
    }
  }

  /** Deletes the component's Pod (forced and at once for a crash) and waits for a Ready successor. */
  private async replacePod(component: string, node: string | undefined, crash: boolean): Promise<void> {
    const [old] = await this.componentPods(component, node);
    if (!old) throw new E2eError('E2E_PROVIDER', `no ${component} Pod${node ? ` on ${node}` : ''}`);
    await this.call(`delete ${old.name}`, [
      'delete',
      'pod',
      '-n',
      ANTREA_NAMESPACE,
      old.name,
      '--wait=false',
      ...(crash ? ['--grace-period=0', '--force'] : []),
    ]);
    await this.until(`a Ready ${component} Pod after ${old.name}`, async () =>
      (await this.componentPods(component, node)).some((p) => p.uid !== old.uid && p.ready),
    );
  }

  async restartComponent(component: RestartableComponent, options: { crash?: boolean } = {}): Promise<void> {
    const crash = options.crash ?? false;
    if (component === 'antrea-controller') {
      await this.replacePod('antrea-controller', undefined, crash);
      await this.until(
        'APIService v1beta2.controlplane.antrea.io Available',
        async () =>
          (
            await this.call('APIService', [
              'get',
              'apiservice',
              'v1beta2.controlplane.antrea.io',
              '-o',
              'jsonpath={.status.conditions[?(@.type=="Available")].status}',
            ])
          ).trim() === 'True',
      );
      return;
    }
    const [kind, node] = component.split('@') as [string, string];
    if (kind === 'antrea-agent') return this.replacePod('antrea-agent', node, crash);
    // ovs-vswitchd lives in the agent Pod's antrea-ovs container: stopped, its monitor (ovs-ctl)
    // or the container restart brings a new one; done when a new pid answers and the agent is Ready.
    const agent = await this.agentPod(node);
    const ovs = (argv: string[]) =>
      this.call(`ovs in ${agent.name}`, [
        'exec',
        '-n',
        ANTREA_NAMESPACE,
        agent.name,
        '-c',
        'antrea-ovs',
        '--',
        ...argv,
      ]);
    const pid = (await ovs(['cat', OVS_PIDFILE])).trim();
    await ovs(crash ? ['kill', '-9', pid] : ['ovs-appctl', '-t', 'ovs-vswitchd', 'exit']).catch(() => '');
    await this.until(`ovs-vswitchd on ${node} restarted`, async () => {
      const now = (await ovs(['cat', OVS_PIDFILE])).trim();
      await ovs(['ovs-appctl', '-t', 'ovs-vswitchd', 'version']);
      return now !== '' && now !== pid;
    });
    await this.until(`antrea-agent on ${node} Ready`, async () => (await this.agentPod(node)).ready);
  }
}
