import { formatIpv4 } from '@antrea-ts/openflow';
import type { InterfaceStore } from '../cniserver/interface-store.js';
import type { CompletedRule } from '../networkpolicy/rule-cache.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { PodRef, PolicyRuleRef } from './connection.js';
import type { ConnectionMetadata } from './connection-store.js';

/** Local Pods by IP, rebuilt when the interface store changes. */
export function podsByIp(store: Pick<InterfaceStore, 'list' | 'onChange'>): {
  lookup: (ip: string) => PodRef | undefined;
  close: () => void;
} {
  let index: Map<string, PodRef> | undefined;
  const close = store.onChange(() => {
    index = undefined;
  });
  return {
    lookup: (ip) => {
      index ??= new Map(store.list().map((p) => [p.ip, { name: p.podName, namespace: p.podNamespace }]));
      return index.get(ip);
    },
    close,
  };
}

const PORT_FIELDS = ['tcp_dst', 'udp_dst', 'sctp_dst'];
const SERVICE_PREFIX = 'service/';
/** An index older than this is rebuilt when a lookup misses (Services change while connections start). */
const SERVICE_INDEX_TTL_MS = 1000;

/**
 * Service ports by `ClusterIP:port/protocol`, read from AntreaProxy's flows in the FlowCache (its
 * ServiceLB flows match the ClusterIP, protocol and port; owners are
 * `service/<namespace>/<name>/<port name>/<protocol>`), named as Antrea's ServicePortName prints:
 * `<namespace>/<name>:<port name>`, or `<namespace>/<name>` for an unnamed port.
 */
export function servicePortNames(
  flows: Pick<FlowCache, 'ownersWithPrefix' | 'owned'>,
  now: () => number = Date.now,
): (ip: string, port: number, protocol: number) => string | undefined {
  let index = new Map<string, string>();
  let builtAt = Number.NEGATIVE_INFINITY;
  const rebuild = () => {
    index = new Map();
    for (const owner of flows.ownersWithPrefix(SERVICE_PREFIX)) {
      const [ns, name, portName] = owner.slice(SERVICE_PREFIX.length).split('/');
      const display = portName ? `${ns}/${name}:${portName}` : `${ns}/${name}`;
      for (const f of flows.owned(owner)) {
        const ip = f.match.find((m) => m.field === 'nw_dst' && m.mask === undefined);
        const proto = f.match.find((m) => m.field === 'ip_proto');
        const port = f.match.find((m) => PORT_FIELDS.includes(m.field));
        if (ip && proto && port) index.set(`${formatIpv4(ip.value)}:${port.value}/${proto.value}`, display);
      }
    }
    builtAt = now();
  };
  return (ip, port, protocol) => {
    const key = `${ip}:${port}/${protocol}`;
    let name = index.get(key);
    if (name === undefined && now() - builtAt >= SERVICE_INDEX_TTL_MS) {
      rebuild();
      name = index.get(key);
    }
    return name;
  };
}

/** Antrea's NetworkPolicyType numbers in flow records. */
const POLICY_TYPES: Readonly<Record<string, number>> = {
  K8sNetworkPolicy: 1,
  AntreaNetworkPolicy: 2,
  AntreaClusterNetworkPolicy: 3,
  ClusterNetworkPolicy: 4,
};

/** How a flow record names the rule that allowed a connection. */
export function policyRuleRef(rule: CompletedRule): Omit<PolicyRuleRef, 'action'> {
  const ref = rule.policy.sourceRef;
  return {
    policyName: ref?.name ?? rule.policy.metadata.name ?? '',
    policyNamespace: ref?.namespace ?? '',
    policyType: POLICY_TYPES[ref?.type ?? 'K8sNetworkPolicy'] ?? 0,
    ruleName: rule.rule.name ?? '',
  };
}

/** The agent's sources of flow metadata, together. */
export function agentFlowMetadata(
  pods: (ip: string) => PodRef | undefined,
  services: (ip: string, port: number, protocol: number) => string | undefined,
  ruleOfConjId: (id: number) => CompletedRule | undefined,
): ConnectionMetadata {
  return {
    podByIp: pods,
    servicePortName: services,
    ruleOfConjId: (id) => {
      const rule = ruleOfConjId(id);
      return rule && policyRuleRef(rule);
    },
  };
}
