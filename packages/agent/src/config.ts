import {
  AGENT_API_PORT,
  BRIDGE_NAME,
  CNI_SOCKET_PATH,
  GATEWAY_PORT_NAME,
  LOOPBACK_TOKEN_PATH,
  TUNNEL_PORT_NAME,
} from '@antrea-ts/apis';
import { AgentError } from './errors.js';
import type { FlowExporterConfig } from './flowexporter/config.js';
import { cidrContains, parseCidr } from './net/ipv4.js';
import { parsePortRange } from './nodeportlocal/model.js';
import { DEFAULT_FEATURES, type Feature } from './openflow/pipeline.js';

/** Antrea's TrafficEncapMode (pkg/agent/config/traffic_encap_mode.go). */
export type TrafficEncapMode = 'encap' | 'noEncap' | 'hybrid' | 'networkPolicyOnly';
export type TunnelType = 'geneve' | 'vxlan' | 'gre' | 'stt';

export const ENCAP_MODES: readonly TrafficEncapMode[] = ['encap', 'noEncap', 'hybrid', 'networkPolicyOnly'];
export const TUNNEL_TYPES: readonly TunnelType[] = ['geneve', 'vxlan', 'gre', 'stt'];

/**
 * Bytes a tunnel adds to each IPv4 packet (Antrea pkg/agent/config: outer IPv4 20 + UDP 8 +
 * Geneve/VXLAN 8 + inner Ethernet 14; GRE 4 + 14; STT: TCP-like 20 + STT 18, rounded as Antrea does).
 */
export const TUNNEL_OVERHEAD: Readonly<Record<TunnelType, number>> = Object.freeze({
  geneve: 50,
  vxlan: 50,
  gre: 38,
  stt: 50,
});

/** ofport requests Antrea makes so the numbers survive restarts (FirstControllerOFPort = 32768). */
export const TUNNEL_OFPORT = 32768;
export const GATEWAY_OFPORT = 32769;

export interface AgentConfig {
  readonly nodeName: string;
  readonly bridgeName: string;
  /** `system` on a real Node (kernel datapath), `netdev` for userspace OVS. */
  readonly datapathType: 'system' | 'netdev';
  readonly trafficEncapMode: TrafficEncapMode;
  readonly tunnelType: TunnelType;
  readonly gatewayName: string;
  readonly tunnelName: string;
  /** Pod interface MTU; 0 means derive from the transport interface minus tunnel overhead. */
  readonly defaultMtu: number;
  readonly cniSocket: string;
  /** Where the HTTPS API listens; all addresses by default, as Antrea's agent. */
  readonly apiBindAddress: string;
  readonly apiPort: number;
  /** The loopback token file for antctl inside the agent Pod (Antrea's path by default). */
  readonly apiLoopbackTokenPath: string;
  /** Directory of CNI plugin binaries (host-local). */
  readonly cniBinDir: string;
  /** host-local's dataDir; undefined uses the plugin's default (/var/lib/cni/networks). */
  readonly hostLocalDataDir: string | undefined;
  /** Masquerade Pod traffic leaving the Node (Antrea's default unless noSNAT). */
  readonly snat: boolean;
  /** Where to install 10-antrea.conflist for the container runtime; undefined installs nothing. */
  readonly cniConfDir: string | undefined;
  /**
   * Turn TX checksum offload off on each Pod's interface (Antrea's disableTXChecksumOffload), for
   * datapaths that do not finish offloaded checksums. Userspace OVS is one, and conntrack drops
   * what it cannot verify: makeConfig turns this on for `netdev` unless told otherwise.
   */
  readonly disableTxChecksumOffload: boolean;
  /** AntreaProxy (antrea-agent.conf `antreaProxy`): ClusterIP Services load-balanced in OVS. */
  readonly antreaProxy: AntreaProxyConfig;
  /**
   * FQDN policies: the DNS server (`ip` or `ip:port`) the agent resolves the policies' exact FQDNs
   * with (Antrea's `dnsServerOverride`); empty: the Node's /etc/resolv.conf.
   */
  readonly dnsServerOverride: string;
  /** FQDN policies: resolved addresses are kept at least this many seconds (Antrea's `fqdnCacheMinTTL`). */
  readonly fqdnCacheMinTTL: number;
  /**
   * Egress (antrea-agent.conf `featureGates.Egress`): SNAT IPs for selected Pods. On by default, as
   * in Antrea; off: no EgressMark table, and a previous run's Egress IPs and chains are removed.
   */
  readonly egress: boolean;
  /**
   * ServiceExternalIP (antrea-agent.conf `featureGates.ServiceExternalIP`, Beta, off by default): the
   * Node answers for the external IPs of annotated LoadBalancer Services placed on it; off: a
   * previous run's entries are removed.
   */
  readonly serviceExternalIP: boolean;
  /**
   * TrafficControl (antrea-agent.conf `featureGates.TrafficControl`, Alpha, off by default as in
   * Antrea): mirror or redirect selected Pods' packets to a port; off: no TrafficControl table.
   */
  readonly trafficControl: boolean;
  /** Egress settings (antrea-agent.conf `egress`), used when the gate is on. */
  readonly egressConfig: EgressConfig;
  /** NodePortLocal (antrea-agent.conf `nodePortLocal`). */
  readonly nodePortLocal: NodePortLocalConfig;
  /**
   * NodeNetworkPolicy (antrea-agent.conf `featureGates.NodeNetworkPolicy`, Alpha, off by default as
   * in Antrea): ClusterNetworkPolicies applied to Nodes are enforced in the Node's iptables; off: a
   * previous run's chains are removed.
   */
  readonly nodeNetworkPolicy: boolean;
  /**
   * CleanupStaleUDPSvcConntrack (antrea-agent.conf `featureGates`, Beta, on by default as in Antrea):
   * AntreaProxy deletes the conntrack entries of UDP connections to endpoints a Service lost.
   */
  readonly cleanupStaleUDPSvcConntrack: boolean;
  /** Flow exporter (antrea-agent.conf `flowExporter` + `featureGates.FlowExporter`); none: off. */
  readonly flowExporter?: FlowExporterConfig;
  /**
   * PacketCapture (antrea-agent.conf `featureGates.PacketCapture`, Alpha, off by default as in
   * Antrea): this Node captures the PacketCaptures of its Pods with tcpdump.
   */
  readonly packetCapture: boolean;
  /**
   * Antrea's `serviceCIDR`: with proxyAll the Node routes it to antrea-gw0 so its own processes
   * reach ClusterIPs; empty: each proxied ClusterIP gets a /32 route instead.
   */
  readonly serviceCIDR?: string;
}

/** Antrea's `egress` keys this agent honours. */
export interface EgressConfig {
  /** Destinations the selected Pods reach without Egress SNAT (from their own Node); IPv6 ones are ignored. */
  readonly exceptCIDRs: readonly string[];
  /** Pool IPs one Node holds at most (1-255; 0 means the default 255); a Node's annotation overrides it. */
  readonly maxEgressIPsPerNode: number;
}

/** Antrea's `nodePortLocal` keys. */
export interface NodePortLocalConfig {
  /** Off by default, as Antrea's; off: the agent removes the NodePortLocal chain at start. */
  readonly enable: boolean;
  /** Node ports handed out, `start-end` inclusive (Antrea's default 61000-62000). */
  readonly portRange: string;
}

/** Antrea's `antreaProxy` keys this agent honours. */
export interface AntreaProxyConfig {
  /** On by default, as Antrea's; off: the pipeline has no service tables (kube-proxy's job). */
  readonly enable: boolean;
  /** Services not proxied: `<namespace>/<name>` or a ClusterIP. */
  readonly skipServices: readonly string[];
  /**
   * Antrea's kube-proxy replacement: NodePorts (iptables DNAT to OVS on the Node), traffic from
   * outside the cluster to LoadBalancer and external IPs (externalTrafficPolicy honoured), the
   * Node's own traffic to Services (routed to antrea-gw0), healthCheckNodePort. Off by default.
   */
  readonly proxyAll: boolean;
  /** LoadBalancer ingress IPs are proxied like ClusterIPs (default true, as Antrea; not for ipMode Proxy). */
  readonly proxyLoadBalancerIPs: boolean;
  /** CIDRs whose Node addresses answer NodePorts; empty: every IPv4 address of the Node but the gateway's and loopback. */
  readonly nodePortAddresses: readonly string[];
  /** Proxy only Services labelled service.kubernetes.io/service-proxy-name=<this>; empty: unlabelled ones. */
  readonly serviceProxyName: string;
}

export const DEFAULT_CONFIG: Omit<AgentConfig, 'nodeName'> = Object.freeze({
  bridgeName: BRIDGE_NAME,
  datapathType: 'system',
  trafficEncapMode: 'encap',
  tunnelType: 'geneve',
  gatewayName: GATEWAY_PORT_NAME,
  tunnelName: TUNNEL_PORT_NAME,
  defaultMtu: 0,
  cniSocket: CNI_SOCKET_PATH,
  apiBindAddress: '0.0.0.0',
  apiPort: AGENT_API_PORT,
  apiLoopbackTokenPath: LOOPBACK_TOKEN_PATH,
  cniBinDir: '/opt/cni/bin',
  hostLocalDataDir: undefined,
  snat: true,
  cniConfDir: undefined,
  disableTxChecksumOffload: false,
  antreaProxy: Object.freeze({
    enable: true,
    skipServices: [],
    proxyAll: false,
    serviceProxyName: '',
    proxyLoadBalancerIPs: true,
    nodePortAddresses: [],
  }),
  dnsServerOverride: '',
  fqdnCacheMinTTL: 0,
  egress: true,
  serviceExternalIP: false,
  trafficControl: false,
  packetCapture: false,
  egressConfig: Object.freeze({ exceptCIDRs: Object.freeze([]), maxEgressIPsPerNode: 255 }),
  nodePortLocal: Object.freeze({ enable: false, portRange: '61000-62000' }),
  nodeNetworkPolicy: false,
  cleanupStaleUDPSvcConntrack: true,
});

export function makeConfig(partial: Partial<AgentConfig> & { nodeName: string }): AgentConfig {
  const cfg = { ...DEFAULT_CONFIG, ...partial };
  cfg.disableTxChecksumOffload = partial.disableTxChecksumOffload ?? cfg.datapathType === 'netdev';
  if (!ENCAP_MODES.includes(cfg.trafficEncapMode)) {
    throw new AgentError('AGENT_CONFIG_INVALID', `unknown trafficEncapMode ${cfg.trafficEncapMode}`);
  }
  if (!TUNNEL_TYPES.includes(cfg.tunnelType)) {
    throw new AgentError('AGENT_CONFIG_INVALID', `unknown tunnelType ${cfg.tunnelType}`);
  }
  const proxy = { ...DEFAULT_CONFIG.antreaProxy, ...cfg.antreaProxy };
  for (const cidr of [...proxy.nodePortAddresses, ...(cfg.serviceCIDR ? [cfg.serviceCIDR] : [])]) {
    if (!isIpv4Cidr(cidr)) {
      throw new AgentError(
        'AGENT_CONFIG_INVALID',
        `${cidr} is not an IPv4 CIDR (nodePortAddresses, serviceCIDR)`,
      );
    }
  }
  cfg.antreaProxy = Object.freeze({
    ...proxy,
    skipServices: Object.freeze([...proxy.skipServices]),
    nodePortAddresses: Object.freeze([...proxy.nodePortAddresses]),
  });
  if (cfg.nodePortLocal.enable && !parsePortRange(cfg.nodePortLocal.portRange)) {
    throw new AgentError(
      'AGENT_CONFIG_INVALID',
      `nodePortLocal.portRange ${cfg.nodePortLocal.portRange} is not <start>-<end> with 0 < start < end <= 65535`,
    );
  }
  cfg.nodePortLocal = Object.freeze({ ...cfg.nodePortLocal });
  cfg.egressConfig = egressConfig(cfg.egressConfig);
  if (!cfg.nodeName) throw new AgentError('AGENT_CONFIG_INVALID', 'nodeName is required');
  return Object.freeze(cfg);
}

function isIpv4Cidr(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

/** Checks and freezes the `egress` keys: CIDRs that parse, a cap of 0-255 (0: the default 255). */
function egressConfig(c: EgressConfig): EgressConfig {
  for (const cidr of c.exceptCIDRs) {
    if (!cidr.includes(':')) parseCidr(cidr);
    else if (!cidr.includes('/')) {
      throw new AgentError('AGENT_CONFIG_INVALID', `egress.exceptCIDRs: not a CIDR: ${cidr}`);
    }
  }
  const max = c.maxEgressIPsPerNode;
  if (!Number.isInteger(max) || max < 0 || max > 255) {
    throw new AgentError('AGENT_CONFIG_INVALID', `egress.maxEgressIPsPerNode ${max} is not an integer 0-255`);
  }
  return Object.freeze({
    exceptCIDRs: Object.freeze([...c.exceptCIDRs]),
    maxEgressIPsPerNode: max === 0 ? DEFAULT_CONFIG.egressConfig.maxEgressIPsPerNode : max,
  });
}

/** Whether the mode needs antrea-tun0 at all. */
export function needsTunnel(mode: TrafficEncapMode): boolean {
  return mode === 'encap' || mode === 'hybrid';
}

/** Pod MTU: the transport MTU minus what encapsulation adds, when Pod traffic can be encapsulated. */
export function podMtu(
  cfg: Pick<AgentConfig, 'defaultMtu' | 'trafficEncapMode' | 'tunnelType'>,
  transportMtu: number,
): number {
  if (cfg.defaultMtu > 0) return cfg.defaultMtu;
  return needsTunnel(cfg.trafficEncapMode) ? transportMtu - TUNNEL_OVERHEAD[cfg.tunnelType] : transportMtu;
}

/**
 * How traffic to a remote Node's Pods travels (Antrea route_linux.go / node route controller):
 * `tunnel` — flow-based tunnel with tun_dst; `route` — a host route via the peer Node IP (same L2
 * subnet, no encapsulation); `none` — leave it to the underlay or another CNI.
 */
export type PeerPath = 'tunnel' | 'route' | 'none';

export function peerPath(mode: TrafficEncapMode, localNodeSubnet: string, peerNodeIp: string): PeerPath {
  switch (mode) {
    case 'encap':
      return 'tunnel';
    case 'hybrid':
      return cidrContains(parseCidr(localNodeSubnet), peerNodeIp) ? 'route' : 'tunnel';
    case 'noEncap':
      return cidrContains(parseCidr(localNodeSubnet), peerNodeIp) ? 'route' : 'none';
    case 'networkPolicyOnly':
      return 'none';
  }
}

/** The datapath features the configuration asks for: the service tables only with AntreaProxy, EgressMark with Egress, TrafficControl with its gate. */
export function pipelineFeatures(
  cfg: Pick<AgentConfig, 'antreaProxy'> & { readonly egress?: boolean; readonly trafficControl?: boolean },
): ReadonlySet<Feature> {
  const features = new Set([...DEFAULT_FEATURES].filter((f) => f !== 'service' || cfg.antreaProxy.enable));
  if (cfg.egress) features.add('egress');
  if (cfg.trafficControl) features.add('trafficControl');
  return features;
}
