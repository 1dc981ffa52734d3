// What the case runner needs from a cluster. The lab provider (netns Nodes running our agent, Pods
// made as kubelet's network part would), a kind provider (kubectl exec) and the oracle provider
// (no packets: the controller's computation and its connectivity oracle) implement it.
import type { FixturePort, JsonPatchOp, KubeObject, Labels, Protocol } from './case-types.js';

/**
 * allow: the TCP connection opened, or the UDP request was answered.
 * drop: nothing came back before the timeout (a silent drop).
 * reject: TCP RST, or ICMP unreachable (connection refused, host/port unreachable).
 * error: the probe itself could not run (no such Pod, helper failed): never counted as a verdict.
 */
export type ProbeOutcome = 'allow' | 'drop' | 'reject' | 'error';

export interface PodRef {
  namespace: string;
  name: string;
}

export interface PodSpec extends PodRef {
  labels: Labels;
  /** Node to place the Pod on; the provider chooses when absent or unknown to it. */
  node?: string;
  /**
   * Container ports of the Pod object (named ports resolve against these, SCTP ones included).
   * The Pod serves TCP and UDP on each port whose protocol the provider supports (see
   * agent-tools/serve.mjs); unsupported protocols are declared but not served.
   */
  ports: FixturePort[];
}

/** Identifies an object for delete/patch; the runner fills apiVersion from what it applied. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface ProbeTarget {
  to: PodRef;
  port: number;
  protocol: Protocol;
}

export interface AddressTarget {
  ip: string;
  port: number;
  protocol: 'TCP' | 'UDP';
}

export type RestartableComponent = 'antrea-controller' | `antrea-agent@${string}` | `ovs-vswitchd@${string}`;

export type AntctlTarget = { mode: 'controller' } | { mode: 'agent'; node: string };

export interface ClusterProvider {
  /** Short name for reports ("lab", "kind", "oracle"). */
  readonly name: string;

  /** False for protocols this cluster cannot probe (SCTP here): those expectations are skipped. */
  supports(protocol: Protocol): boolean;

  /**
   * Creates the Namespace with exactly these labels (or sets them if it exists). Resolves to
   * whether it was created, so the runner deletes only what it made.
   */
  createNamespace(name: string, labels: Labels): Promise<{ created: boolean }>;
  /**
   * Deletes the Namespace and resolves once it is gone (its Pods and objects with it). With
   * `wait: false` it resolves once the Pods this provider made there are gone and the deletion is
   * requested; a later call without it waits for the rest (the e2e suites batch that wait).
   */
  deleteNamespace(name: string, options?: { wait?: boolean }): Promise<void>;

  /** Creates the Pod and resolves once it has its IPs and serves its ports. */
  createPod(spec: PodSpec): Promise<{ ips: string[] }>;
  /** Deletes the Pod and resolves once it is gone (its IPs may then be reused). */
  deletePod(ref: PodRef): Promise<void>;
  /** Real IPs of a running Pod, primary first. */
  podIPs(ref: PodRef): Promise<string[]>;

  /** Creates or replaces any Kubernetes object (policies, groups, tiers, ...). */
  apply(object: KubeObject): Promise<void>;
  /** Deletes an object; an object already gone is not an error. */
  delete(ref: ObjectRef): Promise<void>;
  /** Applies an RFC 6902 JSON patch to an object. */
  patch(ref: ObjectRef, jsonPatch: JsonPatchOp[]): Promise<void>;
  /** Replaces the whole label map of a Namespace or Pod. */
  setLabels(
    ref: { kind: 'Namespace' | 'Pod'; namespace?: string; name: string },
    labels: Labels,
  ): Promise<void>;

  /**
   * Resolves once the changes made so far are enforced. Optional: without it the runner waits its
   * settle time (RunnerOptions.settleMs). A lab provider can watch policy status (Realized) here.
   */
  waitForRealization?(signal?: AbortSignal): Promise<void>;

  /** One connection attempt from a Pod's network namespace to another Pod. */
  probe(from: PodRef, to: PodRef, port: number, protocol: Protocol, timeoutMs: number): Promise<ProbeOutcome>;
  /**
   * Optional batch form: all targets from one source Pod, outcomes in target order. A lab or kind
   * provider runs the probe helper once per source Pod with every target (see agent-tools/probe.mjs).
   */
  probeMany?(from: PodRef, targets: readonly ProbeTarget[], timeoutMs: number): Promise<ProbeOutcome[]>;

  // Optional capabilities of the e2e suites (e2e/suites/): a check that needs one a provider lacks
  // is skipped, and says which.

  /** Node names, in a stable order (the first is where single-Node checks put their Pods). */
  listNodes?(): Promise<string[]>;
  /** Adds a Node and resolves with its name once it runs Pods. */
  addNode?(): Promise<string>;
  /** Removes a Node with its Pods (their IPs leave the provider's records). */
  removeNode?(name: string): Promise<void>;
  /**
   * Stops a component and starts it again, resolving once the cluster is healthy again: `crash`
   * kills it (SIGKILL) instead of stopping it. Names: `antrea-controller`, `antrea-agent@<node>`,
   * `ovs-vswitchd@<node>`.
   */
  restartComponent?(component: RestartableComponent, options?: { crash?: boolean }): Promise<void>;
  /** Runs argv inside the Pod (its network namespace at least); resolves to stdout. */
  exec?(pod: PodRef, argv: readonly string[], options?: { timeoutMs?: number }): Promise<string>;
  /**
   * Runs antctl with these arguments, in controller mode (against the cluster's Kubernetes API) or
   * in agent mode against the agent of one Node; resolves to stdout, rejects on a non-zero exit.
   */
  antctl?(args: readonly string[], target: AntctlTarget): Promise<string>;
  /** Probes arbitrary addresses (outside the cluster too) from a Pod; outcomes in target order. */
  probeAddresses?(
    from: PodRef,
    targets: readonly AddressTarget[],
    timeoutMs: number,
  ): Promise<ProbeOutcome[]>;
  /** A server outside the Pod network that Pods should reach (through their Node's SNAT). */
  externalEndpoint?(): Promise<AddressTarget & { description: string }>;

  /**
   * What a person should know about the run that is not a verdict: workarounds the provider had
   * to apply (e.g. Namespaces it finalized itself). The CLI prints them before the summary.
   */
  notes?(): string[];

  /** Releases what the provider holds (connections, helper processes). Idempotent. */
  close?(): Promise<void>;
}
