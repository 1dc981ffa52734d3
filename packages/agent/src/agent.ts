import { CniServer } from '@antrea-ts/cni/server';
import type { OpenFlowBridgeClient, PacketIn2 } from '@antrea-ts/openflow';
import type { BridgeClient, OvsdbClient } from '@antrea-ts/ovsdb';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  AgentInfoUpdater,
  type AgentInfoWriter,
  type AgentSnapshot,
  buildAgentInfo,
} from './agentinfo/agent-info.js';
import { type AgentSupportBundleOptions, registerAgentExtensions } from './api/agent-extensions.js';
import type { DelegatedAuthOptions } from './api/delegated-auth.js';
import { LogLevelControl } from './api/log-level.js';
import { writeLoopbackToken } from './api/loopback-token.js';
import { AgentMetrics } from './api/metrics.js';
import type { ClusterLookup } from './api/ovstracing-route.js';
import { buildRestApi } from './api/rest-server.js';
import { agentApiCertificates, apiCaBundle } from './api/serving-certificate.js';
import { CniPodAdapter } from './cniserver/cni-adapter.js';
import { installCniConflist } from './cniserver/cni-conf.js';
import { AGENT_CNI_VERSIONS } from './cniserver/cni-request.js';
import { HostLocalIpam } from './cniserver/host-local-ipam.js';
import { InterfaceStore } from './cniserver/interface-store.js';
import { PodConfigurator, podFlowOwner } from './cniserver/pod-configurator.js';
import { type AgentConfig, pipelineFeatures, podMtu } from './config.js';
import { EgressAgent } from './egress/egress-agent.js';
import { removeEgressState } from './egress/egress-removal.js';
import type { EgressSource } from './egress/egress-source.js';
import { AgentError } from './errors.js';
import { type RunningFlowExporter, startAgentFlowExporter } from './flowexporter/agent-flow-exporter.js';
import type { AggregatorClientTls } from './flowexporter/aggregator-tls.js';
import type { NodeInfo, NodeSource } from './k8s/node-source.js';
import { registerPolicyAndConntrackMetrics } from './metrics/agent-collectors.js';
import { OvsFlowMetrics } from './metrics/ovs-flow-metrics.js';
import type { CommandRunner } from './net/command-runner.js';
import { HostNetwork } from './net/host-network.js';
import { formatCidr, gatewayIp, parseCidr, parseIpv4 } from './net/ipv4.js';
import type { ControllerConnection } from './networkpolicy/controller-connection.js';
import { dnsResolver } from './networkpolicy/fqdn/dns-resolver.js';
import { NetworkPolicyController } from './networkpolicy/network-policy-controller.js';
import { TUNNEL_UDP_PORTS } from './networkpolicy/node/host-rules.js';
import { NodePolicyIptables } from './networkpolicy/node/node-policy-iptables.js';
import { PacketInHandler } from './networkpolicy/packet-in-handler.js';
import { NplIptables, nplLeftovers } from './nodeportlocal/iptables-rules.js';
import { LocalPortOpener } from './nodeportlocal/local-port-opener.js';
import { parsePortRange } from './nodeportlocal/model.js';
import {
  NodePortLocalController,
  type NplAnnotator,
  type NplSource,
} from './nodeportlocal/npl-controller.js';
import type { PortOpener } from './nodeportlocal/port-table.js';
import {
  CATEGORY_MASK,
  CATEGORY_SHIFT,
  CookieAllocator,
  CookieCategory,
  ROUND_MASK,
  ROUND_SHIFT,
} from './openflow/cookie.js';
import { gatewayFlows } from './openflow/features/gateway.js';
import { pipelineFlows } from './openflow/features/pipeline-flows.js';
import { podFlows } from './openflow/features/pod-connectivity.js';
import { endpointSelectionFor } from './openflow/features/service.js';
import { tunnelFlows } from './openflow/features/tunnel.js';
import { FlowCache } from './openflow/flow-cache.js';
import type { FlowContext } from './openflow/flow-context.js';
import type { FlowSwitch } from './openflow/of-connection.js';
import { Pipeline } from './openflow/pipeline.js';
import { initBridge, persistRound } from './ovs/bridge-init.js';
import { PortBatcher } from './ovs/port-batcher.js';
import type { VswitchdAppctl } from './ovs/vswitchd-appctl.js';
import type { PacketCaptureApi } from './packetcapture/kube-packet-capture-api.js';
import { PacketCaptureController } from './packetcapture/packet-capture-controller.js';
import type { PacketCapturer } from './packetcapture/tcpdump-capturer.js';
import { HealthCheckServer } from './proxy/health-check-server.js';
import { serviceKey, serviceOwnerPrefix } from './proxy/model.js';
import { removeNatLeftovers } from './proxy/nat-leftovers.js';
import { NodePortIptables, nodePortLeftovers } from './proxy/nodeport-iptables.js';
import { Proxier } from './proxy/proxier.js';
import { nodePortAddresses, ProxyAllHost } from './proxy/proxy-all-host.js';
import { ProxyMetrics } from './proxy/proxy-metrics.js';
import { ServiceGroupIndex } from './proxy/service-group-index.js';
import { ServiceRoutes } from './proxy/service-routes.js';
import type { ServiceSource } from './proxy/service-source.js';
import { ovsStaleUdpConntrack } from './proxy/stale-udp-conntrack.js';
import { type LocalNode, NodeRouteController } from './route/node-route-controller.js';
import {
  removeServiceExternalIPState,
  ServiceExternalIPAgent,
} from './serviceexternalip/service-external-ip-agent.js';
import type { ServiceExternalIPSource } from './serviceexternalip/service-external-ip-source.js';
import { IptablesSnat } from './snat/iptables-snat.js';
import { type AgentBundleSource, agentBundleCollector } from './supportbundle/agent-collectors.js';
import type { BundleUploader } from './supportbundle/bundle-uploader.js';
import { SupportBundleCollectionAgent } from './supportbundle/collection-agent.js';
import { FileServerBundleUploader } from './supportbundle/file-server-uploader.js';
import type { TraceflowApi } from './traceflow/kube-traceflow-api.js';
import { tracedRule } from './traceflow/traced-rule.js';
import { TraceflowAgent } from './traceflow/traceflow-agent.js';
import { removeTrafficControlPorts } from './trafficcontrol/port-removal.js';
import { TrafficControlController } from './trafficcontrol/traffic-control-controller.js';
import type { TrafficControlSource } from './trafficcontrol/traffic-control-source.js';

export const AGENT_VERSION = '0.1.0-antrea-ts';

export interface AgentDeps {
  readonly config: AgentConfig;
  readonly logger: Logger;
  /** Typed Open_vSwitch client on the local ovsdb-server. */
  readonly bridges: BridgeClient;
  /** The raw OVSDB client, for batched Pod port transactions; ports are added one by one without it. */
  readonly ovsdb?: OvsdbClient;
  readonly ovsdbConnected?: () => boolean;
  /** OpenFlow session on br-int's management socket (started by the caller). */
  readonly sw: FlowSwitch;
  /** Runs commands in the Node's network namespace. */
  readonly nodeRunner: CommandRunner;
  /** Runs CNI plugin binaries (host-local). */
  readonly pluginRunner: CommandRunner;
  readonly nodes: NodeSource;
  /** AntreaAgentInfo destination; none disables the heartbeat. */
  readonly agentInfoWriter?: AgentInfoWriter;
  readonly agentInfoIntervalMs?: number;
  readonly now?: () => Date;
  readonly randomBytes: (n: number) => Buffer;
  /** Whether a Pod's network namespace (a CNI_NETNS path) still exists. */
  readonly netnsExists: (path: string) => Promise<boolean>;
  /** Called with each CNI command's agent-side duration (the metric's samples; benchmarks read them). */
  readonly onCniCommand?: (command: string, seconds: number, ok: boolean) => void;
  /** Serve the REST API (default true). */
  readonly serveApi?: boolean;
  /** TokenReview and SubjectAccessReview for API callers; none: only the loopback token is accepted. */
  readonly apiReviewers?: Pick<DelegatedAuthOptions, 'tokenReviewer' | 'accessReviewer'>;
  /** How long to wait for the Node to get a podCIDR. */
  readonly nodeWaitMs?: number;
  /** antrea-controller's API; without it no NetworkPolicy is enforced. */
  readonly policyConnection?: ControllerConnection;
  /** NodeStatsSummary interval (default 60 s; 0 disables). */
  readonly policyStatsIntervalMs?: number;
  /** A second OpenFlow session that receives packet-ins (Reject replies); none: Reject drops silently. */
  readonly packetIn?: OpenFlowBridgeClient;
  /** NetworkPolicy audit log (rules with enableLogging): one call per line. */
  readonly policyAuditLog?: (line: string) => void;
  /** How long start() waits for the first policy realization before serving (default 10 s). */
  readonly policySyncWaitMs?: number;
  /** Support bundle inputs (log ring, log dirs, config text, known secrets). */
  readonly supportBundle?: AgentSupportBundleOptions;
  /** The process's log verbosity (/loglevel); default: this agent's loggers only. */
  readonly logLevel?: LogLevelControl;
  /** Where SupportBundleCollection archives go (default: HTTP PUT to the file server). */
  readonly bundleUploader?: BundleUploader;
  /** Traceflow CRs; with `packetIn`, this Node injects and observes Traceflow packets. */
  readonly traceflowApi?: TraceflowApi;
  /**
   * PacketCapture CRs, the capturer, where files go and the agent Pod's name (status.filePath);
   * used with config.packetCapture. Uploads go through `bundleUploader`.
   */
  readonly packetCapture?: {
    readonly api: PacketCaptureApi;
    readonly capturer: PacketCapturer;
    readonly directory: string;
    readonly agentPodName: string;
  };
  /** `ofproto/trace` on the bridge (antctl trace-packet); none: /ovstracing answers 501. */
  readonly traceFlow?: (flow: string) => Promise<string>;
  /** `ovs-appctl` on the Node's ovs-vswitchd, for the conntrack gauges of /metrics; none: not exported. */
  readonly datapathAppctl?: VswitchdAppctl;
  /** Remote Pods' IPs and Services' ClusterIPs for trace-packet; none: only local peers and IPs. */
  readonly clusterLookup?: ClusterLookup;
  /** Services and EndpointSlices for AntreaProxy; none (or antreaProxy.enable false): no Service is proxied. */
  readonly services?: ServiceSource;
  /** Egresses, ExternalIPPools and Nodes; with config.egress and a controller connection, Egress is on. */
  readonly egressSource?: EgressSource;
  /** LoadBalancer Services, their EndpointSlices, ExternalIPPools and Nodes; with config.serviceExternalIP, ServiceExternalIP is on. */
  readonly serviceExternalIPSource?: ServiceExternalIPSource;
  /** TrafficControls, this Node's Pods and Namespaces; with config.trafficControl, TrafficControl is on. */
  readonly trafficControlSource?: TrafficControlSource;
  /** Sets a TrafficControl port no-flood on br-int (`portNoFlood`); none: ports stay flood targets. */
  readonly trafficControlNoFlood?: (port: string) => Promise<void>;
  /**
   * NodePortLocal's Pods and Services watch and Pod annotation writer; with config.nodePortLocal.enable.
   * `opener` holds Node ports (default: sockets in this process, which must run in the Node's netns).
   */
  readonly nodePortLocal?: { source: NplSource; annotator: NplAnnotator; opener?: PortOpener };
  /**
   * The Node's conntrack as `dpctl/dump-conntrack -m -s` prints it (`ovsConntrackDump`); with
   * config.flowExporter's gate and `enable`, connections of local Pods are exported over IPFIX.
   */
  readonly conntrackDump?: () => Promise<string>;
  /** The Flow Aggregator's CA and client certificate from Kubernetes, for the gRPC flow export (`kubeAggregatorTls`). */
  readonly flowAggregatorTls?: () => Promise<AggregatorClientTls>;
}

/** Facts learned at start-up. */
export interface AgentRuntime {
  readonly node: NodeInfo;
  readonly podCidr: string;
  readonly gatewayIp: string;
  readonly gatewayMac: string;
  readonly gatewayOfport: number;
  readonly tunnelOfport: number | undefined;
  readonly podMtu: number;
  readonly transport: { name: string; mtu: number; prefix: number };
  readonly round: number;
}

/**
 * antrea-agent's connectivity half, composed from injected clients (Antrea cmd/antrea-agent
 * agent.go + pkg/agent/agent.go initializer). start() brings the Node's datapath to the wanted
 * state — adopting what a previous run left — and then serves CNI and the API; stop() leaves the
 * datapath in place so Pods keep their connectivity while the agent is away.
 */
export class Agent {
  private readonly log: Logger;
  readonly metrics = new AgentMetrics();
  readonly pipeline: Pipeline;
  readonly store = new InterfaceStore();
  private flows: FlowCache | undefined;
  private routes: NodeRouteController | undefined;
  private cni: CniServer | undefined;
  private api: FastifyInstance | undefined;
  private apiCerts: ReturnType<typeof agentApiCertificates> | undefined;
  private info: AgentInfoUpdater | undefined;
  private runtimeState: AgentRuntime | undefined;
  private isReady = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private unsubscribePods: (() => void) | undefined;
  private readonly host: HostNetwork;
  private lastReplayMs: number | undefined;
  private policy: NetworkPolicyController | undefined;
  private packetIns: PacketInHandler | undefined;
  private traceflow: TraceflowAgent | undefined;
  private collections: SupportBundleCollectionAgent | undefined;
  private packetCaptures: PacketCaptureController | undefined;
  private proxier: Proxier | undefined;
  private proxyAllHost: ProxyAllHost | undefined;
  private healthChecks: HealthCheckServer | undefined;
  private egress: EgressAgent | undefined;
  private serviceExternalIP: ServiceExternalIPAgent | undefined;
  private trafficControl: TrafficControlController | undefined;
  private npl: NodePortLocalController | undefined;
  /** NodeNetworkPolicy's iptables rules, when the gate is on. */
  private nodePolicyRules: NodePolicyIptables | undefined;
  private flowExporter: RunningFlowExporter | undefined;

  constructor(private readonly deps: AgentDeps) {
    this.log = deps.logger.child({ component: 'agent', node: deps.config.nodeName });
    this.host = new HostNetwork(deps.nodeRunner);
    this.pipeline = new Pipeline(pipelineFeatures(deps.config));
  }

  get runtime(): AgentRuntime {
    if (!this.runtimeState) throw new AgentError('AGENT_STOPPED', 'agent not started');
    return this.runtimeState;
  }

  get apiAddress(): string | undefined {
    const addr = this.api?.server.address();
    if (!addr || typeof addr !== 'object') return undefined;
    // Bound to every address: loopback is one of them.
    const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
    return `https://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
  }

  get flowCache(): FlowCache {
    if (!this.flows) throw new AgentError('AGENT_STOPPED', 'agent not started');
    return this.flows;
  }

  /** The NetworkPolicy controller, when the agent has a controller connection. */
  get networkPolicy(): NetworkPolicyController | undefined {
    return this.policy;
  }

  /** The flow exporter, when its gate and `flowExporter.enable` are on. */
  get flowExporterStats(): ReturnType<RunningFlowExporter['exporter']['stats']> | undefined {
    return this.flowExporter?.exporter.stats();
  }

  /** The NodePortLocal controller, when enabled. */
  get nodePortLocal(): NodePortLocalController | undefined {
    return this.npl;
  }

  /** Whether the policies got realized (again) within policySyncWaitMs. */
  private policyRealizedWithinWait(policy: NetworkPolicyController): Promise<boolean> {
    return Promise.race([
      policy.waitSynced().then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), this.deps.policySyncWaitMs ?? 10_000).unref()),
    ]);
  }

  /** Duration of the last flow replay after an OpenFlow reconnection, in ms. */
  get lastReplayDurationMs(): number | undefined {
    return this.lastReplayMs;
  }

  ready(): boolean {
    return this.isReady;
  }

  async start(signal?: AbortSignal): Promise<void> {
    const deps = this.deps;
    const config = deps.config;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });

    // 1. The Node: podCIDR and Node IP. Node events arriving meanwhile are replayed to the route controller.
    const pending = new Map<string, NodeInfo | undefined>();
    let routeSink: NodeRouteController | undefined;
    let syncedNames: readonly string[] | undefined;
    let localNode: NodeInfo | undefined;
    let nodeArrived: (() => void) | undefined;
    await deps.nodes.start(
      {
        upsert: (n) => {
          if (n.name === config.nodeName) {
            localNode = n;
            nodeArrived?.();
            this.proxier?.setNodeZone(n.zone);
          }
          if (routeSink) routeSink.upsert(n);
          else pending.set(n.name, n);
        },
        remove: (name) => {
          if (routeSink) routeSink.remove(name);
          else pending.set(name, undefined);
        },
        synced: (names) => {
          // A first list that failed is retried: its names may come after the routes exist.
          if (routeSink) {
            routeSink
              .synced(names)
              .catch((err: unknown) => this.log.warn({ err }, 'removing stale Node routes failed'));
          } else syncedNames = names;
        },
      },
      signal,
    );
    this.log.info('watching Nodes; waiting for this Node’s podCIDR and InternalIP');
    const node = await this.waitForLocalNode(
      () => localNode,
      (cb) => {
        nodeArrived = cb;
      },
    );
    const podCidr = node.podCidrs.find((c) => !c.includes(':'))!;
    const nodeIp = node.internalIp!;
    const transport = await this.host.linkWithAddress(nodeIp);
    if (!transport) throw new AgentError('AGENT_CONFIG_INVALID', `no interface holds the Node IP ${nodeIp}`);
    const mtu = podMtu(config, transport.mtu);
    await this.host.enableIpv4Forwarding();
    const gwIp = gatewayIp(podCidr);

    // 2. br-int, antrea-gw0, antrea-tun0.
    const bridge = await initBridge(deps.bridges, config, mtu, this.log);
    await this.host.configureLink(config.gatewayName, {
      mtu,
      address: `${gwIp}/${parseCidr(podCidr).prefix}`,
    });
    const gatewayMac = (await this.host.requireLink(config.gatewayName)).mac;
    for (const p of InterfaceStore.fromPorts(bridge.ports).list()) this.store.add(p);

    // 3. Flows: pipeline, gateway, tunnel and every Pod found on the bridge, in one bundle.
    const ctx: FlowContext = { pipeline: this.pipeline, cookies: new CookieAllocator(bridge.round) };
    await deps.sw.waitConnected(30_000);
    const flowMetrics = new OvsFlowMetrics(this.metrics.registry, {
      pipeline: this.pipeline,
      flowsPerTable: () => flows.countByTable(),
    });
    const flows: FlowCache = new FlowCache(deps.sw, this.log, flowMetrics);
    this.flows = flows;
    const gateway = { ofport: bridge.gatewayOfport, mac: gatewayMac, ip: gwIp };
    const initial: Array<[string, ReturnType<typeof pipelineFlows>]> = [
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, gateway)],
    ];
    if (bridge.tunnelOfport !== undefined) initial.push(['tunnel', tunnelFlows(ctx, bridge.tunnelOfport)]);
    for (const pod of this.store.list())
      initial.push([podFlowOwner(pod.containerId), podFlows(ctx, pod, gatewayMac)]);
    await flows.replaceMany(initial);
    this.runtimeState = {
      node,
      podCidr,
      gatewayIp: gwIp,
      gatewayMac,
      gatewayOfport: bridge.gatewayOfport,
      tunnelOfport: bridge.tunnelOfport,
      podMtu: mtu,
      transport,
      round: bridge.round,
    };

    // 4. Remote Nodes.
    const transportSubnet = formatCidr({
      network:
        (parseIpv4(nodeIp) & (transport.prefix === 0 ? 0 : (0xffffffff << (32 - transport.prefix)) >>> 0)) >>>
        0,
      prefix: transport.prefix,
    });
    const local: LocalNode = {
      name: config.nodeName,
      nodeIp,
      transportSubnet,
      transportInterface: transport.name,
      podCidr,
      gatewayMac,
    };
    const snat =
      config.snat && config.trafficEncapMode !== 'networkPolicyOnly'
        ? new IptablesSnat(deps.nodeRunner, this.log)
        : undefined;
    // SNAT first, so Pods never leave unmasqueraded; it is rewritten as peers come and go.
    await snat?.ensure(podCidr, config.gatewayName);
    const routes = new NodeRouteController({
      config,
      local,
      flows,
      ctx,
      host: this.host,
      logger: this.log,
      onPeerCidrsChanged: async (cidrs) => snat?.ensure(podCidr, config.gatewayName, cidrs),
    });
    this.routes = routes;
    for (const [name, n] of pending) {
      if (n) routes.upsert(n);
      else routes.remove(name);
    }
    routeSink = routes;
    await routes.idle();
    if (syncedNames) await routes.synced(syncedNames);

    // 4b. Packet-ins: Reject replies and the audit log (policies), Traceflow observations.
    if (deps.packetIn && deps.traceflowApi) {
      this.traceflow = new TraceflowAgent({
        nodeName: config.nodeName,
        api: deps.traceflowApi,
        flows,
        ctx,
        node: {
          gatewayOfport: bridge.gatewayOfport,
          gatewayIp: gwIp,
          gatewayMac,
          tunnelOfport: bridge.tunnelOfport,
        },
        pods: () => this.store.list(),
        packetOut: (po) => deps.packetIn!.sendPacketOut(po),
        rule: (id) => {
          const rule = this.policy?.ruleOfConjId(id);
          return rule ? tracedRule(rule) : undefined;
        },
        logger: this.log,
      });
    }
    const agentCollectors = registerPolicyAndConntrackMetrics(this.metrics.registry, {
      policy: () => this.policy,
      ...(deps.packetIn && { packetIn: deps.packetIn }),
      ...(deps.datapathAppctl && { appctl: deps.datapathAppctl }),
      flowExporter: () => this.flowExporterStats,
      logger: this.log,
    });
    if (deps.packetIn) {
      const traceflow = this.traceflow;
      this.packetIns = new PacketInHandler({
        bridge: deps.packetIn,
        logger: this.log,
        onLog: (pi: PacketIn2) => this.policy?.logPacket(pi),
        onDns: (pi: PacketIn2) => this.policy?.onDnsResponse(pi) ?? Promise.resolve(true),
        ...(traceflow ? { onTraceflow: (pi: PacketIn2) => void traceflow.handlePacketIn(pi) } : {}),
      });
      this.packetIns.start();
    }
    // Without the Traceflow CRD (or RBAC for it) the Node still networks: Traceflow is optional.
    await this.traceflow
      ?.start(signal)
      .catch((err: unknown) => this.log.warn({ err }, 'Traceflow watch failed; Traceflow disabled'));

    // 4c. NetworkPolicies: realized before the previous round's flows go, so a restarting agent
    //     never leaves its Pods unprotected. If the controller is not reachable in time, the old
    //     policy flows stay until the first realization replaces them.
    let policySynced = true;
    // AntreaProxy's group ids per Service, for NetworkPolicy toServices peers.
    const serviceGroups = config.antreaProxy.enable && deps.services ? new ServiceGroupIndex() : undefined;
    // NodeNetworkPolicy: the chains are set up without touching a previous run's policy rules,
    // which keep applying until the first realization rewrites them. Off: they go.
    const tunnels = config.trafficEncapMode === 'encap' || config.trafficEncapMode === 'hybrid';
    const nodePolicyRules = new NodePolicyIptables(deps.nodeRunner, this.log, {
      tunnelUdpPort: tunnels ? TUNNEL_UDP_PORTS[config.tunnelType] : undefined,
      agentApiPort: config.apiPort,
    });
    if (config.nodeNetworkPolicy && deps.policyConnection) {
      await nodePolicyRules.prepare();
      this.nodePolicyRules = nodePolicyRules;
    } else
      await nodePolicyRules
        .cleanup()
        .catch((err: unknown) => this.log.warn({ err }, 'removing NodeNetworkPolicy rules failed'));
    if (deps.policyConnection) {
      const policy = new NetworkPolicyController({
        node: config.nodeName,
        connection: deps.policyConnection,
        flows,
        ctx,
        sw: deps.sw,
        pods: () => this.store.list(),
        logger: this.log,
        ...(deps.policyStatsIntervalMs !== undefined ? { statsIntervalMs: deps.policyStatsIntervalMs } : {}),
        ...(deps.policyAuditLog ? { auditLog: deps.policyAuditLog } : {}),
        fqdn: {
          minTtlSeconds: config.fqdnCacheMinTTL,
          resolve: dnsResolver(config.dnsServerOverride || undefined),
        },
        ...(serviceGroups ? { serviceGroups } : {}),
        ...(this.nodePolicyRules ? { nodeRules: this.nodePolicyRules } : {}),
      });
      this.policy = policy;
      this.unsubscribePods = this.store.onChange(() => policy.podsChanged());
      policy.start(signal);
      policySynced = await this.policyRealizedWithinWait(policy);
      if (!policySynced)
        this.log.warn('NetworkPolicies not realized yet; keeping the previous run’s policy flows');
    }

    // 4d. AntreaProxy: service ports written before the previous round's flows go, so a restarting
    //     agent rewrites each Service's group in place and established connections keep flowing.
    const nodePortRules = new NodePortIptables(deps.nodeRunner, this.log);
    const serviceRoutes = new ServiceRoutes(this.host, config.gatewayName, this.log);
    const proxyAll = config.antreaProxy.enable && config.antreaProxy.proxyAll && deps.services !== undefined;
    const addresses = proxyAll
      ? await nodePortAddresses(deps.nodeRunner, config.gatewayName, config.antreaProxy.nodePortAddresses)
      : [];
    if (proxyAll) {
      this.proxyAllHost = new ProxyAllHost({
        iptables: nodePortRules,
        routes: serviceRoutes,
        addresses,
        ...(config.serviceCIDR ? { serviceCidr: config.serviceCIDR } : {}),
        logger: this.log,
      });
      this.healthChecks = new HealthCheckServer(this.log);
    }
    // Features that are off lose what a previous run left: proxyAll's NodePort chains and Service
    // routes, NodePortLocal's chain. One `iptables-save -t nat` for all of them, one restore if any.
    const nplOn = config.nodePortLocal.enable && deps.nodePortLocal !== undefined;
    const natLeftovers = [...(proxyAll ? [] : [nodePortLeftovers]), ...(nplOn ? [] : [nplLeftovers])];
    await Promise.all([
      removeNatLeftovers(deps.nodeRunner, natLeftovers),
      proxyAll ? undefined : serviceRoutes.cleanup(),
    ]).catch((err: unknown) => this.log.warn({ err }, 'removing disabled features’ rules and routes failed'));
    if (config.antreaProxy.enable && deps.services) {
      const proxyMetrics = new ProxyMetrics(this.metrics.registry);
      const proxier = new Proxier({
        ...config.antreaProxy,
        nodeName: config.nodeName,
        source: proxyMetrics.countUpdates(deps.services),
        flows,
        ctx,
        logger: this.log,
        metrics: proxyMetrics,
        endpointSelection: endpointSelectionFor(config.datapathType),
        ...(localNode?.zone ? { nodeZone: localNode.zone } : {}),
        ...(deps.datapathAppctl && config.cleanupStaleUDPSvcConntrack
          ? { staleUdpConntrack: ovsStaleUdpConntrack(deps.datapathAppctl) }
          : {}),
        ...(serviceGroups ? { serviceGroups } : {}),
        ...(this.proxyAllHost && this.healthChecks
          ? {
              proxyAllNode: { gatewayIp: gwIp, gatewayMac, nodePortAddresses: addresses },
              hostListeners: [this.proxyAllHost, this.healthChecks],
            }
          : {}),
      });
      this.proxier = proxier;
      await proxier.start().catch((err: unknown) => this.log.error({ err }, 'AntreaProxy failed to start'));
      // The first sync's group ids re-realized toServices rules: in before the old round goes.
      if (policySynced && this.policy) policySynced = await this.policyRealizedWithinWait(this.policy);
    }

    // 4f. NodePortLocal: DNAT in iptables, not OVS, so it does not wait for the round switch. When
    //     disabled, a previous run's chain went with the leftovers above.
    if (nplOn && deps.nodePortLocal) {
      this.npl = new NodePortLocalController({
        nodeIp,
        portRange: parsePortRange(config.nodePortLocal.portRange)!,
        source: deps.nodePortLocal.source,
        annotator: deps.nodePortLocal.annotator,
        rules: new NplIptables(deps.nodeRunner, this.log),
        opener: deps.nodePortLocal.opener ?? new LocalPortOpener(),
        logger: this.log,
      });
      await this.npl.start();
    }

    // 4e. Egress: SNAT IPs for selected Pods (EgressGroups from the controller, placement from the API).
    if (config.egress && deps.policyConnection && deps.egressSource && bridge.tunnelOfport !== undefined) {
      this.egress = new EgressAgent({
        nodeName: config.nodeName,
        source: deps.egressSource,
        connection: deps.policyConnection,
        flows,
        ctx,
        runner: deps.nodeRunner,
        transportInterface: transport.name,
        gatewayName: config.gatewayName,
        gatewayMac,
        logger: this.log,
        maxEgressIpsPerNode: config.egressConfig.maxEgressIPsPerNode,
        exceptCidrs: config.egressConfig.exceptCIDRs,
        ...(deps.now ? { now: deps.now } : {}),
      });
      await this.egress
        .start(signal)
        .catch((err: unknown) => this.log.error({ err }, 'Egress failed to start'));
    } else {
      // Off (or unusable here): a previous run's Egress IPs and chains go.
      await removeEgressState(deps.nodeRunner, transport.name, this.log).catch((err: unknown) =>
        this.log.warn({ err }, 'removing Egress state failed'),
      );
    }

    // 4f. ServiceExternalIP (feature gate, off by default here): this Node answers ARP for the
    //     Services' external IPs placed on it; AntreaProxy (proxyAll) routes and load-balances them.
    if (config.serviceExternalIP && deps.serviceExternalIPSource) {
      this.serviceExternalIP = new ServiceExternalIPAgent({
        nodeName: config.nodeName,
        source: deps.serviceExternalIPSource,
        runner: deps.nodeRunner,
        transportInterface: transport.name,
        logger: this.log,
      });
      await this.serviceExternalIP
        .start(signal)
        .catch((err: unknown) => this.log.error({ err }, 'ServiceExternalIP failed to start'));
    } else {
      await removeServiceExternalIPState(deps.nodeRunner, transport.name, this.log).catch((err: unknown) =>
        this.log.warn({ err }, 'removing ServiceExternalIP state failed'),
      );
    }

    // 4g. Flow exporter (feature gate FlowExporter, off by default as in Antrea): local Pods'
    //     connections from conntrack to IPFIX records.
    const fe = config.flowExporter;
    if (fe?.featureGate && fe.enable && deps.conntrackDump) {
      this.flowExporter = startAgentFlowExporter({
        nodeName: config.nodeName,
        config: fe,
        networkPolicyOnly: config.trafficEncapMode === 'networkPolicyOnly',
        dumpConntrack: deps.conntrackDump,
        store: this.store,
        flows,
        podCidrs: () => [podCidr, ...routes.peerCidrs()],
        ruleOfConjId: (id) => this.policy?.ruleOfConjId(id),
        ...(deps.clusterLookup && {
          resolveService: deps.clusterLookup.serviceClusterIp.bind(deps.clusterLookup),
        }),
        ...(deps.flowAggregatorTls && { readTls: deps.flowAggregatorTls }),
        onPollCycle: agentCollectors.conntrackPollCycle,
        logger: this.log,
      });
    }

    // 4h. TrafficControl (feature gate, off by default as in Antrea): mirror/redirect ports and
    //     marks, in before the previous round's flows go so a restart keeps them realized.
    if (config.trafficControl && deps.trafficControlSource) {
      const tc = new TrafficControlController({
        source: deps.trafficControlSource,
        bridges: deps.bridges,
        bridgeName: config.bridgeName,
        flows,
        ctx,
        pods: () => this.store.list(),
        setLinkUp: (name) => this.host.configureLink(name, {}),
        ...(deps.trafficControlNoFlood && { setNoFlood: deps.trafficControlNoFlood }),
        logger: this.log,
      });
      this.trafficControl = tc;
      const unsubscribe = this.store.onChange(() => tc.podsChanged());
      signal?.addEventListener('abort', unsubscribe, { once: true });
      await tc
        .start(signal)
        .catch((err: unknown) => this.log.error({ err }, 'TrafficControl failed to start'));
      await Promise.race([tc.synced(), new Promise((r) => setTimeout(r, 10_000).unref())]);
    } else {
      await removeTrafficControlPorts(deps.bridges, config.bridgeName, bridge.ports, this.log).catch(
        (err: unknown) => this.log.warn({ err }, 'removing TrafficControl ports failed'),
      );
    }

    // 5. Everything is re-installed with this round's cookies: what still carries the previous
    //    round belongs to Pods or Nodes that went away while the agent was down.
    //    The categories of components still waiting for the controller go once they have synced:
    //    policies when not realized within the wait, Egress always (its start does not wait).
    if (bridge.previousRound !== undefined && bridge.previousRound !== bridge.round) {
      const old = BigInt(bridge.previousRound & 0xffff) << ROUND_SHIFT;
      const deferred = new Map<CookieCategory, Promise<unknown>>();
      if (!policySynced && this.policy) deferred.set(CookieCategory.NetworkPolicy, this.policy.waitSynced());
      if (this.egress) deferred.set(CookieCategory.Egress, this.egress.synced());
      if (deferred.size === 0) await flows.deleteByCookie(old, ROUND_MASK);
      else {
        const byCategory = (c: CookieCategory) =>
          flows.deleteByCookie(old | (BigInt(c) << CATEGORY_SHIFT), ROUND_MASK | CATEGORY_MASK);
        for (const c of Object.values(CookieCategory)) if (!deferred.has(c)) await byCategory(c);
        for (const [c, synced] of deferred) {
          void synced
            .then(() => byCategory(c))
            .catch((err: unknown) =>
              this.log.warn({ err, category: c }, 'previous round’s flows not removed'),
            );
        }
      }
    }
    // 5b. Without AntreaProxy no owner holds a group, but a previous run with it on left its Service
    //     groups (their flows went with its round; groups carry no cookie): delete them. With it,
    //     the proxier pruned after its first sync.
    if (!this.proxier)
      await flows.pruneGroups().catch((err: unknown) => this.log.warn({ err }, 'stale groups not removed'));
    await persistRound(deps.bridges, config, bridge.round);

    // After ovs-vswitchd restarts it has no flows, and a netdev gateway may have lost its address.
    // Listeners hear only connections made from now on: each is a reconnection.
    this.unsubscribe = deps.sw.onConnected(() => void this.afterReconnect(gwIp, podCidr, mtu));

    // 7. CNI server.
    const ipam = new HostLocalIpam(deps.pluginRunner, {
      binDir: config.cniBinDir,
      dataDir: config.hostLocalDataDir,
      podCidr,
      gatewayIp: gwIp,
    });
    const batcher = deps.ovsdb
      ? new PortBatcher(deps.ovsdb, deps.bridges, config.bridgeName, this.log)
      : undefined;
    const configurator = new PodConfigurator({
      bridgeName: config.bridgeName,
      mtu,
      gatewayMac,
      runner: deps.nodeRunner,
      bridges: deps.bridges,
      flows,
      ctx,
      ipam,
      disableTxChecksumOffload: config.disableTxChecksumOffload,
      store: this.store,
      logger: this.log,
      randomBytes: deps.randomBytes,
      netnsExists: deps.netnsExists,
      ...(batcher
        ? {
            addPort: (spec: { name: string; externalIds: Record<string, string> }) => batcher.add(spec),
            deletePort: (name: string) => batcher.delete(name),
          }
        : {}),
    });
    this.cni = new CniServer({
      socketPath: config.cniSocket,
      configurator: new CniPodAdapter(configurator, gwIp, (command, seconds, ok) => {
        this.metrics.cniDuration.observe({ command, result: ok ? 'success' : 'failure' }, seconds);
        deps.onCniCommand?.(command, seconds, ok);
      }),
      supportedVersions: AGENT_CNI_VERSIONS,
      logger: this.log,
    });
    // Pods whose network namespace went away while the agent was down (their DEL could not reach
    // us) hold a port, flows and an IP: release them, as Antrea's reconciler does against the Pod list.
    for (const pod of this.store.list()) {
      if (pod.netns && !(await deps.netnsExists(pod.netns))) {
        this.log.info({ container: pod.containerId, netns: pod.netns }, 'releasing Pod whose netns is gone');
        await configurator.del(pod).catch((err) => this.log.warn({ err }, 'releasing stale Pod failed'));
      }
    }
    await this.cni.start();
    // The runtime sends Pods our way only once the conflist exists, i.e. once we can serve them.
    if (config.cniConfDir) await installCniConflist(config.cniConfDir);

    // Support bundles: what they hold (the API serves them; SupportBundleCollections upload them).
    const sb = deps.supportBundle;
    const bundleSource: AgentBundleSource = {
      logDirs: sb?.logDirs ?? [],
      runner: deps.nodeRunner,
      sw: deps.sw,
      pods: () => this.store.list(),
      policy: () => this.policy,
      agentInfo: () => buildAgentInfo(this.snapshot(), (deps.now ?? (() => new Date()))()),
      config: () => config,
      secrets: sb?.secrets ?? (async () => []),
      now: deps.now ?? (() => new Date()),
      ...(sb?.logs ? { logs: sb.logs } : {}),
      ...(sb?.configText !== undefined ? { configText: sb.configText } : {}),
      ...(deps.ovsdb ? { ovsdb: deps.ovsdb } : {}),
    };
    if (deps.policyConnection) {
      this.collections = new SupportBundleCollectionAgent({
        node: config.nodeName,
        connection: deps.policyConnection,
        collect: (since, secrets) =>
          agentBundleCollector({
            ...bundleSource,
            secrets: async () => [...(await bundleSource.secrets()), ...secrets],
          })(since, AbortSignal.timeout(300_000)),
        uploader: deps.bundleUploader ?? new FileServerBundleUploader(this.log),
        logger: this.log,
      });
      this.collections.start();
    }
    // PacketCapture: without the CRD (or RBAC for it) the Node still networks.
    if (config.packetCapture && deps.packetCapture) {
      const packetCaptures = new PacketCaptureController({
        ...deps.packetCapture,
        nodeName: config.nodeName,
        pods: () => this.store.list(),
        uploader: deps.bundleUploader ?? new FileServerBundleUploader(this.log),
        logger: this.log,
      });
      this.packetCaptures = packetCaptures;
      await packetCaptures
        .start(signal)
        .catch((err: unknown) =>
          this.log.warn({ err }, 'PacketCapture watch failed; PacketCapture disabled'),
        );
    }

    // 8. REST API and AntreaAgentInfo.
    if (deps.serveApi !== false) {
      const certs = agentApiCertificates(this.log);
      this.apiCerts = certs;
      certs.start(signal);
      // A rotation publishes the new CA at once rather than at the next heartbeat.
      certs.onChange(() => void this.info?.update());
      const loopbackToken = await writeLoopbackToken(config.apiLoopbackTokenPath, deps.randomBytes);
      this.api = buildRestApi(
        {
          pods: () => this.store.list(),
          agentInfo: () => buildAgentInfo(this.snapshot(), (deps.now ?? (() => new Date()))()),
          ready: () => this.isReady,
          sw: deps.sw,
          pipeline: this.pipeline,
          ownedFlows: (owner) => flows.owned(owner),
          serviceFlows: (namespace, name) => {
            const owners = flows.ownersWithPrefix(serviceOwnerPrefix(serviceKey(namespace, name)));
            return {
              flows: owners.flatMap((o) => flows.owned(o)),
              groupIds: owners.flatMap((o) => flows.ownedGroups(o).map((g) => g.groupId)),
            };
          },
          ...(deps.sw.dumpGroups && { dumpGroups: () => deps.sw.dumpGroups!() }),
          policy: () => this.policy,
          metrics: this.metrics,
          refreshMetrics: () => {
            this.metrics.localPods.set(this.store.size);
            this.metrics.flows.set(flows.size);
          },
          ...(deps.traceFlow && {
            tracing: {
              pods: () => this.store.list(),
              tracingPorts: () => ({
                gateway: { name: config.gatewayName, ip: gwIp, mac: gatewayMac },
                ...(bridge.tunnelOfport === undefined ? {} : { tunnelName: config.tunnelName }),
              }),
              traceFlow: deps.traceFlow,
              ...(deps.clusterLookup && { cluster: deps.clusterLookup }),
            },
          }),
        },
        this.log,
        { certificates: certs, auth: { ...deps.apiReviewers, loopbackToken, logger: this.log } },
      );
      registerAgentExtensions(this.api, {
        ...bundleSource,
        logLevel: deps.logLevel ?? new LogLevelControl(),
        enabledGates: new Set([
          ...(deps.policyConnection ? ['AntreaPolicy', 'NetworkPolicyStats', 'SupportBundleCollection'] : []),
          ...(deps.traceflowApi && deps.packetIn ? ['Traceflow'] : []),
          // EndpointSlices, zone hints and trafficDistribution are always used (GA, locked on in Antrea).
          ...(this.proxier
            ? ['AntreaProxy', 'EndpointSlice', 'TopologyAwareHints', 'ServiceTrafficDistribution']
            : []),
          ...(this.proxier && deps.datapathAppctl && config.cleanupStaleUDPSvcConntrack
            ? ['CleanupStaleUDPSvcConntrack']
            : []),
          ...(this.npl ? ['NodePortLocal'] : []),
          ...(this.nodePolicyRules ? ['NodeNetworkPolicy'] : []),
          ...(this.egress ? ['Egress'] : []),
          ...(this.serviceExternalIP ? ['ServiceExternalIP'] : []),
          ...(this.flowExporter ? ['FlowExporter'] : []),
          ...(this.packetCaptures ? ['PacketCapture'] : []),
          ...(this.trafficControl ? ['TrafficControl'] : []),
        ]),
        logger: this.log,
      });
      await this.api.listen({ host: config.apiBindAddress, port: config.apiPort });
    }
    if (deps.agentInfoWriter) {
      this.info = new AgentInfoUpdater({
        writer: deps.agentInfoWriter,
        snapshot: () => this.snapshot(),
        now: deps.now ?? (() => new Date()),
        intervalMs: deps.agentInfoIntervalMs ?? 60_000,
        logger: this.log,
      });
      await this.info.start();
    }
    this.isReady = true;
    this.log.info(
      { podCidr, gatewayIp: gwIp, mtu, pods: this.store.size, flows: flows.size, round: bridge.round },
      'agent ready',
    );
  }

  /** Stops serving; the datapath (bridge, ports, flows, routes) stays for the Pods. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.isReady = false;
    this.unsubscribe?.();
    this.unsubscribePods?.();
    this.packetIns?.stop();
    await this.traceflow?.stop();
    await this.collections?.stop();
    await this.packetCaptures?.stop();
    await this.policy?.stop();
    await this.proxier?.stop();
    await this.proxyAllHost?.stop();
    await this.healthChecks?.stop();
    await this.egress?.stop();
    await this.serviceExternalIP?.stop();
    await this.trafficControl?.stop();
    await this.npl?.stop();
    await this.flowExporter?.stop();
    await this.info?.stop();
    await this.api?.close();
    this.apiCerts?.stop();
    await this.cni?.stop();
    await this.deps.nodes.stop();
    await this.routes?.idle();
  }

  /** AntreaAgentInfo inputs. */
  snapshot(): AgentSnapshot {
    const rt = this.runtime;
    const perTable: Record<string, number> = {};
    for (const f of this.flows?.all() ?? []) {
      const name = this.pipeline.nameOf(f.table ?? 0) ?? String(f.table);
      perTable[name] = (perTable[name] ?? 0) + 1;
    }
    return {
      nodeName: this.deps.config.nodeName,
      version: AGENT_VERSION,
      podCidrs: rt.node.podCidrs,
      bridgeName: this.deps.config.bridgeName,
      flowTable: perTable,
      localPodNum: this.store.size,
      ovsdbUp: this.deps.ovsdbConnected?.() ?? true,
      openflowUp: this.deps.sw.connected,
      apiPort: this.deps.config.apiPort,
      ...(this.apiCerts ? { apiCaBundle: apiCaBundle(this.apiCerts.current()) } : {}),
      transportInterface: rt.transport.name,
      transportMtu: rt.transport.mtu,
      podMtu: rt.podMtu,
      nodeIp: rt.node.internalIp ?? '',
      transportPrefix: rt.transport.prefix,
    };
  }

  private async afterReconnect(gwIp: string, podCidr: string, mtu: number): Promise<void> {
    const started = performance.now();
    this.metrics.ofReconnects.inc();
    try {
      await this.flows?.replay();
      await this.host.configureLink(this.deps.config.gatewayName, {
        mtu,
        address: `${gwIp}/${parseCidr(podCidr).prefix}`,
      });
      await this.routes?.reinstallRoutes();
      this.lastReplayMs = performance.now() - started;
      this.log.info({ ms: Math.round(this.lastReplayMs) }, 'datapath restored after OpenFlow reconnection');
    } catch (err) {
      this.log.error({ err }, 'restoring the datapath after reconnection failed');
    }
  }

  private async waitForLocalNode(
    current: () => NodeInfo | undefined,
    onArrival: (cb: () => void) => void,
  ): Promise<NodeInfo> {
    const ok = (n: NodeInfo | undefined): n is NodeInfo =>
      !!n && !!n.internalIp && n.podCidrs.some((c) => !c.includes(':'));
    const deadline = Date.now() + (this.deps.nodeWaitMs ?? 60_000);
    for (;;) {
      const n = current();
      if (ok(n)) return n;
      if (Date.now() > deadline || this.stopped) {
        throw new AgentError(
          'AGENT_CONFIG_INVALID',
          `Node ${this.deps.config.nodeName} has no IPv4 podCIDR and InternalIP (is NodeIPAM running?)`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        onArrival(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
