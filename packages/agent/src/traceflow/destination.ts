import { AgentError } from '../errors.js';
import type { TracedService } from './kube-traceflow-api.js';
import { IPPROTO } from './packet.js';

/** Where a Traceflow to a Service sends its packet: the ClusterIP, and the port per protocol. */
export interface ServiceDestination {
  readonly ip: string;
  /** The Service's first port of the packet's protocol: the default when the spec names none. */
  readonly dstPort: (protocol: number) => number | undefined;
}

const invalid = (message: string) => new AgentError('AGENT_TRACEFLOW_INVALID', message);
const PROTOCOL_NAMES: Readonly<Record<number, string>> = { [IPPROTO.TCP]: 'TCP', [IPPROTO.UDP]: 'UDP' };

/**
 * A Service destination as Antrea's agent resolves it (preparePacket): the packet goes to the
 * Service's IPv4 ClusterIP and AntreaProxy on the source Node picks the endpoint, so the Service
 * needs AntreaProxy and a ClusterIP. Unlike Antrea, a TCP or UDP packet without a destination port
 * gets the Service's first port of that protocol: port 0 matches no Service port and would trace
 * nothing useful.
 */
export function serviceDestination(
  ref: string,
  svc: TracedService | undefined,
  antreaProxy: boolean,
): ServiceDestination {
  if (!antreaProxy) throw invalid('using Service destination requires AntreaProxy enabled');
  if (!svc) throw invalid(`failed to get the destination Service ${ref}: not found`);
  const ips = svc.clusterIps.filter((ip) => ip !== '' && ip !== 'None');
  if (ips.length === 0) throw invalid('destination Service does not have a ClusterIP');
  const ip = ips.find((a) => !a.includes(':'));
  if (!ip) throw invalid('destination Service does not have an IPv4 ClusterIP');
  return {
    ip,
    dstPort: (protocol) => svc.ports.find((p) => p.protocol === PROTOCOL_NAMES[protocol])?.port,
  };
}
