// `/ovstracing`: `ofproto/trace` of a packet described by Pods, Services, OVS ports and IPs, as
// antctl's `trace-packet` asks (Antrea pkg/agent/apiserver/handlers/ovstracing). The agent fills
// in what the caller named (in_port, MACs, IPs, TTL) and OVS does the tracing.
import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { PodInterface } from '../cniserver/interface-store.js';
import { GLOBAL_VIRTUAL_MAC } from '../openflow/features/tunnel.js';
import { RouteRefusal } from './route-refusal.js';

/** Who may be asked for addresses the agent does not hold (remote Pods, Services). */
export interface ClusterLookup {
  /** The Pod's IPv4 address, or undefined when the Pod does not exist or has none. */
  podIp(namespace: string, name: string): Promise<string | undefined>;
  /** The Service's IPv4 ClusterIP, or undefined when the Service does not exist or has none. */
  serviceClusterIp(namespace: string, name: string): Promise<string | undefined>;
}

export interface OvsTracingSource {
  pods(): PodInterface[];
  /** The gateway and (in encap modes) tunnel ports, by OVS port name. */
  tracingPorts(): { gateway: { name: string; ip: string; mac: string }; tunnelName?: string };
  /** Runs `ofproto/trace` of br-int on `flow` and returns OVS's text. */
  traceFlow(flow: string): Promise<string>;
  readonly cluster?: ClusterLookup;
}

interface TracingQuery {
  port?: string;
  source?: string;
  destination?: string;
  flow?: string;
  addressFamily?: string;
}

/** A packet end as the caller named it. */
type Peer =
  | { kind: 'ip'; ip: string }
  | { kind: 'named'; namespace: string; name: string }
  | { kind: 'port'; port: string };

/** An OVS port the packet can enter by, with the MAC that port's packets carry. */
interface Port {
  name: string;
  kind: 'pod' | 'gateway' | 'tunnel';
  mac: string;
  ip?: string;
}

// One comma-separated element of an ofproto/trace flow: `tcp`, `tcp_dst=80`, `dl_src=aa:bb:...`.
// The flow goes to ovs-appctl as one argument (no shell), but OVS parses it: accept only what a
// flow can hold, as Antrea does (which also allows ':' here, for MACs and IPv6).
const FLOW_ELEMENT = '[a-zA-Z0-9.\\-_:/]+(=[a-zA-Z0-9.\\-_:/]+)?';
const FLOW_RE = new RegExp(`^(${FLOW_ELEMENT},\\s*)*${FLOW_ELEMENT}$`);
const IP_PROTOS = ['ipv6', 'tcp6', 'udp6', 'sctp6', 'icmp6', 'ip', 'tcp', 'udp', 'sctp', 'icmp'];
const NON_IP = ['arp', 'rarp', 'dl_type=0x0806', 'dl_type=0x8035'];

/** The flow's elements (`tcp`, `tcp_dst=80`) and their keys (`tcp`, `tcp_dst`). */
function flowElements(flow: string): { elements: Set<string>; keys: Set<string> } {
  const elements = new Set(flow === '' ? [] : flow.split(',').map((e) => e.trim()));
  return { elements, keys: new Set([...elements].map((e) => e.split('=')[0] as string)) };
}

function parsePeer(text: string): Peer | undefined {
  const parts = text.split('/');
  if (parts.length === 2) {
    const [namespace, name] = parts as [string, string];
    return namespace && name ? { kind: 'named', namespace, name } : undefined;
  }
  if (parts.length !== 1 || text === '') return undefined;
  return isIPv4(text) || isIPv6(text) ? { kind: 'ip', ip: text } : { kind: 'port', port: text };
}

const familyOf = (ip: string): 4 | 6 => (isIPv4(ip) ? 4 : 6);

/** The request's address family: given, else implied by the flow's protocol keyword, else IPv4. */
function addressFamily(q: TracingQuery): 4 | 6 {
  if (q.addressFamily === '6') return 6;
  if (q.addressFamily === '4' || !q.flow) return 4;
  const { keys } = flowElements(q.flow);
  const proto = IP_PROTOS.find((p) => keys.has(p));
  return proto?.endsWith('6') ? 6 : 4;
}

function portByName(src: OvsTracingSource, name: string): Port | undefined {
  const { gateway, tunnelName } = src.tracingPorts();
  if (name === gateway.name) return { name, kind: 'gateway', mac: gateway.mac, ip: gateway.ip };
  if (tunnelName !== undefined && name === tunnelName)
    return { name, kind: 'tunnel', mac: GLOBAL_VIRTUAL_MAC };
  const pod = src.pods().find((p) => p.hostIfName === name);
  return pod && { name, kind: 'pod', mac: pod.mac, ip: pod.ip };
}

function localPod(src: OvsTracingSource, namespace: string, name: string): Port | undefined {
  const pod = src.pods().find((p) => p.podNamespace === namespace && p.podName === name);
  return pod && { name: pod.hostIfName, kind: 'pod', mac: pod.mac, ip: pod.ip };
}

/** A peer's address and, when it is on this Node, its port. */
async function resolve(
  src: OvsTracingSource,
  peer: Peer,
  family: 4 | 6,
  role: 'source' | 'destination',
): Promise<{ ip: string; port?: Port }> {
  if (peer.kind === 'ip') return { ip: peer.ip };
  const port = peer.kind === 'port' ? portByName(src, peer.port) : localPod(src, peer.namespace, peer.name);
  if (peer.kind === 'port' && !port) throw new RouteRefusal(404, `OVS port ${peer.port} not found`);
  if (port) {
    // Local Pods and the gateway have IPv4 addresses only (the datapath is IPv4).
    if (!port.ip || family !== 4) throw new RouteRefusal(404, `${port.name} has no IPv${family} address`);
    return { ip: port.ip, port };
  }
  const named = peer as Extract<Peer, { kind: 'named' }>;
  if (!src.cluster) throw new RouteRefusal(404, `Pod ${named.namespace}/${named.name} not found`);
  const podIp = await src.cluster.podIp(named.namespace, named.name);
  if (podIp !== undefined) {
    if (familyOf(podIp) !== family) throw new RouteRefusal(404, `Pod has no IPv${family} address`);
    return { ip: podIp };
  }
  // Like Antrea: a destination that is no Pod may be a Service, traced to its ClusterIP.
  const clusterIp =
    role === 'destination' ? await src.cluster.serviceClusterIp(named.namespace, named.name) : undefined;
  if (clusterIp === undefined) {
    throw new RouteRefusal(
      404,
      `Pod ${role === 'destination' ? 'or Service ' : ''}${named.namespace}/${named.name} not found`,
    );
  }
  return { ip: clusterIp };
}

/** The `ofproto/trace` flow for a request (Antrea's ovsctl Trace, field order included). */
export async function tracingFlow(src: OvsTracingSource, q: TracingQuery): Promise<string> {
  const flow = q.flow ?? '';
  if (flow !== '' && !FLOW_RE.test(flow)) throw new RouteRefusal(400, 'invalid flow format');
  const { elements, keys } = flowElements(flow);
  const has = (key: string) => keys.has(key);
  const family = addressFamily(q);
  const peers: Partial<Record<'port' | 'source' | 'destination', Peer>> = {};
  for (const key of ['port', 'source', 'destination'] as const) {
    const text = q[key];
    if (text === undefined || text === '') continue;
    const peer = parsePeer(text);
    if (!peer || (key === 'port' && peer.kind === 'ip'))
      throw new RouteRefusal(400, `invalid ${key === 'port' ? 'input port' : key} format`);
    if (peer.kind === 'ip' && familyOf(peer.ip) !== family) {
      throw new RouteRefusal(400, `address family incompatible between ${key} and request`);
    }
    peers[key] = peer;
  }

  let inPort: Port | undefined;
  if (peers.port) {
    inPort =
      peers.port.kind === 'port'
        ? portByName(src, peers.port.port)
        : peers.port.kind === 'named'
          ? localPod(src, peers.port.namespace, peers.port.name)
          : undefined;
    if (!inPort) throw new RouteRefusal(404, 'input port not found');
  }
  const source = peers.source && (await resolve(src, peers.source, family, 'source'));
  const destination = peers.destination && (await resolve(src, peers.destination, family, 'destination'));
  const { gateway, tunnelName } = src.tracingPorts();
  // Entering by the source's own port; a remote Pod's packets arrive through the tunnel; anything
  // else (an IP, nothing) through the gateway.
  inPort ??=
    source?.port ??
    (peers.source?.kind === 'named' && tunnelName !== undefined
      ? { name: tunnelName, kind: 'tunnel', mac: GLOBAL_VIRTUAL_MAC }
      : { name: gateway.name, kind: 'gateway', mac: gateway.mac });
  // A local destination is reached by its MAC, anything else is routed through the gateway's.
  let dstMac = destination ? (destination.port?.mac ?? gateway.mac) : undefined;
  if (inPort.kind === 'tunnel') dstMac = GLOBAL_VIRTUAL_MAC;

  if (has('in_port') && peers.port) throw new RouteRefusal(400, "duplicated 'in_port' in flow");
  const nonIp = NON_IP.some((k) => elements.has(k));
  if (nonIp && (source || destination)) {
    throw new RouteRefusal(400, 'source and destination must not be specified for non-IP packet');
  }
  const v6 = family === 6;
  const [srcKey, dstKey] = v6 ? ['ipv6_src', 'ipv6_dst'] : ['nw_src', 'nw_dst'];
  if (source && has(srcKey)) throw new RouteRefusal(400, `duplicated '${srcKey}' in flow`);
  if (destination && has(dstKey)) throw new RouteRefusal(400, `duplicated '${dstKey}' in flow`);

  const head: string[] = [];
  if (!has('in_port')) head.push(`in_port=${inPort.name}`);
  if (!has('dl_src')) head.push(`dl_src=${inPort.mac}`);
  if (dstMac !== undefined && !has('dl_dst')) head.push(`dl_dst=${dstMac}`);
  const tail: string[] = [];
  if (!nonIp && (source || destination)) {
    // OVS needs the protocol before nw_ttl and addresses: "ip" unless the flow names one.
    if (!IP_PROTOS.some((p) => has(p))) head.push(v6 ? 'ipv6' : 'ip');
    if (!has('nw_ttl')) tail.push('nw_ttl=64');
    if (source) tail.push(`${srcKey}=${source.ip}`);
    if (destination) tail.push(`${dstKey}=${destination.ip}`);
  }
  return [...head, ...(flow === '' ? [] : [flow]), ...tail].join(',');
}

export function registerOvsTracingRoute(app: FastifyInstance, src: OvsTracingSource): void {
  app.get<{ Querystring: TracingQuery }>('/ovstracing', async (req, reply) => {
    let flow: string;
    try {
      flow = await tracingFlow(src, req.query);
    } catch (err) {
      if (err instanceof RouteRefusal) return reply.code(err.status).send({ error: err.message });
      throw err;
    }
    try {
      return { result: await src.traceFlow(flow) };
    } catch (err) {
      // As Antrea: when ovs-appctl ran and failed (a flow OVS cannot parse, say), its own words
      // help the caller most.
      const stderr = (err as { stderr?: unknown }).stderr;
      const detail =
        typeof stderr === 'string' && stderr.trim() !== ''
          ? stderr.trim()
          : 'failed to execute tracing command';
      return reply.code(500).send({ error: detail });
    }
  });
}
