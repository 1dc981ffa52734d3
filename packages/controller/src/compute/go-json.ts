// Go encoding/json output for the crd.antrea.io/v1beta1 Rule struct, byte for byte: Antrea names
// unnamed rules after a hash of json.Marshal(rule), so the field order, omitempty behaviour and
// Go's string escaping all matter. Only the types reachable from Rule are covered.

import type { AnyLabelSelector } from '@antrea-ts/apis';
import type {
  CrdAppliedTo,
  CrdIPBlock,
  CrdNamespacedName,
  CrdNetworkPolicyPeer,
  CrdNetworkPolicyPort,
  CrdNetworkPolicyProtocol,
  CrdRule,
} from '../inputs.js';

/** Go's json string encoding: HTML-safe escapes for <, >, & and the JS line separators. */
export function goString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

type Field = [name: string, value: string | undefined];

function obj(fields: Field[]): string {
  const parts: string[] = [];
  for (const [k, v] of fields) if (v !== undefined) parts.push(`"${k}":${v}`);
  return `{${parts.join(',')}}`;
}

/** omitempty string */
function optStr(s: string | undefined): string | undefined {
  return s ? goString(s) : undefined;
}

/** omitempty *int32 (present even when 0) */
function optInt(n: number | undefined | null): string | undefined {
  return n === undefined || n === null ? undefined : String(n);
}

/** omitempty slice: nil and empty are both omitted */
function optList<T>(xs: readonly T[] | undefined | null, enc: (x: T) => string): string | undefined {
  return xs && xs.length > 0 ? `[${xs.map(enc).join(',')}]` : undefined;
}

function labelSelector(sel: AnyLabelSelector | undefined | null): string | undefined {
  if (!sel) return undefined;
  const ml = sel.matchLabels;
  const keys = ml ? Object.keys(ml).sort() : [];
  return obj([
    [
      'matchLabels',
      keys.length > 0 ? `{${keys.map((k) => `${goString(k)}:${goString(ml![k]!)}`).join(',')}}` : undefined,
    ],
    [
      'matchExpressions',
      optList(sel.matchExpressions, (e) =>
        obj([
          ['key', goString(e.key)],
          ['operator', goString(e.operator)],
          ['values', optList(e.values, goString)],
        ]),
      ),
    ],
  ]);
}

function namespacedName(n: CrdNamespacedName | undefined | null): string | undefined {
  if (!n) return undefined;
  return obj([
    ['name', optStr(n.name)],
    ['namespace', optStr(n.namespace)],
  ]);
}

function ipBlock(b: CrdIPBlock | undefined | null): string | undefined {
  if (!b) return undefined;
  return obj([
    ['cidr', goString(b.cidr ?? '')],
    ['except', optList(b.except, goString)],
  ]);
}

function port(p: CrdNetworkPolicyPort): string {
  return obj([
    ['protocol', optStr(p.protocol)],
    [
      'port',
      p.port === undefined || p.port === null
        ? undefined
        : typeof p.port === 'number'
          ? String(p.port)
          : goString(p.port),
    ],
    ['endPort', optInt(p.endPort)],
    ['sourcePort', optInt(p.sourcePort)],
    ['sourceEndPort', optInt(p.sourceEndPort)],
  ]);
}

function protocol(p: CrdNetworkPolicyProtocol): string {
  return obj([
    [
      'icmp',
      p.icmp
        ? obj([
            ['icmpType', optInt(p.icmp.icmpType)],
            ['icmpCode', optInt(p.icmp.icmpCode)],
          ])
        : undefined,
    ],
    [
      'igmp',
      p.igmp
        ? obj([
            ['igmpType', optInt(p.igmp.igmpType)],
            ['groupAddress', optStr(p.igmp.groupAddress)],
          ])
        : undefined,
    ],
  ]);
}

function peer(p: CrdNetworkPolicyPeer): string {
  return obj([
    ['ipBlock', ipBlock(p.ipBlock)],
    ['podSelector', labelSelector(p.podSelector)],
    ['namespaceSelector', labelSelector(p.namespaceSelector)],
    [
      'namespaces',
      p.namespaces
        ? obj([
            ['match', optStr(p.namespaces.match)],
            ['sameLabels', optList(p.namespaces.sameLabels, goString)],
          ])
        : undefined,
    ],
    ['externalEntitySelector', labelSelector(p.externalEntitySelector)],
    ['group', optStr(p.group)],
    ['fqdn', optStr(p.fqdn)],
    ['serviceAccount', namespacedName(p.serviceAccount)],
    ['nodeSelector', labelSelector(p.nodeSelector)],
    ['scope', optStr(p.scope)],
  ]);
}

function appliedTo(a: CrdAppliedTo): string {
  return obj([
    ['podSelector', labelSelector(a.podSelector)],
    ['namespaceSelector', labelSelector(a.namespaceSelector)],
    ['externalEntitySelector', labelSelector(a.externalEntitySelector)],
    ['group', optStr(a.group)],
    ['serviceAccount', namespacedName(a.serviceAccount)],
    ['service', namespacedName(a.service)],
    ['nodeSelector', labelSelector(a.nodeSelector)],
  ]);
}

/** json.Marshal(crdv1beta1.Rule) */
export function marshalRule(r: CrdRule): string {
  return obj([
    ['action', r.action ? goString(r.action) : 'null'],
    ['ports', optList(r.ports, port)],
    ['protocols', optList(r.protocols, protocol)],
    [
      'l7Protocols',
      optList(r.l7Protocols, (l) =>
        obj([
          [
            'http',
            l.http
              ? obj([
                  ['host', optStr(l.http.host)],
                  ['method', optStr(l.http.method)],
                  ['path', optStr(l.http.path)],
                ])
              : undefined,
          ],
          ['tls', l.tls ? obj([['sni', optStr(l.tls.sni)]]) : undefined],
        ]),
      ),
    ],
    ['from', optList(r.from, peer)],
    ['to', optList(r.to, peer)],
    [
      'toServices',
      optList(r.toServices, (s) =>
        obj([
          ['name', optStr(s.name)],
          ['namespace', optStr(s.namespace)],
          ['scope', optStr(s.scope)],
        ]),
      ),
    ],
    ['name', optStr(r.name)],
    ['enableLogging', r.enableLogging ? 'true' : 'false'],
    ['logLabel', optStr(r.logLabel)],
    ['appliedTo', optList(r.appliedTo, appliedTo)],
  ]);
}
