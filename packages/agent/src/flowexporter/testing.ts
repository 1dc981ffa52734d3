import type { ConnectionMetadata } from './connection-store.js';

/** One `dpctl/dump-conntrack -m -s` line in OVS's format, for tests and the benchmark. */
export function conntrackLine(o: {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  endpoint?: string;
  endpointPort?: number;
  proto?: 'tcp' | 'udp';
  state?: string;
  packets?: [number, number];
  bytes?: [number, number];
  mark?: number;
  labels?: bigint;
  zone?: number;
}): string {
  const ep = o.endpoint ?? o.dst;
  const epPort = o.endpointPort ?? o.dport;
  const counters = (i: 0 | 1) =>
    o.packets ? `,packets=${o.packets[i]},bytes=${o.bytes?.[i] ?? o.packets[i] * 100}` : '';
  const proto = o.proto ?? 'tcp';
  return [
    `${proto},orig=(src=${o.src},dst=${o.dst},sport=${o.sport},dport=${o.dport}${counters(0)})`,
    `reply=(src=${ep},dst=${o.src},sport=${epPort},dport=${o.sport}${counters(1)})`,
    `id=1,zone=${o.zone ?? 65520},timeout=86399`,
    ...(o.mark ? [`mark=${o.mark}`] : []),
    ...(o.labels ? [`labels=0x${o.labels.toString(16)}`] : []),
    ...(proto === 'tcp'
      ? [`protoinfo=(state_orig=${o.state ?? 'ESTABLISHED'},state_reply=${o.state ?? 'ESTABLISHED'})`]
      : []),
  ].join(',');
}

/** Metadata from fixed tables: Pods by IP, Services by `ip:port`, rules by conjunction id. */
export function fixedMetadata(
  pods: Record<string, string>,
  services: Record<string, string> = {},
  rules: Record<number, { policy: string; namespace: string; type: number; rule: string }> = {},
): ConnectionMetadata {
  return {
    podByIp: (ip) => {
      const p = pods[ip];
      if (!p) return undefined;
      const [namespace = '', name = ''] = p.split('/');
      return { namespace, name };
    },
    servicePortName: (ip, port) => services[`${ip}:${port}`],
    ruleOfConjId: (id) => {
      const r = rules[id];
      return (
        r && { policyName: r.policy, policyNamespace: r.namespace, policyType: r.type, ruleName: r.rule }
      );
    },
  };
}
