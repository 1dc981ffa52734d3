import type { NamedPort, Protocol } from '@antrea-ts/apis';
import type { PodState } from '../grouping/grouping-index.js';
import type { CrdExternalEntity } from '../inputs.js';

/** Owner kind that makes an ExternalEntity's Node key Namespace-qualified (Antrea's EntityOwnerKind). */
export const EXTERNAL_NODE_OWNER_KIND = 'ExternalNode';

/**
 * The span key of an ExternalEntity (Antrea's GenerateEntityNodeKey): its spec.externalNode,
 * prefixed with its Namespace when an ExternalNode owns it; empty when it names none.
 */
export function entityNodeKey(ee: CrdExternalEntity): string {
  const node = ee.spec?.externalNode ?? '';
  if (node === '') return '';
  const owner = ee.metadata.ownerReferences?.[0];
  return owner?.kind === EXTERNAL_NODE_OWNER_KIND ? `${ee.metadata.namespace ?? ''}/${node}` : node;
}

/** The grouping index's view of an ExternalEntity: its own labels, endpoints as IPs. */
export function externalEntityState(ee: CrdExternalEntity): PodState {
  const labels: Record<string, string> = {};
  const src = ee.metadata.labels;
  if (src) for (const k in src) labels[k] = src[k]!;
  const ips: string[] = [];
  for (const ep of ee.spec?.endpoints ?? []) ips.push(ep.ip ?? '');
  return {
    namespace: ee.metadata.namespace ?? '',
    name: ee.metadata.name ?? '',
    labels,
    nodeName: entityNodeKey(ee),
    ips,
    hostNetwork: false,
    terminated: false,
  };
}

/**
 * Every port of the entity, named or not, with its protocol as written (Antrea copies them
 * without defaulting); undefined when there is none.
 */
export function externalEntityPorts(ee: CrdExternalEntity): NamedPort[] | undefined {
  const ports = ee.spec?.ports ?? [];
  if (ports.length === 0) return undefined;
  return ports.map((p) => ({
    port: p.port ?? 0,
    name: p.name ?? '',
    protocol: (p.protocol ?? '') as Protocol,
  }));
}
