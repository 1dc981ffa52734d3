import { parseGoDuration } from '@antrea-ts/apis';
import { AgentError } from '../errors.js';
import { type CollectorAddress, parseCollectorAddress } from './collector-address.js';

/**
 * antrea-agent.conf `flowExporter` with `featureGates.FlowExporter` (Antrea's keys and defaults).
 * Records are exported only with the gate on and `enable` true: Antrea's static destination.
 * Antrea's FlowExporterDestination CRD (more destinations) is not implemented.
 */
export interface FlowExporterConfig {
  /** `featureGates.FlowExporter`: off by default, as in Antrea. */
  readonly featureGate: boolean;
  /** `flowExporter.enable`: the static destination below. */
  readonly enable: boolean;
  readonly collector: CollectorAddress;
  readonly pollIntervalMs: number;
  readonly activeTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** IANA protocol numbers exported; empty: all (Antrea's protocolFilter). */
  readonly protocols: readonly number[];
}

/** The file's keys, as Antrea writes them (durations as Go duration strings). */
export interface FlowExporterFileSection {
  readonly enable?: boolean;
  readonly flowCollectorAddr?: string;
  readonly flowPollInterval?: string;
  readonly activeFlowExportTimeout?: string;
  readonly idleFlowExportTimeout?: string;
  readonly protocolFilter?: readonly string[] | null;
}

/** Antrea's chart defaults: gRPC with mutual TLS to the flow-aggregator Service. */
export const FLOW_EXPORTER_DEFAULTS: FlowExporterFileSection = Object.freeze({
  enable: false,
  flowCollectorAddr: 'flow-aggregator/flow-aggregator:14739:grpc',
  flowPollInterval: '5s',
  activeFlowExportTimeout: '5s',
  idleFlowExportTimeout: '15s',
});

/** A Go duration string (`5s`, `1m30s`, `500ms`) in milliseconds. */
export function parseDuration(key: string, text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined)
    throw new AgentError('AGENT_CONFIG_INVALID', `flowExporter.${key}: bad duration ${JSON.stringify(text)}`);
  return ms;
}

const PROTOCOLS: Readonly<Record<string, number>> = { tcp: 6, udp: 17, sctp: 132 };

/**
 * Validated config from the file's section and the gate. With the exporter off, a section this
 * agent cannot use (say IPFIX over `tls`) does not stop the agent: the defaults stand in.
 */
export function flowExporterConfig(
  file: FlowExporterFileSection | undefined,
  featureGate: boolean | undefined,
): FlowExporterConfig {
  const on = (featureGate ?? false) && (file?.enable ?? false);
  if (on) return build({ ...FLOW_EXPORTER_DEFAULTS, ...file }, true, true);
  try {
    return build({ ...FLOW_EXPORTER_DEFAULTS, ...file }, featureGate ?? false, file?.enable ?? false);
  } catch {
    return build(FLOW_EXPORTER_DEFAULTS, featureGate ?? false, file?.enable ?? false);
  }
}

function build(f: FlowExporterFileSection, featureGate: boolean, enable: boolean): FlowExporterConfig {
  const pollIntervalMs = parseDuration('flowPollInterval', f.flowPollInterval!);
  // Antrea's floor: conntrack is not read more than once a second.
  if (pollIntervalMs < 1000) {
    throw new AgentError('AGENT_CONFIG_INVALID', 'flowExporter.flowPollInterval must be at least 1s');
  }
  const protocols = (f.protocolFilter ?? []).map((p) => {
    const n = PROTOCOLS[p.toLowerCase()];
    if (n === undefined)
      throw new AgentError('AGENT_CONFIG_INVALID', `flowExporter.protocolFilter: unknown protocol ${p}`);
    return n;
  });
  // As Antrea: an export timeout under the poll interval is raised to it. Records cannot carry news
  // more often than conntrack is read, and a 0 s active timeout would re-export without end.
  const timeout = (key: 'activeFlowExportTimeout' | 'idleFlowExportTimeout'): number =>
    Math.max(pollIntervalMs, parseDuration(key, f[key]!));
  return Object.freeze({
    featureGate,
    enable,
    collector: parseCollectorAddress(f.flowCollectorAddr!),
    pollIntervalMs,
    activeTimeoutMs: timeout('activeFlowExportTimeout'),
    idleTimeoutMs: timeout('idleFlowExportTimeout'),
    protocols: Object.freeze(protocols),
  });
}
