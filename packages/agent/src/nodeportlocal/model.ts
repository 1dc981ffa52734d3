import type { V1Pod, V1Service } from '@kubernetes/client-node';

/** The Service annotation that turns NodePortLocal on for the Pods the Service selects. */
export const NPL_ENABLED_ANNOTATION = 'nodeportlocal.antrea.io/enabled';
/** The Pod annotation where the agent publishes the Pod's mappings (Antrea's NPLAnnotationKey). */
export const NPL_ANNOTATION = 'nodeportlocal.antrea.io';

export type NplProtocol = 'tcp' | 'udp';

/** One member of the Pod annotation, with Antrea's JSON field names (v2.6 and later: ipFamily). */
export interface NplAnnotation {
  readonly podPort: number;
  readonly nodeIP: string;
  readonly nodePort: number;
  readonly protocol: NplProtocol;
  readonly ipFamily: 'IPv4';
}

/** A declared container port of a Pod. */
export interface NplContainerPort {
  readonly name: string | undefined;
  readonly containerPort: number;
  readonly protocol: NplProtocol | 'sctp';
  readonly hostPort: number | undefined;
}

/** What NodePortLocal needs of a Pod on this Node. */
export interface NplPod {
  /** `<namespace>/<name>` */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The IPv4 Pod IP; undefined until the CNI ADD is reported in the Pod's status. */
  readonly ip: string | undefined;
  /** Succeeded or Failed: its mappings go, as Antrea's IsPodTerminated. */
  readonly terminated: boolean;
  readonly ports: readonly NplContainerPort[];
  /** The raw `nodeportlocal.antrea.io` annotation, if any. */
  readonly annotation: string | undefined;
}

/** A Service port's target: a number, or a container port name resolved per Pod. */
export interface NplServicePort {
  readonly target: number | string;
  readonly protocol: NplProtocol;
}

/** What NodePortLocal needs of a Service. */
export interface NplService {
  readonly key: string;
  readonly namespace: string;
  /** Annotation "true", a selector, and a type other than NodePort and ExternalName (Antrea's checks). */
  readonly enabled: boolean;
  readonly selector: Readonly<Record<string, string>>;
  /** TCP and UDP ports only: SCTP is ignored, as in Antrea. */
  readonly ports: readonly NplServicePort[];
}

const protocolOf = (p: string | undefined): NplProtocol | 'sctp' =>
  p === 'UDP' ? 'udp' : p === 'SCTP' ? 'sctp' : 'tcp';

export function nplPod(pod: V1Pod): NplPod {
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const ips = pod.status?.podIPs?.map((p) => p.ip) ?? (pod.status?.podIP ? [pod.status.podIP] : []);
  return {
    key: `${namespace}/${name}`,
    namespace,
    name,
    labels: pod.metadata?.labels ?? {},
    ip: ips.find((ip) => !ip.includes(':')),
    terminated: pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
    ports: (pod.spec?.containers ?? []).flatMap((c) =>
      (c.ports ?? []).map((p) => ({
        name: p.name || undefined,
        containerPort: p.containerPort,
        protocol: protocolOf(p.protocol),
        hostPort: p.hostPort || undefined,
      })),
    ),
    annotation: pod.metadata?.annotations?.[NPL_ANNOTATION],
  };
}

export function nplService(svc: V1Service): NplService {
  const namespace = svc.metadata?.namespace ?? '';
  const selector = svc.spec?.selector ?? {};
  const type = svc.spec?.type ?? 'ClusterIP';
  const ports: NplServicePort[] = [];
  for (const p of svc.spec?.ports ?? []) {
    const protocol = protocolOf(p.protocol);
    if (protocol === 'sctp') continue;
    // An absent targetPort defaults to the Service port, as kube-apiserver fills it.
    const target = p.targetPort ?? p.port;
    ports.push({
      target: typeof target === 'string' && /^\d+$/.test(target) ? Number(target) : target,
      protocol,
    });
  }
  return {
    key: `${namespace}/${svc.metadata?.name ?? ''}`,
    namespace,
    enabled:
      svc.metadata?.annotations?.[NPL_ENABLED_ANNOTATION] === 'true' &&
      Object.keys(selector).length > 0 &&
      type !== 'NodePort' &&
      type !== 'ExternalName',
    selector,
    ports,
  };
}

export function selects(svc: NplService, pod: NplPod): boolean {
  if (svc.namespace !== pod.namespace || Object.keys(svc.selector).length === 0) return false;
  return Object.entries(svc.selector).every(([k, v]) => pod.labels[k] === v);
}

/** The annotation's members, or undefined when it does not parse as Antrea's JSON list. */
export function parseNplAnnotation(value: string): NplAnnotation[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const out: NplAnnotation[] = [];
  for (const m of parsed as Array<Record<string, unknown>>) {
    if (typeof m !== 'object' || m === null) return undefined;
    const { podPort, nodeIP, nodePort, protocol, ipFamily } = m;
    // Incomplete members are skipped, as Antrea ignores them on restart.
    if (typeof podPort !== 'number' || typeof nodePort !== 'number' || !podPort || !nodePort) continue;
    if (protocol !== 'tcp' && protocol !== 'udp') continue;
    // IPv6 members (absent here: the agent is IPv4-only) are not ours to restore.
    if (ipFamily !== undefined && ipFamily !== 'IPv4') continue;
    out.push({
      podPort,
      nodeIP: typeof nodeIP === 'string' ? nodeIP : '',
      nodePort,
      protocol,
      ipFamily: 'IPv4',
    });
  }
  return out;
}

/** The annotation value the agent writes: members sorted by nodePort so equal sets compare equal. */
export function formatNplAnnotation(members: readonly NplAnnotation[]): string {
  return JSON.stringify(
    [...members]
      .sort((a, b) => a.nodePort - b.nodePort || a.protocol.localeCompare(b.protocol))
      .map((m) => ({
        podPort: m.podPort,
        nodeIP: m.nodeIP,
        nodePort: m.nodePort,
        protocol: m.protocol,
        ipFamily: m.ipFamily,
      })),
  );
}

/** Antrea's portRange "start-end" (inclusive). */
export function parsePortRange(range: string): { start: number; end: number } | undefined {
  const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(range);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start < 1 || end > 65535 || start >= end) return undefined;
  return { start, end };
}
