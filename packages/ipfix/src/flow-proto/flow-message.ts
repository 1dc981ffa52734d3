// The mapping between a flow record by IPFIX element name (what the agent's template carries and
// the Flow Aggregator's aggregation works on) and Antrea's protobuf `Flow` message, the unit of
// its gRPC flow export. Both sides of the transport use it, so a record survives the trip
// field for field: unit tests pin the wire numbers and the round trip.
import { isIPv4, isIPv6 } from 'node:net';
import protobuf from 'protobufjs/light.js';
import type { FieldValue } from '../codec/field-value.js';
import { readIpv4, readIpv6, writeIpv4, writeIpv6 } from '../codec/ip-address.js';
import { IpfixError } from '../errors.js';
import { FLOW_PROTO_PACKAGE, flowDescriptor } from './descriptor.js';

/** A flow record by information element name. */
export type NamedFlowValues = Record<string, FieldValue>;

/** Where a decoded flow came from (Antrea's `IPFIX` message: exporter address, domain id). */
export interface FlowOrigin {
  readonly observationDomainId: number;
  readonly exporterIp: string;
}

const root = protobuf.Root.fromJSON(flowDescriptor);
const ExportRequest = root.lookupType(`${FLOW_PROTO_PACKAGE}.ExportRequest`);
const ExportResponse = root.lookupType(`${FLOW_PROTO_PACKAGE}.ExportResponse`);

type Obj = Record<string, unknown>;
const ZERO_IPV4 = '0.0.0.0';
const EMPTY = new Uint8Array(0);

const str = (v: NamedFlowValues, name: string): string => {
  const x = v[name];
  return typeof x === 'string' ? x : '';
};
const int = (v: NamedFlowValues, name: string): number => {
  const x = v[name];
  return typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0;
};
/**
 * uint64 as protobufjs takes it. protobufjs (without the optional `long` package, as here) carries
 * 64-bit integers as JS numbers: counters above 2^53 (8 PiB) lose their low bits on this transport.
 */
const u64 = (v: NamedFlowValues, name: string): number => {
  const x = v[name];
  if (typeof x === 'number') return x;
  return typeof x === 'bigint' ? Number(x) : 0;
};

/** Address text to its 4 or 16 bytes; none (empty, 0.0.0.0, ::) is no bytes, as Go's zero netip.Addr. */
export function ipBytes(text: string): Uint8Array {
  if (text === '' || text === ZERO_IPV4 || text === '::') return EMPTY;
  if (isIPv4(text)) {
    const b = Buffer.alloc(4);
    writeIpv4(b, 0, text);
    return b;
  }
  if (isIPv6(text)) {
    const b = Buffer.alloc(16);
    writeIpv6(b, 0, text);
    return b;
  }
  throw new IpfixError('IPFIX_ENCODE', `not an IP address: ${text}`);
}

/** 4 or 16 bytes to text; no bytes is '' (the caller picks what "none" reads as). */
export function ipText(bytes: Uint8Array | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length === 4) return readIpv4(b, 0);
  if (b.length === 16) return readIpv6(b, 0);
  throw new IpfixError('IPFIX_DECODE', `an address of ${b.length} bytes`);
}

const timestamp = (seconds: number): Obj => ({ seconds, nanos: 0 });

function stats(v: NamedFlowValues, prefix: '' | 'reverse'): Obj {
  const n = (s: string) => (prefix ? `reverse${s[0]!.toUpperCase()}${s.slice(1)}` : s);
  return {
    packetTotalCount: u64(v, n('packetTotalCount')),
    packetDeltaCount: u64(v, n('packetDeltaCount')),
    octetTotalCount: u64(v, n('octetTotalCount')),
    octetDeltaCount: u64(v, n('octetDeltaCount')),
  };
}

/** Element names of one policy direction and the message fields they map to. */
const RULE_FIELDS = ['Name', 'Namespace', 'Type', 'RuleName', 'RuleAction'] as const;

/**
 * One agent record (elements of Antrea's agent template) as a `Flow` message object. `exportSeconds`
 * and `domainId` fill its `ipfix` part, as Antrea's gRPC exporter does.
 */
export function flowFromValues(v: NamedFlowValues, domainId: number, exportSeconds: number): Obj {
  const src = str(v, 'sourceIPv4Address') || str(v, 'sourceIPv6Address');
  const dst = str(v, 'destinationIPv4Address') || str(v, 'destinationIPv6Address');
  const k8s: Obj = {
    flowType: int(v, 'flowType'),
    sourcePodNamespace: str(v, 'sourcePodNamespace'),
    sourcePodName: str(v, 'sourcePodName'),
    sourceNodeName: str(v, 'sourceNodeName'),
    destinationPodNamespace: str(v, 'destinationPodNamespace'),
    destinationPodName: str(v, 'destinationPodName'),
    destinationNodeName: str(v, 'destinationNodeName'),
    destinationServicePort: int(v, 'destinationServicePort'),
    destinationServicePortName: str(v, 'destinationServicePortName'),
    egressName: str(v, 'egressName'),
    egressIp: ipBytes(str(v, 'egressIP')),
    egressNodeName: str(v, 'egressNodeName'),
    // Antrea still fills the deprecated ClusterIP field next to its successor.
    destinationClusterIp: ipBytes(str(v, 'destinationClusterIPv4') || str(v, 'destinationClusterIPv6')),
    destinationServiceIp: ipBytes(str(v, 'destinationServiceIPv4') || str(v, 'destinationServiceIPv6')),
  };
  for (const dir of ['ingress', 'egress'] as const) {
    for (const part of RULE_FIELDS) {
      const name = `${dir}NetworkPolicy${part}`;
      const field = part === 'Type' || part === 'RuleAction' ? int(v, name) : str(v, name);
      k8s[name] = field;
    }
  }
  const tcpState = str(v, 'tcpState');
  return {
    ipfix: { exportTime: timestamp(exportSeconds), observationDomainId: domainId },
    startTs: timestamp(int(v, 'flowStartSeconds')),
    endTs: timestamp(int(v, 'flowEndSeconds')),
    endReason: int(v, 'flowEndReason'),
    ip: { version: isIPv6(src) ? 6 : 4, source: ipBytes(src), destination: ipBytes(dst) },
    transport: {
      protocolNumber: int(v, 'protocolIdentifier'),
      sourcePort: int(v, 'sourceTransportPort'),
      destinationPort: int(v, 'destinationTransportPort'),
      ...(tcpState ? { TCP: { stateName: tcpState } } : {}),
    },
    k8s,
    stats: stats(v, ''),
    reverseStats: stats(v, 'reverse'),
    proxySnatIp: ipBytes(str(v, 'proxySnatIPv4') || str(v, 'proxySnatIPv6')),
    proxySnatPort: int(v, 'proxySnatPort'),
  };
}

/** Encodes an ExportRequest carrying `flows` (objects from flowFromValues). */
export function encodeExportRequest(flows: readonly Obj[]): Uint8Array {
  // The objects already have protobufjs's runtime shapes (numbers, Uint8Array, enum numbers), so
  // they are encoded as they are: fromObject's conversion pass would only copy them.
  return ExportRequest.encode({ flows }).finish();
}

export const encodeExportResponse = (): Uint8Array => ExportResponse.encode({}).finish();
export const decodeExportResponse = (_bytes: Uint8Array): Obj => ({});

/** protobufjs hands out uint64 as Long (when `long` is installed), number, or text. */
function bigOf(x: unknown): bigint {
  if (x === undefined || x === null) return 0n;
  if (typeof x === 'number') return BigInt(x);
  if (typeof x === 'string') return BigInt(x);
  const l = x as { low: number; high: number };
  return (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
}
const numOf = (x: unknown): number => (x === undefined || x === null ? 0 : Number(bigOf(x)));

function addStats(out: NamedFlowValues, s: Obj | undefined, prefix: '' | 'reverse'): void {
  const n = (name: string) => (prefix ? `reverse${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  out[n('packetTotalCount')] = bigOf(s?.['packetTotalCount']);
  out[n('octetTotalCount')] = bigOf(s?.['octetTotalCount']);
  out[n('packetDeltaCount')] = bigOf(s?.['packetDeltaCount']);
  out[n('octetDeltaCount')] = bigOf(s?.['octetDeltaCount']);
}

/**
 * A `Flow` message as a record by element name, with every element of Antrea's agent template
 * (IPv4 or IPv6 forms by the message's IP version), so the aggregator treats it like a decoded
 * IPFIX record. An address the message leaves out reads as the unspecified address, as in IPFIX.
 */
export function valuesFromFlow(flow: Obj): NamedFlowValues {
  const ip = (flow['ip'] ?? {}) as Obj;
  const v6 = ip['version'] === 6;
  const fam = v6 ? 'IPv6' : 'IPv4';
  const none = v6 ? '::' : ZERO_IPV4;
  const addr = (b: unknown): string => ipText(b as Uint8Array | undefined) || none;
  const t = (flow['transport'] ?? {}) as Obj;
  const k = (flow['k8s'] ?? {}) as Obj;
  const s = (x: unknown): string => (typeof x === 'string' ? x : '');
  const out: NamedFlowValues = {
    flowStartSeconds: numOf((flow['startTs'] as Obj | undefined)?.['seconds']),
    flowEndSeconds: numOf((flow['endTs'] as Obj | undefined)?.['seconds']),
    flowEndReason: numOf(flow['endReason']),
    sourceTransportPort: numOf(t['sourcePort']),
    destinationTransportPort: numOf(t['destinationPort']),
    protocolIdentifier: numOf(t['protocolNumber']),
  };
  addStats(out, flow['stats'] as Obj | undefined, '');
  out[`source${fam}Address`] = addr(ip['source']);
  out[`destination${fam}Address`] = addr(ip['destination']);
  addStats(out, flow['reverseStats'] as Obj | undefined, 'reverse');
  out['sourcePodName'] = s(k['sourcePodName']);
  out['sourcePodNamespace'] = s(k['sourcePodNamespace']);
  out['sourceNodeName'] = s(k['sourceNodeName']);
  out['destinationPodName'] = s(k['destinationPodName']);
  out['destinationPodNamespace'] = s(k['destinationPodNamespace']);
  out['destinationNodeName'] = s(k['destinationNodeName']);
  out['destinationServicePort'] = numOf(k['destinationServicePort']);
  out['destinationServicePortName'] = s(k['destinationServicePortName']);
  for (const dir of ['ingress', 'egress'] as const) {
    for (const part of RULE_FIELDS) {
      const name = `${dir}NetworkPolicy${part}`;
      out[name] = part === 'Type' || part === 'RuleAction' ? numOf(k[name]) : s(k[name]);
    }
  }
  out['tcpState'] = s((t['TCP'] as Obj | undefined)?.['stateName']);
  out['flowType'] = numOf(k['flowType']);
  out['egressName'] = s(k['egressName']);
  out['egressIP'] = ipText(k['egressIp'] as Uint8Array | undefined);
  out['egressNodeName'] = s(k['egressNodeName']);
  out['proxySnatPort'] = numOf(flow['proxySnatPort']);
  const serviceIp = ipText(k['destinationServiceIp'] as Uint8Array | undefined);
  out[`destinationCluster${fam}`] = serviceIp || ipText(k['destinationClusterIp'] as Uint8Array) || none;
  out[`proxySnat${fam}`] = addr(flow['proxySnatIp']);
  out[`destinationService${fam}`] = serviceIp || none;
  return out;
}

/** The flows of one ExportRequest with where they came from. */
export interface DecodedFlow {
  readonly values: NamedFlowValues;
  readonly origin: FlowOrigin;
}

/** Decodes an ExportRequest's flows (a decoding failure is IPFIX_DECODE). */
export function decodeExportRequest(bytes: Uint8Array): Obj[] {
  try {
    const msg = ExportRequest.decode(bytes) as unknown as { flows?: Obj[] };
    return msg.flows ?? [];
  } catch (err) {
    throw new IpfixError('IPFIX_DECODE', `not a flow ExportRequest: ${String(err)}`, { cause: err });
  }
}

/** A decoded flow's `ipfix.observationDomainId`. */
export const domainIdOf = (flow: Obj): number =>
  numOf((flow['ipfix'] as Obj | undefined)?.['observationDomainId']);
