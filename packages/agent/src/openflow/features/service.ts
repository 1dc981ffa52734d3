import { CT_ZONE } from '@antrea-ts/apis';
import type { Action, Flow, LearnSpec, MatchSpec, SelectionMethod } from '@antrea-ts/openflow';
import { OFPP, subfield } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  ConnSNATCTMark,
  ConnSourceCTMarkField,
  EndpointIPField,
  EndpointPortField,
  EpSelectedRegMark,
  EpToLearnRegMark,
  EpToSelectRegMark,
  FromGatewayRegMark,
  FromLocalNodeRegMark,
  HairpinCTMark,
  loadField,
  loadMark,
  matchMarks,
  NotFromLocalNodeRegMark,
  OutputToOFPortRegMark,
  PktSourceField,
  type RegField,
  type RegMark,
  RewriteMACField,
  RewriteMACRegMark,
  ServiceCTMark,
  ServiceEPStateField,
  ServiceGroupIDField,
  SvcNoEpRegMark,
  ToClusterServiceField,
  ToClusterServiceRegMark,
  ToGatewayRegMark,
  ToNodePortAddressRegMark,
  ToTunnelRegMark,
} from '../fields.js';
import type { OwnedGroup } from '../flow-cache.js';
import { type FlowContext, gotoNext, gotoTable, packetInAction, tableFlow } from '../flow-context.js';
import { ipv4Value, macValue } from './gateway.js';
import { REJECT_PACKET_IN_OP } from './network-policy.js';

/**
 * AntreaProxy's flows (Antrea pkg/agent/openflow/service.go and pipeline.go): new connections to
 * a ClusterIP:port pick an endpoint in a select group and are DNATed in conntrack; established
 * ones skip the service tables and conntrack translates them both ways. A Pod reaching itself
 * through its Service is SNATed to a virtual IP so the reply comes back through OVS (hairpin).
 */

const C = CookieCategory.Service;

/** Conntrack zone of AntreaProxy's SNAT (hairpin connections), as Antrea's SNATCtZone. */
export const SNAT_CT_ZONE = 65521;
/** Antrea's virtual IP that hairpin connections are SNATed to, so replies come back through OVS. */
export const VIRTUAL_SERVICE_IP = '169.254.0.253';

/**
 * Antrea's virtual IP for NodePort traffic from outside (proxyAll): the Node's iptables DNAT
 * NodeIP:nodePort to it, and a route sends it into OVS through the gateway, where the NodePort
 * flows pick an endpoint.
 */
export const VIRTUAL_NODEPORT_DNAT_IP = '169.254.0.252';

export type ServiceProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface ServiceEndpoint {
  readonly ip: string;
  readonly port: number;
}

export interface ServicePortFlowConfig {
  /** IPv4 text. */
  readonly clusterIp: string;
  readonly port: number;
  readonly protocol: ServiceProtocol;
  /** Unique per service port on this Node (1..0xfffffff0); also the select group's id. */
  readonly groupId: number;
  /** Empty: clients are rejected (TCP RST / ICMP port unreachable from the ClusterIP). */
  readonly endpoints: readonly ServiceEndpoint[];
  /** Set: ClientIP session affinity with this timeout. */
  readonly affinityTimeoutSeconds?: number;
  /** LoadBalancer ingress IPs and externalIPs (IPv4): more VIPs on the same port and group. */
  readonly externalIps?: readonly string[];
  /** proxyAll: the service port's nodePort, matched on every NodePort address. */
  readonly nodePort?: number;
  /**
   * externalTrafficPolicy Local with proxyAll: what arrives from the gateway (outside the cluster)
   * on an external IP or the nodePort goes to this group of this Node's endpoints only, keeping the
   * client's address; none of them: it is dropped. Pods still use every endpoint.
   */
  readonly local?: { readonly groupId: number; readonly endpoints: readonly ServiceEndpoint[] };
}

/** What the proxyAll static flows need to know about this Node. */
export interface ProxyAllNode {
  readonly gatewayIp: string;
  readonly gatewayMac: string;
  /** The addresses NodePorts answer on (nodePortAddresses); the virtual NodePort IP is added. */
  readonly nodePortAddresses: readonly string[];
}

/** The group of one service port: what FlowCache holds per owner. */
export type ServiceGroup = OwnedGroup;

const PROTO: Record<ServiceProtocol, { shorthand: string; number: number; src: string; dst: string }> = {
  TCP: { shorthand: 'tcp', number: 6, src: 'tcp_src', dst: 'tcp_dst' },
  UDP: { shorthand: 'udp', number: 17, src: 'udp_src', dst: 'udp_dst' },
  SCTP: { shorthand: 'sctp', number: 132, src: 'sctp_src', dst: 'sctp_dst' },
};

/**
 * How the select groups pick an endpoint. `datapath`: no selection method, so OVS hashes in the
 * datapath (dp_hash with its symmetric L4 hash): no upcall per connection, Antrea's choice, and the
 * kernel datapath's hash covers TCP and UDP ports alike. `fiveTuple`: selection_method=hash over
 * addresses and ports, which ovs-vswitchd computes for each new connection; the userspace datapath
 * needs it, as its dp_hash leaves UDP ports out and sent every datagram of one client to one
 * endpoint.
 */
export type EndpointSelection = 'datapath' | 'fiveTuple';

/** The selection a datapath type needs (see EndpointSelection). */
export const endpointSelectionFor = (datapathType: 'system' | 'netdev'): EndpointSelection =>
  datapathType === 'netdev' ? 'fiveTuple' : 'datapath';

/**
 * The five-tuple selection method, in the fields' meta-flow order as OVS reports them (the protocol
 * is the service port's own: the ServiceLB flow matches it, so the port fields' prerequisites hold).
 */
function fiveTupleSelection(p: (typeof PROTO)[ServiceProtocol]): SelectionMethod {
  return { method: 'hash', fields: ['nw_src', 'nw_dst', p.src, p.dst].map((field) => ({ field })) };
}

const sub = (rf: RegField) => subfield(rf.field, rf.start, rf.end);

/** The table after EndpointDNAT: where established connections and non-service packets go on. */
const afterServiceTables = (ctx: FlowContext) => gotoNext(ctx, 'EndpointDNAT');

/** Flows every Node needs once when the service feature is on (owner key 'service'). */
export function serviceStaticFlows(ctx: FlowContext, proxyAll?: ProxyAllNode): Flow[] {
  const established: MatchSpec = { ip: true, ct_state: '-new-inv+trk' };
  return [
    ...(proxyAll ? proxyAllStaticFlows(ctx, proxyAll) : []),
    // Replies to the hairpin virtual IP: un-SNAT first, then conntrack as usual.
    tableFlow(ctx, C, 'UnSNAT', 200, { ip: true, nw_dst: VIRTUAL_SERVICE_IP }, [
      { type: 'ct', table: ctx.pipeline.id('ConntrackZone'), zone: SNAT_CT_ZONE, nat: {} },
    ]),
    // Established Service connections: conntrack already translated them; their MACs must be
    // rewritten (the client sent to the gateway MAC, the reply goes back as routed).
    tableFlow(ctx, C, 'ConntrackState', 200, { ...established, ...matchMarks(ServiceCTMark) }, [
      loadMark(RewriteMACRegMark),
      afterServiceTables(ctx),
    ]),
    tableFlow(ctx, C, 'ConntrackState', 190, established, [afterServiceTables(ctx)]),
    // SessionAffinity's learned flows load the remembered endpoint; ServiceLB then selects only
    // for packets that found none.
    tableFlow(ctx, C, 'PreRoutingClassifier', 200, { ip: true }, [
      ...(proxyAll ? [{ type: 'resubmit' as const, table: ctx.pipeline.id('NodePortMark') }] : []),
      { type: 'resubmit', table: ctx.pipeline.id('SessionAffinity') },
      { type: 'resubmit', table: ctx.pipeline.id('ServiceLB') },
    ]),
    tableFlow(ctx, C, 'SessionAffinity', 1, {}, [loadMark(EpToSelectRegMark)]),
    // A Service without endpoints: answered as if the ClusterIP refused (Reject's packet-in).
    tableFlow(ctx, C, 'EndpointDNAT', 210, matchMarks(SvcNoEpRegMark), [packetInAction(REJECT_PACKET_IN_OP)]),
    // Hairpin: the SNATed connection (zone 65521) is marked Service too, so ConntrackCommit skips it.
    tableFlow(ctx, C, 'SNAT', 200, { ip: true, ct_state: '+new+trk', ...matchMarks(HairpinCTMark) }, [
      {
        type: 'ct',
        commit: true,
        table: ctx.pipeline.id('L2ForwardingCalc'),
        zone: SNAT_CT_ZONE,
        nat: { kind: 'src', addrMin: VIRTUAL_SERVICE_IP },
        exec: [loadMark(ServiceCTMark), loadMark(HairpinCTMark)],
      },
    ]),
    // Later packets of the client's direction only: replies were un-SNATed by UnSNAT already, and
    // a second lookup would lose their zone-65520 Hairpin mark that Output needs.
    tableFlow(ctx, C, 'SNAT', 190, { ip: true, ct_state: '-new-rpl+trk', ...matchMarks(ConnSNATCTMark) }, [
      { type: 'ct', table: ctx.pipeline.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: {} },
    ]),
    // Service connections were committed with their DNAT already.
    tableFlow(
      ctx,
      C,
      'ConntrackCommit',
      210,
      { ip: true, ct_state: '+new+trk', ...matchMarks(ServiceCTMark) },
      [gotoNext(ctx, 'ConntrackCommit')],
    ),
    // Hairpin packets leave by the port they came in on (output to in_port is otherwise dropped).
    tableFlow(ctx, C, 'Output', 210, { ...matchMarks(OutputToOFPortRegMark), ...matchMarks(HairpinCTMark) }, [
      { type: 'output', port: OFPP.IN_PORT },
    ]),
  ];
}

/**
 * proxyAll (Antrea's kube-proxy replacement): NodePort addresses marked, connections from outside
 * the cluster (they come in through the gateway) SNATed to the gateway IP when their endpoint is on
 * another Node, so the reply comes back through this Node and its conntrack; replies to the
 * gateway's connections routed back to it.
 */
function proxyAllStaticFlows(ctx: FlowContext, node: ProxyAllNode): Flow[] {
  const connFromGateway = { field: ConnSourceCTMarkField, value: FromGatewayRegMark.value };
  const snatToGateway: Action = {
    type: 'ct',
    commit: true,
    table: ctx.pipeline.id('SNAT'),
    zone: CT_ZONE,
    exec: [loadMark(ConnSNATCTMark)],
  };
  // The Node's own connections come in through the gateway too, from the gateway IP (routed VIPs)
  // or from the NodeIP (its own NodePorts, DNATed by OUTPUT): not "from outside" (Antrea's FromLocal).
  const fromNode = (nw_src: string): MatchSpec => ({ ip: true, nw_src, ...matchMarks(FromGatewayRegMark) });
  const nodeSources = [...new Set([node.gatewayIp, ...node.nodePortAddresses])];
  return [
    ...[...new Set([...node.nodePortAddresses, VIRTUAL_NODEPORT_DNAT_IP])].map((ip) =>
      // No goto: PreRoutingClassifier resubmits here and goes on by itself.
      tableFlow(ctx, C, 'NodePortMark', 200, { ip: true, nw_dst: ip }, [loadMark(ToNodePortAddressRegMark)]),
    ),
    ...nodeSources.flatMap((src) => [
      tableFlow(ctx, C, 'NodePortMark', 210, { ...fromNode(src), nw_dst: VIRTUAL_NODEPORT_DNAT_IP }, [
        loadMark(ToNodePortAddressRegMark),
        loadMark(FromLocalNodeRegMark),
      ]),
      tableFlow(ctx, C, 'NodePortMark', 205, fromNode(src), [loadMark(FromLocalNodeRegMark)]),
    ]),
    tableFlow(ctx, C, 'NodePortMark', 1, {}, []),
    // Replies to the gateway IP from other Nodes' endpoints: un-SNAT first (tunnel packets enter here too).
    tableFlow(ctx, C, 'UnSNAT', 200, { ip: true, nw_dst: node.gatewayIp }, [
      { type: 'ct', table: ctx.pipeline.id('ConntrackZone'), zone: SNAT_CT_ZONE, nat: {} },
    ]),
    tableFlow(
      ctx,
      C,
      'SNATMark',
      200,
      {
        ip: true,
        ct_state: '+new+trk',
        ...matchMarks(FromGatewayRegMark, ToTunnelRegMark, ToClusterServiceRegMark),
      },
      [snatToGateway],
    ),
    // The Node's own Service connections to another Node's endpoint, whatever the Service's
    // externalTrafficPolicy (the NodeIP source would not bring the reply back through OVS).
    tableFlow(
      ctx,
      C,
      'SNATMark',
      195,
      {
        ip: true,
        ct_state: '+new+trk',
        ...matchMarks(FromGatewayRegMark, ToTunnelRegMark, FromLocalNodeRegMark, ServiceCTMark),
      },
      [snatToGateway],
    ),
    tableFlow(
      ctx,
      C,
      'SNAT',
      195,
      { ip: true, ct_state: '+new+trk', ...matchMarks(ConnSNATCTMark, FromGatewayRegMark) },
      [
        {
          type: 'ct',
          commit: true,
          table: ctx.pipeline.id('L2ForwardingCalc'),
          zone: SNAT_CT_ZONE,
          nat: { kind: 'src', addrMin: node.gatewayIp },
          exec: [loadMark(ServiceCTMark)],
        },
      ],
    ),
    // Replies of connections the gateway started (outside clients, the Node itself) go back to it,
    // also when they arrive through the tunnel with the virtual MAC; above Egress's 190 flows, as a
    // reply must never leave through an Egress IP.
    tableFlow(
      ctx,
      C,
      'L3Forwarding',
      195,
      { ip: true, ct_state: '+rpl+trk', ...matchMarks(connFromGateway) },
      [
        { type: 'set_field', field: 'eth_dst', value: macValue(node.gatewayMac) },
        loadMark(ToGatewayRegMark),
        gotoTable(ctx, 'L3DecTTL'),
      ],
    ),
  ];
}

/** A Pod's own hairpin mark (SNATMark): its connection to itself through a Service gets SNAT. */
export function podHairpinFlows(ctx: FlowContext, podIp: string): Flow[] {
  if (!ctx.pipeline.has('SNATMark')) return [];
  return [
    tableFlow(ctx, C, 'SNATMark', 190, { ip: true, ct_state: '+new+trk', nw_src: podIp, nw_dst: podIp }, [
      {
        type: 'ct',
        commit: true,
        table: ctx.pipeline.id('SNAT'),
        zone: CT_ZONE,
        exec: [loadMark(ConnSNATCTMark), loadMark(HairpinCTMark)],
      },
    ]),
  ];
}

/** One address a service port answers on, as a match without the endpoint-state mark. */
interface Frontend {
  readonly match: MatchSpec;
  /** An external address (LoadBalancer, externalIP, NodePort): Local policy and Cluster SNAT apply. */
  readonly external: boolean;
}

function frontends(svc: ServicePortFlowConfig): Frontend[] {
  const p = PROTO[svc.protocol];
  const vip = (ip: string, external: boolean): Frontend => ({
    match: { [p.shorthand]: true, nw_dst: ip, [p.dst]: svc.port },
    external,
  });
  const out = [vip(svc.clusterIp, false), ...(svc.externalIps ?? []).map((ip) => vip(ip, true))];
  if (svc.nodePort !== undefined) {
    out.push({
      match: { [p.shorthand]: true, [p.dst]: svc.nodePort, ...matchMarks(ToNodePortAddressRegMark) },
      external: true,
    });
  }
  return out;
}

/** `match` plus more marks, merged per register. */
function withMarks(match: MatchSpec, ...marks: RegMark[]): MatchSpec {
  const merged = matchMarks(...marks);
  for (const [field, v] of Object.entries(match)) {
    const m = merged[field];
    if (m === undefined || typeof v !== 'object' || typeof m !== 'object') continue;
    const a = v as { value: bigint; mask: bigint };
    const b = m as { value: bigint; mask: bigint };
    merged[field] = { value: a.value | b.value, mask: a.mask | b.mask };
  }
  return { ...match, ...merged };
}

/** The learned flow of ClientIP affinity: this client, this Service port -> the same endpoint. */
function learnAffinity(ctx: FlowContext, svc: ServicePortFlowConfig, timeout: number): Action {
  const p = PROTO[svc.protocol];
  const fromPacket = (field: string): LearnSpec => ({
    kind: 'match',
    dst: subfield(field),
    src: subfield(field),
  });
  const copy = (rf: RegField): LearnSpec => ({ kind: 'load', dst: sub(rf), src: sub(rf) });
  return {
    type: 'learn',
    table: ctx.pipeline.id('SessionAffinity'),
    hardTimeout: timeout,
    priority: 200,
    deleteLearned: true,
    // OVS deletes learned flows when the last learning flow with their cookie goes: a cookie per
    // service port makes a deleted port's clients forget their endpoint now, not hours later.
    cookie: ctx.cookies.cookie(C, BigInt(svc.groupId)),
    specs: [
      { kind: 'match', dst: subfield('eth_type'), src: { value: 0x0800n } },
      { kind: 'match', dst: subfield('ip_proto'), src: { value: BigInt(p.number) } },
      fromPacket('nw_dst'),
      fromPacket(p.dst),
      fromPacket('nw_src'),
      copy(EndpointIPField),
      copy(EndpointPortField),
      copy(ServiceGroupIDField),
      // An outside client's later connections to another Node's endpoint are SNATed like its first.
      copy(ToClusterServiceField),
      { kind: 'load', dst: sub(ServiceEPStateField), src: { value: BigInt(EpSelectedRegMark.value) } },
      { kind: 'load', dst: sub(RewriteMACField), src: { value: 1n } },
    ],
  };
}

/** A select group over `endpoints`, each bucket loading its endpoint and going on to DNAT. */
function selectGroup(
  ctx: FlowContext,
  groupId: number,
  endpoints: readonly ServiceEndpoint[],
  svc: ServicePortFlowConfig,
  selection: EndpointSelection,
): ServiceGroup {
  return {
    type: 'select',
    groupId,
    ...(selection === 'fiveTuple' ? { selection: fiveTupleSelection(PROTO[svc.protocol]) } : {}),
    buckets: endpoints.map((ep, i) => ({
      bucketId: i,
      weight: 100,
      actions: [
        loadField(EndpointIPField, ipv4Number(ep.ip)),
        loadField(EndpointPortField, ep.port),
        // With affinity the choice is learned first (ServiceLB's EpToLearn flow), then DNATed.
        {
          type: 'resubmit',
          table: ctx.pipeline.id(svc.affinityTimeoutSeconds === undefined ? 'EndpointDNAT' : 'ServiceLB'),
        },
      ],
    })),
  };
}

/** ServiceLB's actions for a new connection that picks an endpoint in `groupId`. */
function selectActions(svc: ServicePortFlowConfig, groupId: number, extra: RegMark[]): Action[] {
  return [
    loadMark(RewriteMACRegMark),
    ...extra.map(loadMark),
    loadMark(svc.affinityTimeoutSeconds === undefined ? EpSelectedRegMark : EpToLearnRegMark),
    loadField(ServiceGroupIDField, groupId),
    { type: 'group', groupId },
  ];
}

/** EndpointDNAT's flows for the endpoints of one group. */
function dnatFlows(
  ctx: FlowContext,
  svc: ServicePortFlowConfig,
  groupId: number,
  endpoints: readonly ServiceEndpoint[],
): Flow[] {
  const p = PROTO[svc.protocol];
  return uniqueEndpoints(endpoints).map((ep) =>
    tableFlow(
      ctx,
      C,
      'EndpointDNAT',
      200,
      {
        [p.shorthand]: true,
        [EndpointIPField.field]: ipv4Number(ep.ip),
        ...matchMarks({ field: EndpointPortField, value: ep.port }, EpSelectedRegMark, {
          field: ServiceGroupIDField,
          value: groupId,
        }),
      },
      [
        {
          type: 'ct',
          commit: true,
          table: ctx.pipeline.next('EndpointDNAT'),
          zone: CT_ZONE,
          nat: { kind: 'dst', addrMin: ep.ip, portMin: ep.port },
          exec: [
            loadMark(ServiceCTMark),
            { type: 'move', src: sub(PktSourceField), dst: sub(ConnSourceCTMarkField) },
          ],
        },
      ],
    ),
  );
}

/** Flows and the select group(s) of one service port (owner key chosen by the proxier). */
export function servicePortFlows(
  ctx: FlowContext,
  svc: ServicePortFlowConfig,
  selection: EndpointSelection,
): { flows: Flow[]; groups: ServiceGroup[] } {
  const affinity = svc.affinityTimeoutSeconds;
  const groups = [selectGroup(ctx, svc.groupId, svc.endpoints, svc, selection)];
  const flows: Flow[] = [];
  const local = svc.local;
  if (local) groups.push(selectGroup(ctx, local.groupId, local.endpoints, svc, selection));
  for (const fe of frontends(svc)) {
    const select = withMarks(fe.match, EpToSelectRegMark);
    if (fe.external && local) {
      // From outside the cluster (not the Node itself): this Node's endpoints only, or nothing (dropped).
      flows.push(
        tableFlow(
          ctx,
          C,
          'ServiceLB',
          210,
          withMarks(fe.match, EpToSelectRegMark, FromGatewayRegMark, NotFromLocalNodeRegMark),
          local.endpoints.length === 0 ? [] : selectActions(svc, local.groupId, []),
        ),
      );
    }
    if (svc.endpoints.length === 0) {
      flows.push(
        tableFlow(ctx, C, 'ServiceLB', 200, select, [
          loadMark(SvcNoEpRegMark),
          gotoTable(ctx, 'EndpointDNAT'),
        ]),
      );
      continue;
    }
    const clusterSnat = fe.external && !local ? [ToClusterServiceRegMark] : [];
    flows.push(tableFlow(ctx, C, 'ServiceLB', 200, select, selectActions(svc, svc.groupId, clusterSnat)));
    if (affinity !== undefined) {
      flows.push(
        tableFlow(ctx, C, 'ServiceLB', 190, withMarks(fe.match, EpToLearnRegMark), [
          learnAffinity(ctx, svc, affinity),
          loadMark(EpSelectedRegMark),
          gotoTable(ctx, 'EndpointDNAT'),
        ]),
      );
    }
  }
  if (svc.endpoints.length > 0) flows.push(...dnatFlows(ctx, svc, svc.groupId, svc.endpoints));
  if (local) flows.push(...dnatFlows(ctx, svc, local.groupId, local.endpoints));
  return { flows, groups };
}

function uniqueEndpoints(endpoints: readonly ServiceEndpoint[]): ServiceEndpoint[] {
  const seen = new Map<string, ServiceEndpoint>();
  for (const ep of endpoints) seen.set(`${ep.ip}:${ep.port}`, ep);
  return [...seen.values()];
}

const ipv4Number = (ip: string): number => Number(ipv4Value(ip));
