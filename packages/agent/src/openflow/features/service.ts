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
  HairpinCTMark,
  loadField,
  loadMark,
  matchMarks,
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
} from '../fields.js';
import type { OwnedGroup } from '../flow-cache.js';
import { type FlowContext, gotoNext, gotoTable, packetInAction, tableFlow } from '../flow-context.js';
import { ipv4Value } from './gateway.js';
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
export function serviceStaticFlows(ctx: FlowContext): Flow[] {
  const established: MatchSpec = { ip: true, ct_state: '-new-inv+trk' };
  return [
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

function serviceMatch(svc: ServicePortFlowConfig, state: RegMark): MatchSpec {
  const p = PROTO[svc.protocol];
  return { [p.shorthand]: true, nw_dst: svc.clusterIp, [p.dst]: svc.port, ...matchMarks(state) };
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
      { kind: 'load', dst: sub(ServiceEPStateField), src: { value: BigInt(EpSelectedRegMark.value) } },
      { kind: 'load', dst: sub(RewriteMACField), src: { value: 1n } },
    ],
  };
}

/** Flows and the select group of one service port (owner key chosen by the proxier). */
export function servicePortFlows(
  ctx: FlowContext,
  svc: ServicePortFlowConfig,
  selection: EndpointSelection,
): { flows: Flow[]; groups: ServiceGroup[] } {
  const p = PROTO[svc.protocol];
  const affinity = svc.affinityTimeoutSeconds;
  const group: ServiceGroup = {
    type: 'select',
    groupId: svc.groupId,
    ...(selection === 'fiveTuple' ? { selection: fiveTupleSelection(p) } : {}),
    buckets: svc.endpoints.map((ep, i) => ({
      bucketId: i,
      weight: 100,
      actions: [
        loadField(EndpointIPField, ipv4Number(ep.ip)),
        loadField(EndpointPortField, ep.port),
        // With affinity the choice is learned first (ServiceLB's EpToLearn flow), then DNATed.
        { type: 'resubmit', table: ctx.pipeline.id(affinity === undefined ? 'EndpointDNAT' : 'ServiceLB') },
      ],
    })),
  };
  const flows: Flow[] = [];
  if (svc.endpoints.length === 0) {
    flows.push(
      tableFlow(ctx, C, 'ServiceLB', 200, serviceMatch(svc, EpToSelectRegMark), [
        loadMark(SvcNoEpRegMark),
        gotoTable(ctx, 'EndpointDNAT'),
      ]),
    );
    return { flows, groups: [group] };
  }
  flows.push(
    tableFlow(ctx, C, 'ServiceLB', 200, serviceMatch(svc, EpToSelectRegMark), [
      loadMark(RewriteMACRegMark),
      loadMark(affinity === undefined ? EpSelectedRegMark : EpToLearnRegMark),
      loadField(ServiceGroupIDField, svc.groupId),
      { type: 'group', groupId: svc.groupId },
    ]),
  );
  if (affinity !== undefined) {
    flows.push(
      tableFlow(ctx, C, 'ServiceLB', 190, serviceMatch(svc, EpToLearnRegMark), [
        learnAffinity(ctx, svc, affinity),
        loadMark(EpSelectedRegMark),
        gotoTable(ctx, 'EndpointDNAT'),
      ]),
    );
  }
  for (const ep of uniqueEndpoints(svc.endpoints)) {
    flows.push(
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
            value: svc.groupId,
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
  return { flows, groups: [group] };
}

function uniqueEndpoints(endpoints: readonly ServiceEndpoint[]): ServiceEndpoint[] {
  const seen = new Map<string, ServiceEndpoint>();
  for (const ep of endpoints) seen.set(`${ep.ip}:${ep.port}`, ep);
  return [...seen.values()];
}

const ipv4Number = (ip: string): number => Number(ipv4Value(ip));
