import { CRD_KINDS, type Traceflow, type TraceflowStatus } from '@antrea-ts/apis';
import { TranslationError } from '../errors.js';

export interface NamespacedRef {
  namespace: string;
  name: string;
}

/** Resolves inventory external ids (Kubernetes UIDs) to objects. */
export interface UidLookup {
  pod(uid: string): NamespacedRef | undefined;
  service(uid: string): NamespacedRef | undefined;
  nodeUid(name: string): string | undefined;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Traceflow CR name for an NSX traceflow id (DNS subdomain, deterministic). */
export function traceflowName(id: string): string {
  const clean = id
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return `nsx-${clean || 'traceflow'}`.slice(0, 253);
}

function defined<T extends Json>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}

/**
 * NSX AntreaTraceflowConfig -> Antrea Traceflow CR (research notes §5.1): the source Pod and the
 * destination Pod or Service come from inventory external ids; otherwise the packet's destination
 * IP is the destination. Header fields map one to one.
 */
export function traceflowFromNsx(config: Json & { id: string }, lookup: UidLookup): Traceflow {
  const path = `/infra/antrea/traceflows/${config.id}`;
  const src = lookup.pod(String(config['source_external_id'] ?? ''));
  if (!src)
    throw new TranslationError(
      'TRANSLATION_INVALID',
      path,
      `source ${String(config['source_external_id'])} is not a Pod of this cluster`,
    );
  const packet = obj(config['packet']);
  const ip = obj(packet['ip_header']);
  const ip6 = packet['ipv6_header'] === undefined ? undefined : obj(packet['ipv6_header']);
  const th = obj(packet['transport_header']);
  const dstId =
    typeof config['destination_external_id'] === 'string' ? config['destination_external_id'] : '';
  let destination: Traceflow['spec']['destination'];
  const dstPod = dstId ? lookup.pod(dstId) : undefined;
  const dstSvc = dstId && !dstPod ? lookup.service(dstId) : undefined;
  if (dstPod) destination = { namespace: dstPod.namespace, pod: dstPod.name };
  else if (dstSvc) destination = { namespace: dstSvc.namespace, service: dstSvc.name };
  else if (typeof ip['dst_ip'] === 'string') destination = { ip: ip['dst_ip'] };
  else if (ip6 && typeof ip6['dst_ip'] === 'string') destination = { ip: ip6['dst_ip'] };
  else
    throw new TranslationError(
      'TRANSLATION_INVALID',
      path,
      `destination ${dstId || '(none)'} is neither a Pod, a Service nor an IP`,
    );
  const tcp = th['tcp_header'] === undefined ? undefined : obj(th['tcp_header']);
  const udp = th['udp_header'] === undefined ? undefined : obj(th['udp_header']);
  const icmp = th['icmp_echo_request_header'] === undefined ? undefined : obj(th['icmp_echo_request_header']);
  const transportHeader = defined({
    tcp: tcp
      ? (defined({
          srcPort: num(tcp['src_port']),
          dstPort: num(tcp['dst_port']),
          flags: num(tcp['tcp_flags']),
        }) ?? {})
      : undefined,
    udp: udp ? (defined({ srcPort: num(udp['src_port']), dstPort: num(udp['dst_port']) }) ?? {}) : undefined,
    icmp: icmp ? (defined({ id: num(icmp['id']), sequence: num(icmp['sequence']) }) ?? {}) : undefined,
  });
  const spec: Traceflow['spec'] = {
    source: { namespace: src.namespace, pod: src.name },
    destination,
    packet:
      defined({
        ipHeader: ip6
          ? undefined
          : defined({ protocol: num(ip['protocol']), ttl: num(ip['ttl']), flags: num(ip['flags']) }),
        ipv6Header: ip6
          ? (defined({ nextHeader: num(ip6['next_header']), hopLimit: num(ip6['hop_limit']) }) ?? {})
          : undefined,
        transportHeader,
      }) ?? {},
  };
  return {
    apiVersion: CRD_KINDS.Traceflow.apiVersion as 'crd.antrea.io/v1beta1',
    kind: 'Traceflow',
    metadata: {
      name: traceflowName(config.id),
      labels: { 'ccp-adapter.antrea.tanzu.vmware.com/managedBy': 'mp-adapter' },
    },
    spec,
  };
}

const COMPONENTS: Record<string, string> = {
  SpoofGuard: 'ANTREA_SPOOFGUARD',
  LB: 'ANTREA_LB',
  Routing: 'ANTREA_ROUTING',
  NetworkPolicy: 'ANTREA_DFW',
  Forwarding: 'ANTREA_FORWARDING',
};
const ACTIONS: Record<string, string> = {
  Delivered: 'AntreaTraceflowObservationDelivered',
  Received: 'AntreaTraceflowObservationReceived',
  Forwarded: 'AntreaTraceflowObservationForwarded',
  ForwardedOutOfNetwork: 'AntreaTraceflowObservationForwarded',
  ForwardedToEgressNode: 'AntreaTraceflowObservationForwarded',
  MarkedForSNAT: 'AntreaTraceflowObservationForwarded',
  Dropped: 'AntreaTraceflowObservationDropped',
  // NSX has no "rejected" observation; a reject drops the traced packet.
  Rejected: 'AntreaTraceflowObservationDropped',
};

/** Antrea Traceflow status -> the result the adapter reports (phase, reason, NSX observations). */
export function traceflowResultToNsx(status: TraceflowStatus, lookup: UidLookup): Json {
  const observations: Json[] = [];
  for (const r of status.results ?? []) {
    for (const o of r.observations ?? []) {
      observations.push({
        component_type: COMPONENTS[o.component ?? ''] ?? 'UNKNOWN',
        observation_type: ACTIONS[o.action ?? ''] ?? 'AntreaTraceflowObservationForwarded',
        container_node_id: lookup.nodeUid(r.node ?? '') ?? r.node ?? '',
        ...(r.timestamp !== undefined ? { timestamp: r.timestamp * 1000 } : {}),
      });
    }
  }
  return {
    phase: status.phase === 'Succeeded' ? 'SUCCEEDED' : 'FAILED',
    ...(status.reason ? { reason: status.reason } : {}),
    observations,
    results: (status.results ?? []) as unknown as Json[],
  };
}
