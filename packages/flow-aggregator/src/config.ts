import { parseGoDuration } from '@antrea-ts/apis';
import { parse } from 'yaml';
import { FlowAggregatorError } from './errors.js';
import type { FlowFilter, RuleActionName } from './exporter/flow-log-line.js';

/** The port Antrea's agents send IPFIX to (flow-aggregator Service, TCP and UDP). */
export const IPFIX_COLLECTOR_PORT = 4739;

/** flow-aggregator.conf, the keys this implementation reads, with Antrea's defaults. */
export interface FlowAggregatorConfig {
  readonly mode: 'Aggregate';
  readonly activeFlowRecordTimeoutMs: number;
  readonly inactiveFlowRecordTimeoutMs: number;
  /** The IPFIX collector's transport (`tls`: mutual TLS with the aggregator's certificates). */
  readonly aggregatorTransportProtocol: 'tls' | 'tcp' | 'udp' | 'none';
  /** One more DNS name or IP in the gRPC server certificate (Antrea's `flowAggregatorAddress`). */
  readonly flowAggregatorAddress: string;
  readonly recordContents: { readonly podLabels: boolean };
  readonly apiServer: { readonly apiPort: number };
  readonly flowCollector: {
    readonly enable: boolean;
    readonly host: string;
    readonly port: number;
    readonly transport: 'tcp' | 'udp';
    readonly observationDomainID: number | undefined;
    readonly recordFormat: 'IPFIX';
    readonly templateRefreshTimeoutMs: number;
    readonly maxIPFIXMsgSize: number;
  };
  readonly flowLogger: {
    readonly enable: boolean;
    readonly path: string;
    readonly maxSize: number;
    readonly maxBackups: number;
    readonly compress: boolean;
    readonly prettyPrint: boolean;
    readonly filters: readonly FlowFilter[];
  };
}

/** A Go duration string ("60s", "1m30s", "500ms") in ms. */
export function parseDuration(key: string, text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined)
    throw new FlowAggregatorError('FA_CONFIG', `${key}: ${JSON.stringify(text)} is not a duration`);
  return ms;
}

type Doc = Record<string, unknown>;
const section = (doc: Doc, key: string): Doc => {
  const v = doc[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw new FlowAggregatorError('FA_CONFIG', `${key}: want a mapping`);
  return v as Doc;
};
function typed<T>(doc: Doc, key: string, kind: 'string' | 'number' | 'boolean', dflt: T): T {
  const v = doc[key];
  if (v === undefined || v === null || v === '') return dflt;
  if (typeof v !== kind)
    throw new FlowAggregatorError('FA_CONFIG', `${key}: want a ${kind}, got ${JSON.stringify(v)}`);
  return v as T;
}
const unsupported = (what: string): never => {
  throw new FlowAggregatorError('FA_UNSUPPORTED', `${what} is not implemented`);
};

/** `<IP>:<port>[:<proto>]` (IPv6 in brackets), tcp by default, as Antrea's flowCollector.address. */
export function parseCollectorAddress(text: string): {
  host: string;
  port: number;
  transport: 'tcp' | 'udp';
} {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)(?::(tcp|udp|tls))?$/.exec(text);
  if (!m)
    throw new FlowAggregatorError(
      'FA_CONFIG',
      `flowCollector.address: ${JSON.stringify(text)} is not <IP>:<port>[:<proto>]`,
    );
  if (m[4] === 'tls') unsupported('flowCollector TLS');
  return { host: (m[1] ?? m[2])!, port: Number(m[3]), transport: (m[4] ?? 'tcp') as 'tcp' | 'udp' };
}

const ACTIONS: readonly RuleActionName[] = ['None', 'Allow', 'Drop', 'Reject'];
function filters(v: unknown): FlowFilter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new FlowAggregatorError('FA_CONFIG', 'flowLogger.filters: want a list');
  const actions = (x: unknown, key: string): RuleActionName[] | undefined => {
    if (x === undefined) return undefined;
    if (!Array.isArray(x) || !x.every((a) => ACTIONS.includes(a)))
      throw new FlowAggregatorError(
        'FA_CONFIG',
        `flowLogger.filters.${key}: want a list of ${ACTIONS.join(', ')}`,
      );
    return x as RuleActionName[];
  };
  return v.map((f: Doc) => {
    const ingress = actions(f?.ingressNetworkPolicyRuleActions, 'ingressNetworkPolicyRuleActions');
    const egress = actions(f?.egressNetworkPolicyRuleActions, 'egressNetworkPolicyRuleActions');
    return {
      ...(ingress ? { ingressNetworkPolicyRuleActions: ingress } : {}),
      ...(egress ? { egressNetworkPolicyRuleActions: egress } : {}),
    };
  });
}

/**
 * Parses flow-aggregator.conf (YAML). Durations under 1 s are rounded up to 1 s as Antrea does.
 * Refuses what Antrea accepts but this implementation lacks (FA_UNSUPPORTED): Proxy mode,
 * ClickHouse, S3, JSON records, TLS to the downstream flowCollector.
 */
export function parseConfig(text: string): FlowAggregatorConfig {
  let doc: Doc;
  try {
    doc = (parse(text) ?? {}) as Doc;
  } catch (err) {
    throw new FlowAggregatorError('FA_CONFIG', `flow-aggregator.conf is not YAML: ${String(err)}`, {
      cause: err,
    });
  }
  const mode = typed(doc, 'mode', 'string', 'Aggregate');
  if (mode !== 'Aggregate') unsupported(`mode ${mode}`);
  const seconds = (key: string, dflt: string): number =>
    Math.max(1000, parseDuration(key, typed(doc, key, 'string', dflt)));
  // Antrea defaults to tls. Here an unset key means tcp: tls needs the certificates kept in
  // Kubernetes, and the aggregator must also serve where it has no Kubernetes (the manifests test
  // runs the Deployment's command line alone). tls is served when asked for.
  const transport = typed(doc, 'aggregatorTransportProtocol', 'string', 'tcp').toLowerCase();
  if (!['tls', 'tcp', 'udp', 'none'].includes(transport))
    throw new FlowAggregatorError(
      'FA_CONFIG',
      `aggregatorTransportProtocol: ${transport} is not tls, tcp, udp or none`,
    );
  for (const s of ['clickHouse', 's3Uploader'])
    if (typed(section(doc, s), 'enable', 'boolean', false)) unsupported(s);
  const fc = section(doc, 'flowCollector');
  const fcEnable = typed(fc, 'enable', 'boolean', false);
  const address = typed(fc, 'address', 'string', '');
  if (fcEnable && address === '')
    throw new FlowAggregatorError('FA_CONFIG', 'flowCollector.address is required');
  const target = fcEnable ? parseCollectorAddress(address) : { host: '', port: 0, transport: 'tcp' as const };
  const format = typed(fc, 'recordFormat', 'string', 'IPFIX');
  if (fcEnable && format !== 'IPFIX') unsupported(`flowCollector.recordFormat ${format}`);
  const fl = section(doc, 'flowLogger');
  return Object.freeze({
    mode: 'Aggregate',
    activeFlowRecordTimeoutMs: seconds('activeFlowRecordTimeout', '60s'),
    inactiveFlowRecordTimeoutMs: seconds('inactiveFlowRecordTimeout', '90s'),
    aggregatorTransportProtocol: transport as FlowAggregatorConfig['aggregatorTransportProtocol'],
    flowAggregatorAddress: typed(doc, 'flowAggregatorAddress', 'string', ''),
    recordContents: Object.freeze({
      podLabels: typed(section(doc, 'recordContents'), 'podLabels', 'boolean', false),
    }),
    apiServer: Object.freeze({ apiPort: typed(section(doc, 'apiServer'), 'apiPort', 'number', 10348) }),
    flowCollector: Object.freeze({
      enable: fcEnable,
      ...target,
      observationDomainID:
        fc.observationDomainID === undefined ? undefined : typed(fc, 'observationDomainID', 'number', 0),
      recordFormat: 'IPFIX' as const,
      templateRefreshTimeoutMs: parseDuration(
        'flowCollector.templateRefreshTimeout',
        typed(fc, 'templateRefreshTimeout', 'string', '600s'),
      ),
      maxIPFIXMsgSize: typed(fc, 'maxIPFIXMsgSize', 'number', 0),
    }),
    flowLogger: Object.freeze({
      enable: typed(fl, 'enable', 'boolean', false),
      path: typed(fl, 'path', 'string', '/tmp/antrea-flows.log'),
      maxSize: typed(fl, 'maxSize', 'number', 100),
      maxBackups: typed(fl, 'maxBackups', 'number', 3),
      compress: typed(fl, 'compress', 'boolean', true),
      prettyPrint: typed(fl, 'prettyPrint', 'boolean', true),
      filters: Object.freeze(filters(fl.filters)),
    }),
  });
}
