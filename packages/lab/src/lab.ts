import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { antreaCniConflist } from '@antrea-ts/apis';
import { installCrds, run, tryRun } from '@antrea-ts/harness';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { type CniRuntime, cniAdd, cniDel } from './cni-chain.js';
import { LabError } from './errors.js';
import { caFile, kubectl, startKube } from './kube.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_COUNT, LabLayout, UNDERLAY_PREFIX_LENGTH } from './layout.js';
import { removeLeftovers } from './leftovers.js';
import {
  controllerServiceObjects,
  manifestObjects,
  rbacObjects,
  toApplyStream,
  webhookObjects,
} from './manifests.js';
import {
  ANTREA_NAMESPACE_NAME,
  CONTROLLER_API_PORT,
  CONTROLLER_DASHBOARD_PORT,
  CONTROLPLANE_APISERVICE,
} from './names.js';
import { createNodeNetwork, deleteNodeNetwork, nodeRecord, startAgent, writeNodeFiles } from './node.js';
import { type ProbeResult, type ProbeTarget, runProbes } from './probe.js';
import { isAlive, isRunning, respawn, spawnDetached, stopProcess } from './processes.js';
import type { LabState, NodeRecord, PodPort, PodRecord, ProcessRecord } from './state.js';
import { StateStore } from './state.js';
import { deleteUnderlay, ensureUnderlay } from './underlay.js';
import { waitUntil } from './wait.js';

/** Where the lab finds what it runs: the repository's compiled binaries and scripts. */
export interface LabArtifacts {
  /** dist/cmd/antrea-agent/main.js */
  agentMain: string;
  /** dist/cmd/antrea-controller/main.js; absent: the lab runs without a controller (no policy). */
  controllerMain: string | undefined;
  /** cmd/antrea-cni/antrea-cni (the launcher linked as `antrea` in each Node's CNI bin dir). */
  cniLauncher: string;
  /** e2e/framework/agent-tools/serve.mjs and probe.mjs */
  serve: string;
  probe: string;
  /** build/crds */
  crdDir: string;
  /** build/yamls/antrea.yml: the lab applies its service accounts and RBAC. */
  manifest: string;
  /** Dir of kube-apiserver, kube-controller-manager and kubectl. */
  kubeBinDir: string;
}

/** The usual artifacts of a repository checkout at `root` (built with `tsc -b`). */
export function repoArtifacts(root: string, kubeBinDir: string): LabArtifacts {
  const controllerMain = join(root, 'dist/cmd/antrea-controller/main.js');
  return {
    agentMain: join(root, 'dist/cmd/antrea-agent/main.js'),
    controllerMain: existsSync(controllerMain) ? controllerMain : undefined,
    cniLauncher: join(root, 'cmd/antrea-cni/antrea-cni'),
    serve: join(root, 'e2e/framework/agent-tools/serve.mjs'),
    probe: join(root, 'e2e/framework/agent-tools/probe.mjs'),
    crdDir: join(root, 'build/crds'),
    manifest: join(root, 'build/yamls/antrea.yml'),
    kubeBinDir,
  };
}

export interface LabOptions {
  stateDir: string;
  /**
   * Which lab: 0 (default) is the developer's (`lab-node-1`, `lb-underlay`, 198.19.0.0/24); tests
   * use others so they can run next to it. See LabLayout.
   */
  instance?: number;
  artifacts: LabArtifacts;
  logger: Logger;
}

export interface LabUpOptions extends LabOptions {
  nodes?: number;
  clusterCidr?: string;
  /**
   * Prefix length of each Node's podCIDR (NodeIPAM's nodeCIDRMaskSizeIPv4; default 24). A short
   * range (27: 29 Pod IPs) lets a churn test see host-local hand out freed IPs again.
   */
  nodeCidrMaskSize?: number;
  /** Start antrea-controller (default: when its binary is built). */
  controller?: boolean;
  /** antrea-controller's featureGates, e.g. `{ AdminNetworkPolicy: true }` (default: its own). */
  controllerFeatureGates?: Readonly<Record<string, boolean>>;
}

export interface PodCreateSpec {
  namespace: string;
  name: string;
  /** A lab Node name; the least loaded Node when absent. */
  node?: string;
  labels?: Record<string, string>;
  ports?: PodPort[];
}

export interface ComponentStatus {
  name: string;
  pid: number;
  running: boolean;
  log: string;
  netns?: string;
}

export interface LabStatus {
  stateDir: string;
  phase: LabState['phase'];
  logDir: string;
  kubeconfig: string;
  apiserver: string | undefined;
  controller: { address: string; apiServiceAvailable: boolean; dashboard: string } | undefined;
  nodes: Array<{
    name: string;
    nodeIp: string;
    podCidr: string | undefined;
    agentReady: boolean;
    pods: number;
  }>;
  pods: Array<{ namespace: string; name: string; node: string; ips: string[] }>;
  components: ComponentStatus[];
  versions: Record<string, string>;
}

export interface DownReport {
  stopped: string[];
  leftovers: string[];
}

/**
 * A local Antrea-TS cluster: etcd + kube-apiserver + kube-controller-manager on the underlay host
 * address, antrea-controller on the host, and Nodes as network namespaces with userspace OVS and
 * antrea-agent. Every process is detached and recorded in the state dir, so a Lab can be brought
 * up by one process and driven or taken down by another (`Lab.attach`, `Lab.down`).
 */
export class Lab {
  readonly layout: LabLayout;
  readonly store: StateStore;
  readonly #artifacts: LabArtifacts;
  readonly #log: Logger;
  #core: CoreV1Api | undefined;

  private constructor(options: LabOptions) {
    this.layout = new LabLayout(options.stateDir, options.instance ?? 0);
    this.store = new StateStore(this.layout.stateFile);
    this.#artifacts = options.artifacts;
    this.#log = options.logger.child({ component: 'lab' });
  }

  get kubeconfigPath(): string {
    return this.layout.kubeconfig;
  }

  get state(): LabState {
    const state = this.store.read();
    if (!state) throw new LabError('LAB_NOT_UP', `no lab in ${this.layout.stateDir}: run \`lab up\``);
    return state;
  }

  /** Opens the lab recorded in the state dir. */
  static attach(options: LabOptions): Lab {
    const recorded = new StateStore(new LabLayout(options.stateDir).stateFile).read();
    const lab = new Lab({ ...options, instance: recorded?.instance ?? options.instance ?? 0 });
    void lab.state;
    return lab;
  }

  /**
   * Brings a lab up and returns once every component is healthy. A lab already recorded and
   * running is an error (LAB_ALREADY_UP); the remains of a crashed one are removed first. On
   * failure the processes started so far keep running for inspection: `Lab.down` removes them.
   */
  static async up(options: LabUpOptions): Promise<Lab> {
    const lab = new Lab(options);
    const previous = lab.store.read();
    if (previous) {
      if (previous.processes.some((p) => isAlive(p))) {
        throw new LabError('LAB_ALREADY_UP', `a lab is running from ${options.stateDir}: \`lab down\` first`);
      }
      await Lab.down(options);
    }
    await lab.#up(options);
    return lab;
  }

  async #up(options: LabUpOptions): Promise<void> {
    const started = Date.now();
    const count = options.nodes ?? DEFAULT_NODE_COUNT;
    const clusterCidr = options.clusterCidr ?? DEFAULT_CLUSTER_CIDR;
    const withController = (options.controller ?? true) && this.#artifacts.controllerMain !== undefined;
    for (const f of [
      this.#artifacts.agentMain,
      this.#artifacts.cniLauncher,
      this.#artifacts.serve,
      this.#artifacts.manifest,
    ]) {
      if (!existsSync(f)) throw new LabError('LAB_MISSING_BINARY', `${f} is missing: build the project`);
    }
    mkdirSync(this.layout.logDir, { recursive: true });
    this.store.write({
      version: 1,
      stateDir: this.layout.stateDir,
      createdAt: new Date().toISOString(),
      phase: 'starting',
      instance: this.layout.instance,
      underlay: {
        bridge: this.layout.underlayBridge,
        hostIp: this.layout.hostIp,
        prefixLength: UNDERLAY_PREFIX_LENGTH,
      },
      clusterCidr,
      nodes: [],
      pods: [],
      processes: [],
    });
    const record = (p: ProcessRecord) => this.store.update((s) => void s.processes.push(p));
    await ensureUnderlay(this.layout);

    // Node networks and OVS come up while the control plane starts: neither needs the other.
    const nodes = Array.from({ length: count }, (_, i) => nodeRecord(this.layout, i + 1));
    const networks = Promise.all(nodes.map((n) => createNodeNetwork(this.layout, n, record)));
    networks.catch(() => undefined);
    const kube = await startKube({
      layout: this.layout,
      binDir: this.#artifacts.kubeBinDir,
      bindAddress: this.layout.hostIp,
      record,
    });
    await this.store.update((s) => {
      s.apiserver = { server: kube.server };
    });
    this.#log.info({ server: kube.server, ms: Date.now() - started }, 'kube-apiserver ready');

    await installCrds(this, [this.#artifacts.crdDir], ['--server-side']);
    const deployment = manifestObjects(this.#artifacts.manifest);
    await this.kubectl(['apply', '--server-side', '-f', '-'], {
      input: toApplyStream([
        ...rbacObjects(deployment),
        ...controllerServiceObjects(this.layout.hostIp, CONTROLLER_API_PORT),
        // The controller's admission webhooks (it injects its CA): only when it runs to answer them.
        ...(withController ? webhookObjects(deployment) : []),
      ]),
    });
    const [agentToken, controllerToken] = await Promise.all([
      this.#token('antrea-agent'),
      this.#token('antrea-controller'),
    ]);
    const ca = caFile(this.layout);

    if (withController) {
      writeFileSync(
        this.layout.controllerKubeconfig,
        kubeconfigYaml({
          server: kube.server,
          caFile: ca,
          user: 'antrea-controller',
          token: controllerToken,
        }),
        { mode: 0o600 },
      );
      await this.#startController(clusterCidr, options.nodeCidrMaskSize, options.controllerFeatureGates);
    }

    await networks;
    await Promise.all(
      nodes.map((n, i) =>
        this.#createNodeObject(n, withController ? undefined : podCidrFor(clusterCidr, i + 1)),
      ),
    );
    this.#log.info({ ms: Date.now() - started }, 'Node networks and objects ready');
    const agentKubeconfig = kubeconfigYaml({
      server: kube.server,
      caFile: ca,
      user: 'antrea-agent',
      token: agentToken,
    });
    await Promise.all(
      nodes.map(async (n) => {
        n.podCidr = await this.#waitPodCidr(n.name);
        writeNodeFiles(this.layout, n, { cniLauncher: this.#artifacts.cniLauncher, agentKubeconfig });
      }),
    );
    await this.store.update((s) => void s.nodes.push(...nodes));
    const controller = this.store.read()?.controller;
    for (const n of nodes) await record(startAgent(this.layout, n, this.#artifacts.agentMain, controller));
    await this.waitHealthy();
    await this.store.update((s) => {
      s.phase = 'up';
    });
    this.#log.info({ nodes: count, ms: Date.now() - started }, 'lab up');
  }

  async #startController(
    clusterCidr: string,
    nodeCidrMaskSize: number | undefined,
    featureGates: Readonly<Record<string, boolean>> | undefined,
  ): Promise<void> {
    const main = this.#artifacts.controllerMain!;
    // The mask size has no flag (as in Antrea), nor have feature gates: they go in a config file.
    const config = join(this.layout.stateDir, 'antrea-controller.conf');
    const lines: string[] = [];
    if (nodeCidrMaskSize !== undefined)
      lines.push('nodeIPAM:', `  nodeCIDRMaskSizeIPv4: ${nodeCidrMaskSize}`);
    const gates = Object.entries(featureGates ?? {});
    if (gates.length > 0) lines.push('featureGates:', ...gates.map(([k, v]) => `  ${k}: ${v}`));
    if (lines.length > 0) writeFileSync(config, `${lines.join('\n')}\n`);
    const p = spawnDetached({
      name: 'antrea-controller',
      log: this.layout.log('antrea-controller'),
      cmdlineMatch: this.layout.controllerKubeconfig,
      env: { POD_NAMESPACE: ANTREA_NAMESPACE_NAME, POD_NAME: 'antrea-controller-lab' },
      argv: [
        process.execPath,
        main,
        `--kubeconfig=${this.layout.controllerKubeconfig}`,
        `--bind-address=${this.layout.hostIp}`,
        `--api-port=${CONTROLLER_API_PORT}`,
        `--dashboard-port=${CONTROLLER_DASHBOARD_PORT}`,
        `--dashboard-bind-address=${this.layout.hostIp}`,
        '--enable-node-ipam',
        `--cluster-cidrs=${clusterCidr}`,
        ...(lines.length > 0 ? [`--config=${config}`] : []),
      ],
    });
    await this.store.update((s) => {
      s.processes.push(p);
      s.controller = { address: this.layout.hostIp, port: CONTROLLER_API_PORT };
    });
  }

  async #token(serviceAccount: string): Promise<string> {
    // A year: the lab is torn down long before; there is no kubelet to rotate projected tokens.
    const out = await this.kubectl([
      'create',
      'token',
      serviceAccount,
      '-n',
      ANTREA_NAMESPACE_NAME,
      '--duration=8760h',
    ]);
    return out.trim();
  }

  /** The Node object as kubelet registers it: InternalIP, and a podCIDR when there is no NodeIPAM. */
  async #createNodeObject(n: NodeRecord, podCidr: string | undefined): Promise<void> {
    const core = this.core();
    await core.createNode({
      body: {
        metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name, 'kubernetes.io/os': 'linux' } },
        spec: podCidr ? { podCIDR: podCidr, podCIDRs: [podCidr] } : {},
      },
    });
    // NodeIPAM may update the Node between our read and write: retry on a conflict.
    for (let attempt = 1; ; attempt++) {
      const node = await core.readNodeStatus({ name: n.name });
      node.status = {
        ...node.status,
        addresses: [
          { type: 'InternalIP', address: n.nodeIp },
          { type: 'Hostname', address: n.name },
        ],
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'LabNode',
            message: 'netns Node of the Antrea-TS lab',
            lastHeartbeatTime: new Date(),
            lastTransitionTime: new Date(),
          },
        ],
      };
      try {
        await core.replaceNodeStatus({ name: n.name, body: node });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 5) throw err;
      }
    }
  }

  async #waitPodCidr(name: string): Promise<string> {
    return waitUntil(
      `podCIDR of Node ${name} (NodeIPAM in antrea-controller; log: ${this.layout.log('antrea-controller')})`,
      async () => {
        this.#assertRunning('antrea-controller');
        const node = await this.core().readNode({ name });
        return node.spec?.podCIDR;
      },
      { timeoutMs: 60_000 },
    );
  }

  #assertRunning(name: string): void {
    const p = this.store.read()?.processes.find((x) => x.name === name);
    if (p && !isRunning(p.pid)) throw new LabError('LAB_START_TIMEOUT', `${name} exited; see ${p.log}`);
  }

  /** Waits for every agent's /readyz, the controller's APIService, and tunnels between Nodes. */
  async waitHealthy(timeoutMs = 90_000): Promise<void> {
    const state = this.state;
    await Promise.all(
      state.nodes.map((n) =>
        waitUntil(
          `antrea-agent on ${n.name} /readyz (log: ${this.layout.log(`${n.name}-antrea-agent`)})`,
          async () => {
            this.#assertRunning(`antrea-agent@${n.name}`);
            return this.#agentReady(n);
          },
          { timeoutMs, intervalMs: 500 },
        ),
      ),
    );
    if (state.controller) {
      const { address, port } = state.controller;
      await waitUntil(
        `antrea-controller /readyz (log: ${this.layout.log('antrea-controller')})`,
        async () => {
          this.#assertRunning('antrea-controller');
          return (await httpsStatus(`https://${address}:${port}/readyz`)) === 200;
        },
        { timeoutMs, intervalMs: 300 },
      );
      await waitUntil(
        `APIService ${CONTROLPLANE_APISERVICE} Available (log: ${this.layout.log('antrea-controller')})`,
        async () => {
          this.#assertRunning('antrea-controller');
          return this.#apiServiceAvailable();
        },
        { timeoutMs, intervalMs: 500 },
      );
    }
    // Tunnels: the first Node reaches every other Node's gateway through Geneve.
    const [first, ...others] = state.nodes;
    for (const other of others) {
      const gw = gatewayIp(other.podCidr!);
      await waitUntil(
        `tunnel ${first!.name} -> ${other.name} (ping ${gw})`,
        async () => tryRun(['ping', '-c', '1', '-W', '1', gw], { netns: first!.netns }),
        { timeoutMs, intervalMs: 200 },
      );
    }
  }

  async #agentReady(n: NodeRecord): Promise<boolean> {
    // Ask from inside the Node's netns as kubelet's probe does (with node, which the lab needs
    // anyway, rather than curl, which a fresh machine may lack): HTTPS, /readyz needs no
    // credentials, and like kubelet the probe does not verify the agent's self-signed certificate.
    const script = `require('node:https')
      .get('https://127.0.0.1:${n.apiPort}/readyz', { rejectUnauthorized: false, timeout: 2000 }, (r) => {
        let t = ''; r.on('data', (d) => { t += d; }); r.on('end', () => process.stdout.write(t));
      })
      .on('timeout', function () { this.destroy(new Error('timeout')); })
      .on('error', () => process.exit(1))`;
    const out = await run([process.execPath, '-e', script], { netns: n.netns }).catch(() => '');
    return out.trim() === 'ok';
  }

  async #apiServiceAvailable(): Promise<boolean> {
    const out = await this.kubectl([
      'get',
      'apiservice',
      CONTROLPLANE_APISERVICE,
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Available")].status}',
    ]).catch(() => '');
    return out.trim() === 'True';
  }

  /**
   * Agents connected to antrea-controller, from its AntreaControllerInfo: policies reach the
   * datapath only through them. Undefined without a controller or before its first report.
   */
  async connectedAgents(): Promise<number | undefined> {
    if (!this.state.controller) return undefined;
    const out = await this.kubectl([
      'get',
      'antreacontrollerinfo',
      'antrea-controller',
      '-o',
      'jsonpath={.connectedAgentNum}',
    ]).catch(() => '');
    return out.trim() === '' ? undefined : Number(out.trim());
  }

  core(): CoreV1Api {
    if (!this.#core) {
      const kc = new KubeConfig();
      kc.loadFromFile(this.layout.kubeconfig);
      this.#core = kc.makeApiClient(CoreV1Api);
    }
    return this.#core;
  }

  kubectl(args: readonly string[], options: { input?: string } = {}): Promise<string> {
    return kubectl(this.#artifacts.kubeBinDir, this.layout, args, options);
  }

  node(name: string): NodeRecord {
    const n = this.state.nodes.find((x) => x.name === name);
    if (!n) throw new LabError('LAB_NOT_FOUND', `no Node ${name} in the lab`);
    return n;
  }

  /**
   * `ovs-ofctl -O OpenFlow15 <command...> <the Node's br-int> <args...>` in the Node's netns, e.g.
   * `brIntOfctl(node, ['--no-stats', 'dump-flows'])` or `brIntOfctl(node, ['dump-aggregate'], ['table=16'])`.
   */
  brIntOfctl(node: string, command: readonly string[], args: readonly string[] = []): Promise<string> {
    const n = this.node(node);
    return run(
      ['ovs-ofctl', '-O', 'OpenFlow15', ...command, `unix:${join(n.ovsDir, 'br-int.mgmt')}`, ...args],
      {
        netns: n.netns,
      },
    );
  }

  pod(namespace: string, name: string): PodRecord {
    const p = this.state.pods.find((x) => x.namespace === namespace && x.name === name);
    if (!p) throw new LabError('LAB_NOT_FOUND', `no Pod ${namespace}/${name} in the lab`);
    return p;
  }

  /**
   * Plays kubelet's network part for one Pod: the Pod object bound to its Node, a netns, the CNI
   * chain's ADD as the runtime runs it, the Pod IPs in the Pod's status, then the test servers
   * (TCP and UDP on every declared TCP/UDP port) inside the Pod's netns.
   */
  async createPod(spec: PodCreateSpec): Promise<PodRecord> {
    const state = this.state;
    if (state.pods.some((p) => p.namespace === spec.namespace && p.name === spec.name)) {
      throw new LabError('LAB_EXISTS', `Pod ${spec.namespace}/${spec.name} exists in the lab`);
    }
    const node = spec.node ? this.node(spec.node) : leastLoaded(state);
    const ports = spec.ports ?? [];
    const core = this.core();
    await this.#ensureNamespace(spec.namespace);
    const created = await core.createNamespacedPod({
      namespace: spec.namespace,
      body: {
        metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels ?? {} },
        spec: {
          nodeName: node.name,
          terminationGracePeriodSeconds: 0,
          containers: [
            {
              name: 'main',
              image: 'antrea-ts/lab-pod',
              ports: ports.map((p) => ({
                containerPort: p.port,
                protocol: p.protocol,
                ...(p.name ? { name: p.name } : {}),
              })),
            },
          ],
        },
      },
    });
    const netns = this.layout.podNetns(spec.namespace, spec.name);
    const containerId = randomBytes(32).toString('hex');
    const rt = this.#cniRuntime(node, netns, containerId, spec.namespace, spec.name, created.metadata?.uid);
    let cniResult: unknown;
    try {
      await run(['ip', 'netns', 'add', netns]);
      await run(['ip', 'link', 'set', 'lo', 'up'], { netns });
      cniResult = await cniAdd(antreaCniConflist(), rt);
      const ips = ((cniResult as { ips?: Array<{ address: string }> }).ips ?? []).map(
        (ip) => ip.address.split('/')[0]!,
      );
      const record: PodRecord = {
        namespace: spec.namespace,
        name: spec.name,
        node: node.name,
        netns,
        containerId,
        ips,
        ports,
        cniResult,
      };
      await this.store.update((s) => void s.pods.push(record));
      await this.#startServers(record);
      await this.#writePodStatus(record, node);
      this.#log.info({ pod: `${spec.namespace}/${spec.name}`, node: node.name, ips }, 'Pod created');
      return record;
    } catch (error) {
      await this.#teardownPod({
        namespace: spec.namespace,
        name: spec.name,
        netns,
        node: node.name,
        cniResult,
        containerId,
      });
      throw error;
    }
  }

  async #ensureNamespace(name: string): Promise<void> {
    const core = this.core();
    try {
      await core.readNamespace({ name });
    } catch {
      await core.createNamespace({ body: { metadata: { name } } }).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 409) throw err;
      });
    }
  }

  #cniRuntime(
    node: NodeRecord,
    netns: string,
    containerId: string,
    namespace: string,
    name: string,
    uid: string | undefined,
  ): CniRuntime {
    return {
      containerId,
      netnsPath: `/var/run/netns/${netns}`,
      ifName: 'eth0',
      // What kubelet's dockershim/CRI passes (IgnoreUnknown first, as libcni sees it).
      args: [
        ['IgnoreUnknown', '1'],
        ['K8S_POD_NAMESPACE', namespace],
        ['K8S_POD_NAME', name],
        ['K8S_POD_INFRA_CONTAINER_ID', containerId],
        ...(uid ? ([['K8S_POD_UID', uid]] as const) : []),
      ],
      capabilityArgs: {},
      binDirs: [node.cniBinDir],
      hostNetns: node.netns,
      // Each lab Node's agent listens on its own socket (one filesystem for all Nodes).
      env: { ANTREA_CNI_SOCKET: node.cniSocket },
    };
  }

  async #startServers(pod: PodRecord): Promise<void> {
    const numbers = [...new Set(pod.ports.filter((p) => p.protocol !== 'SCTP').map((p) => p.port))];
    if (numbers.length === 0) return;
    const id = `${pod.namespace}/${pod.name}`;
    const log = this.layout.log(`pod-${pod.namespace}.${pod.name}`);
    rmSync(log, { force: true });
    const server = spawnDetached({
      name: `pod-server@${id}`,
      netns: pod.netns,
      log,
      cmdlineMatch: `--id ${id} `,
      argv: [
        process.execPath,
        this.#artifacts.serve,
        '--id',
        id,
        '--tcp',
        numbers.join(','),
        '--udp',
        numbers.join(','),
      ],
    });
    await this.store.update((s) => void s.processes.push(server));
    await waitUntil(
      `servers of Pod ${id} (log: ${log})`,
      async () => {
        if (!isRunning(server.pid))
          throw new LabError('LAB_SERVER_FAILED', `servers of ${id} exited: ${readLog(log)}`);
        return readLog(log).includes('"ready":true');
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
  }

  async #writePodStatus(pod: PodRecord, node: NodeRecord): Promise<void> {
    const core = this.core();
    const current = await core.readNamespacedPodStatus({ name: pod.name, namespace: pod.namespace });
    const now = new Date();
    current.status = {
      ...current.status,
      phase: 'Running',
      hostIP: node.nodeIp,
      hostIPs: [{ ip: node.nodeIp }],
      podIP: pod.ips[0],
      podIPs: pod.ips.map((ip) => ({ ip })),
      startTime: now,
      conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: now,
      })),
      // kubectl's READY column counts ready container statuses.
      containerStatuses: [
        {
          name: 'main',
          image: 'antrea-ts/lab-pod',
          imageID: '',
          containerID: `lab://${pod.containerId}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        },
      ],
    } as V1Pod['status'];
    await core.replaceNamespacedPodStatus({ name: pod.name, namespace: pod.namespace, body: current });
  }

  /** CNI DEL, servers stopped, netns removed, Pod object deleted at once (no kubelet to finish it). */
  async deletePod(namespace: string, name: string): Promise<void> {
    const pod = this.pod(namespace, name);
    await this.#teardownPod(pod);
    this.#log.info({ pod: `${namespace}/${name}` }, 'Pod deleted');
  }

  async #teardownPod(
    pod: Pick<PodRecord, 'namespace' | 'name' | 'netns' | 'node' | 'cniResult' | 'containerId'>,
  ) {
    const id = `${pod.namespace}/${pod.name}`;
    const server = this.store.read()?.processes.find((p) => p.name === `pod-server@${id}`);
    if (server) await stopProcess(server, 2_000);
    const node = this.store.read()?.nodes.find((n) => n.name === pod.node);
    if (node && existsSync(`/var/run/netns/${pod.netns}`)) {
      const rt = this.#cniRuntime(node, pod.netns, pod.containerId, pod.namespace, pod.name, undefined);
      await cniDel(antreaCniConflist(), rt, pod.cniResult).catch((err: unknown) =>
        this.#log.warn({ err, pod: id }, 'CNI DEL failed'),
      );
    }
    await tryRun(['ip', 'netns', 'delete', pod.netns]);
    await this.core()
      .deleteNamespacedPod({ name: pod.name, namespace: pod.namespace, gracePeriodSeconds: 0 })
      .catch(() => undefined);
    await this.store.update((s) => {
      s.pods = s.pods.filter((p) => !(p.namespace === pod.namespace && p.name === pod.name));
      s.processes = s.processes.filter((p) => p.name !== `pod-server@${id}`);
    });
  }

  /**
   * Deletes a namespace the way a kubelet-backed cluster would end up: the lab Pods in it first
   * (CNI DEL, netns, servers; there is no kubelet to do it when the namespace controller deletes
   * the Pod objects), then the namespace, resolving once it is gone.
   */
  async deleteNamespace(name: string): Promise<void> {
    await Promise.all(this.state.pods.filter((p) => p.namespace === name).map((p) => this.#teardownPod(p)));
    await this.core()
      .deleteNamespace({ name })
      .catch(() => undefined);
    await waitUntil(
      `namespace ${name} deleted (log: ${this.layout.log('kube-controller-manager')})`,
      async () => {
        try {
          await this.core().readNamespace({ name });
          return false;
        } catch (err) {
          return (err as { code?: number }).code === 404;
        }
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }

  /** The argv that runs `argv` inside the Pod's network namespace (for callers that want a TTY). */
  execArgv(namespace: string, name: string, argv: readonly string[]): string[] {
    return ['ip', 'netns', 'exec', this.pod(namespace, name).netns, ...argv];
  }

  /** Runs a command in the Pod's network namespace; resolves to its stdout. */
  exec(namespace: string, name: string, argv: readonly string[], options: { timeoutMs?: number } = {}) {
    return run(argv, { netns: this.pod(namespace, name).netns, ...options });
  }

  /** One probe per target from the Pod's netns, all at once (agent-tools/probe.mjs). */
  probe(
    from: { namespace: string; name: string },
    targets: readonly ProbeTarget[],
    timeoutMs = 2_000,
  ): Promise<ProbeResult[]> {
    return runProbes(this.pod(from.namespace, from.name).netns, this.#artifacts.probe, targets, timeoutMs);
  }

  /** Adds one Node (netns, OVS, Node object, agent) and waits until it is healthy. */
  async addNode(): Promise<NodeRecord> {
    const state = this.state;
    const index = Math.max(0, ...state.nodes.map((n) => n.index)) + 1;
    const n = nodeRecord(this.layout, index);
    const record = (p: ProcessRecord) => this.store.update((s) => void s.processes.push(p));
    await createNodeNetwork(this.layout, n, record);
    await this.#createNodeObject(n, state.controller ? undefined : podCidrFor(state.clusterCidr, index));
    n.podCidr = await this.#waitPodCidr(n.name);
    const agentKubeconfig = readFileSync(
      join(this.layout.nodeDir(state.nodes[0]!.name), 'kubeconfig'),
      'utf8',
    );
    writeNodeFiles(this.layout, n, { cniLauncher: this.#artifacts.cniLauncher, agentKubeconfig });
    await this.store.update((s) => void s.nodes.push(n));
    await record(startAgent(this.layout, n, this.#artifacts.agentMain, this.store.read()?.controller));
    await this.waitHealthy();
    return n;
  }

  /** Names of the components `restart` takes: every recorded process but the Pod servers. */
  components(): string[] {
    return this.state.processes.map((p) => p.name).filter((n) => !n.startsWith('pod-server@'));
  }

  /**
   * Stops a component (SIGTERM, or SIGKILL as a crash would with `crash`) and starts it again with
   * the same command, then waits until the lab is healthy: agents ready, APIService available,
   * tunnels passing packets (so an ovs-vswitchd restart is only done once the agent replayed its
   * flows). For restart tests (e2e, agent policy).
   */
  async restart(name: string, options: { crash?: boolean } = {}): Promise<void> {
    const record = this.state.processes.find((p) => p.name === name);
    if (!record || name.startsWith('pod-server@')) {
      throw new LabError('LAB_NOT_FOUND', `no component ${name}: one of ${this.components().join(', ')}`);
    }
    if (options.crash) {
      if (isAlive(record)) process.kill(record.pid, 'SIGKILL');
      await waitUntil(`${name} killed`, async () => !isRunning(record.pid), {
        timeoutMs: 5_000,
        intervalMs: 20,
      });
    } else {
      await stopProcess(record);
    }
    const next = respawn(record);
    await this.store.update((s) => {
      s.processes = s.processes.map((p) => (p.name === name ? next : p));
    });
    this.#log.info({ component: name, pid: next.pid, crash: options.crash ?? false }, 'component restarted');
    await this.waitHealthy();
  }

  /**
   * Appends `yaml` (top-level keys: a feature gate, a section) to a Node's antrea-agent.conf and
   * restarts its agent, so the agent runs with it; later keys win over the lab's. For suites that
   * turn a feature on.
   */
  async configureAgent(node: string, yaml: string): Promise<void> {
    this.node(node);
    appendFileSync(
      join(this.layout.nodeDir(node), 'antrea-agent.conf'),
      yaml.endsWith('\n') ? yaml : `${yaml}\n`,
    );
    await this.restart(`antrea-agent@${node}`);
  }

  /** Removes a Node: its Pods, agent, OVS, netns and the Node object. */
  async removeNode(name: string): Promise<void> {
    const n = this.node(name);
    for (const pod of this.state.pods.filter((p) => p.node === name)) await this.#teardownPod(pod);
    const procs = this.state.processes.filter((p) => p.netns === n.netns);
    const agent = procs.find((p) => p.name.startsWith('antrea-agent@'));
    if (agent) await stopProcess(agent);
    await deleteNodeNetwork(n);
    await Promise.all(procs.map((p) => stopProcess(p)));
    await this.core()
      .deleteNode({ name })
      .catch(() => undefined);
    rmSync(this.layout.nodeDir(name), { recursive: true, force: true });
    await this.store.update((s) => {
      s.nodes = s.nodes.filter((x) => x.name !== name);
      s.processes = s.processes.filter((p) => p.netns !== n.netns);
    });
  }

  async status(): Promise<LabStatus> {
    const state = this.state;
    const components = state.processes.map((p) => ({
      name: p.name,
      pid: p.pid,
      running: isAlive(p),
      log: p.log,
      ...(p.netns ? { netns: p.netns } : {}),
    }));
    const nodes = await Promise.all(
      state.nodes.map(async (n) => ({
        name: n.name,
        nodeIp: n.nodeIp,
        podCidr: n.podCidr,
        agentReady: await this.#agentReady(n),
        pods: state.pods.filter((p) => p.node === n.name).length,
      })),
    );
    const { collectVersions } = await import('./versions.js');
    return {
      stateDir: state.stateDir,
      phase: state.phase,
      logDir: this.layout.logDir,
      kubeconfig: this.layout.kubeconfig,
      apiserver: state.apiserver?.server,
      controller: state.controller
        ? {
            address: `${state.controller.address}:${state.controller.port}`,
            apiServiceAvailable: await this.#apiServiceAvailable(),
            dashboard: `http://${state.controller.address}:${CONTROLLER_DASHBOARD_PORT}/`,
          }
        : undefined,
      nodes,
      pods: state.pods.map((p) => ({ namespace: p.namespace, name: p.name, node: p.node, ips: p.ips })),
      components,
      versions: await collectVersions(this.#artifacts.kubeBinDir, this.layout),
    };
  }

  /** Takes this lab down (see Lab.down). */
  down(): Promise<DownReport> {
    return Lab.down({ stateDir: this.layout.stateDir, artifacts: this.#artifacts, logger: this.#log });
  }

  /**
   * Removes a lab: every recorded process, Pod and Node netns, the underlay, and the state dir;
   * then anything else bearing the lab's names (a crash between starting a thing and recording
   * it). Safe to run twice, with no state dir, or after a crash.
   */
  static async down(options: LabOptions): Promise<DownReport> {
    const recorded = new StateStore(new LabLayout(options.stateDir).stateFile).read();
    const layout = new LabLayout(options.stateDir, recorded?.instance ?? options.instance ?? 0);
    const state = recorded;
    const stopped: string[] = [];
    if (state) {
      const byKind = (pred: (p: ProcessRecord) => boolean) => state.processes.filter(pred);
      const stopAll = async (procs: ProcessRecord[]) => {
        await Promise.all(procs.map((p) => stopProcess(p)));
        stopped.push(...procs.map((p) => p.name));
      };
      // Consumers before what they consume: servers and agents, the controller, OVS, then kube.
      await stopAll(byKind((p) => p.name.startsWith('pod-server@')));
      await stopAll(byKind((p) => p.name.startsWith('antrea-agent@')));
      await stopAll(byKind((p) => p.name === 'antrea-controller'));
      await Promise.all(state.nodes.map((n) => deleteNodeNetwork(n)));
      await stopAll(byKind((p) => p.name.startsWith('ovs')));
      for (const name of ['kube-controller-manager', 'kube-apiserver', 'etcd']) {
        await stopAll(byKind((p) => p.name === name));
      }
      await stopAll(byKind((p) => !stopped.includes(p.name)));
      for (const pod of state.pods) await tryRun(['ip', 'netns', 'delete', pod.netns]);
      await deleteUnderlay(layout);
    }
    const leftovers = await removeLeftovers(layout);
    rmSync(layout.stateDir, { recursive: true, force: true });
    return { stopped, leftovers };
  }
}

function leastLoaded(state: LabState): NodeRecord {
  if (state.nodes.length === 0) throw new LabError('LAB_NOT_FOUND', 'the lab has no Nodes');
  const load = (n: NodeRecord) => state.pods.filter((p) => p.node === n.name).length;
  return [...state.nodes].sort((a, b) => load(a) - load(b) || a.index - b.index)[0]!;
}

/** The gateway (antrea-gw0) address of a podCIDR: its first host address. */
export function gatewayIp(podCidr: string): string {
  const [base] = podCidr.split('/');
  const octets = base!.split('.').map(Number);
  octets[3] = octets[3]! + 1;
  return octets.join('.');
}

/** The /24 podCIDR of Node `index` when the lab allocates them itself (no controller). */
export function podCidrFor(clusterCidr: string, index: number): string {
  const [a, b] = clusterCidr.split('/')[0]!.split('.');
  return `${a}.${b}.${index}.0/24`;
}

/**
 * Status code of a GET without verifying the server's certificate: the controller's is self-signed
 * and /readyz answers anonymous clients; only liveness is asked here, never data.
 */
function httpsStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
