// The lab provider with the e2e suites' optional capabilities: Nodes added and removed, components
// restarted, commands and antctl run inside Pods and Nodes, and probes to the host outside the
// cluster. It drives the lab's `Lab` class (packages/lab), whose shape LabCluster names.
import { run } from '@antrea-ts/harness';
import { E2eError } from '../errors.js';
import type { AddressTarget, AntctlTarget, PodRef, ProbeOutcome, RestartableComponent } from '../provider.js';
import type { KubectlObjects } from './kubectl-objects.js';
import { type LabPodNetwork, LabProvider, type LabProviderOptions } from './lab-provider.js';

/** The part of the lab's `Lab` class this provider uses besides making Pods. */
export interface LabCluster extends LabPodNetwork {
  readonly kubeconfigPath: string;
  readonly state: {
    nodes: readonly { name: string; netns: string; apiPort: number; apiTokenFile: string }[];
    pods: readonly { namespace: string; name: string; node: string }[];
    underlay: { hostIp: string };
    apiserver?: { server: string } | undefined;
  };
  addNode(): Promise<{ name: string }>;
  removeNode(name: string): Promise<void>;
  restart(name: string, options?: { crash?: boolean }): Promise<void>;
  exec(
    namespace: string,
    name: string,
    argv: readonly string[],
    options?: { timeoutMs?: number },
  ): Promise<string>;
}

export interface LabClusterProviderOptions extends LabProviderOptions {
  /** dist/cmd/antctl/main.js of the checkout. */
  antctlMain: string;
}

export class LabClusterProvider extends LabProvider {
  private readonly antctlMain: string;

  constructor(
    private readonly lab: LabCluster,
    objects: KubectlObjects,
    opts: LabClusterProviderOptions,
  ) {
    super(lab, objects, opts);
    this.antctlMain = opts.antctlMain;
  }

  async listNodes(): Promise<string[]> {
    return this.lab.state.nodes.map((n) => n.name);
  }

  async addNode(): Promise<string> {
    return (await this.lab.addNode()).name;
  }

  async removeNode(name: string): Promise<void> {
    const gone = this.lab.state.pods.filter((p) => p.node === name);
    await this.lab.removeNode(name);
    for (const p of gone) this.ips.delete(`${p.namespace}/${p.name}`);
  }

  restartComponent(component: RestartableComponent, options: { crash?: boolean } = {}): Promise<void> {
    return this.lab.restart(component, options);
  }

  exec(pod: PodRef, argv: readonly string[], options: { timeoutMs?: number } = {}): Promise<string> {
    return this.lab.exec(pod.namespace, pod.name, argv, options);
  }

  /**
   * Controller mode from the host with the lab's admin kubeconfig (through the aggregator, as
   * from a workstation); agent mode inside the Node's netns, where the agent API listens on
   * loopback, as antctl runs inside an agent Pod.
   */
  antctl(args: readonly string[], target: AntctlTarget): Promise<string> {
    const node = process.execPath;
    if (target.mode === 'controller')
      return run([node, this.antctlMain, '--kubeconfig', this.lab.kubeconfigPath, ...args], {
        timeoutMs: 60_000,
      });
    const n = this.lab.state.nodes.find((x) => x.name === target.node);
    if (!n) return Promise.reject(new E2eError('E2E_PROVIDER', `no Node ${target.node} in the lab`));
    // With the Node agent's loopback token, as antctl in the agent Pod reads it.
    return run(
      [
        node,
        this.antctlMain,
        '--mode',
        'agent',
        '--agent-address',
        `https://127.0.0.1:${n.apiPort}`,
        ...args,
      ],
      { netns: n.netns, timeoutMs: 60_000, env: { ...process.env, ANTCTL_AGENT_TOKEN_FILE: n.apiTokenFile } },
    );
  }

  async probeAddresses(
    from: PodRef,
    targets: readonly AddressTarget[],
    timeoutMs: number,
  ): Promise<ProbeOutcome[]> {
    return (await this.lab.probe(from, targets, timeoutMs)).map((r) => r.result);
  }

  /** kube-apiserver on the host's underlay address: outside the Pod network, reached through SNAT. */
  async externalEndpoint(): Promise<AddressTarget & { description: string }> {
    const server = this.lab.state.apiserver?.server;
    const port = server ? Number(new URL(server).port) : 6443;
    return {
      ip: this.lab.state.underlay.hostIp,
      port,
      protocol: 'TCP',
      description: 'kube-apiserver on the lab host (underlay bridge address)',
    };
  }
}
