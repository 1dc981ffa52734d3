import { createHash } from 'node:crypto';
import type { NetworkPolicyReference, Service } from '@antrea-ts/apis';
import type { TunnelType } from '../../config.js';
import { intervalsToCidrs, ipBlockIntervals, isEverything } from '../ip-set.js';
import type { CompletedRule } from '../rule-cache.js';
import { memberIntervals } from '../rule-flows.js';

// NodeNetworkPolicy in the filter table, with Antrea's chain names (pkg/agent/config and
// pkg/agent/route): INPUT -> ANTREA-INPUT -> (static pre-rules, then the policies' rules), and the
// same for OUTPUT. Pure: rules in, iptables-restore text out.

export const ANTREA_INPUT_CHAIN = 'ANTREA-INPUT';
export const ANTREA_OUTPUT_CHAIN = 'ANTREA-OUTPUT';
export const PRE_INGRESS_CHAIN = 'ANTREA-POL-PRE-INGRESS-RULES';
export const PRE_EGRESS_CHAIN = 'ANTREA-POL-PRE-EGRESS-RULES';
export const INGRESS_RULES_CHAIN = 'ANTREA-POL-INGRESS-RULES';
export const EGRESS_RULES_CHAIN = 'ANTREA-POL-EGRESS-RULES';
/** Prefix of the per-rule service chains (a rule with several services jumps to its own chain). */
export const RULE_CHAIN_PREFIX = 'ANTREA-POL-';

/** The tunnels' UDP ports (IANA's Geneve and VXLAN ports, which Antrea uses); GRE and STT have none here. */
export const TUNNEL_UDP_PORTS: Readonly<Partial<Record<TunnelType, number>>> = { geneve: 6081, vxlan: 4789 };

/** The chains that always exist while the feature is on, in the order they are written. */
export const STATIC_CHAINS = [
  ANTREA_INPUT_CHAIN,
  ANTREA_OUTPUT_CHAIN,
  PRE_INGRESS_CHAIN,
  PRE_EGRESS_CHAIN,
  INGRESS_RULES_CHAIN,
  EGRESS_RULES_CHAIN,
] as const;

/** The jumps from the built-in chains, with Antrea's comments (appended, as Antrea does). */
export const BUILTIN_JUMPS = [
  {
    from: 'INPUT',
    spec: ['-j', ANTREA_INPUT_CHAIN, '-m', 'comment', '--comment', 'Antrea: jump to Antrea input rules'],
  },
  {
    from: 'OUTPUT',
    spec: ['-j', ANTREA_OUTPUT_CHAIN, '-m', 'comment', '--comment', 'Antrea: jump to Antrea output rules'],
  },
] as const;

/**
 * Ports of Antrea's own traffic to the Node that no Node policy may block (Antrea's
 * HostNetworkPortRules: its rules come before the policies'), so that a default-deny policy does
 * not cut the Node off from the cluster.
 */
export interface AntreaHostPorts {
  /** The tunnel's UDP port (Geneve 6081, VXLAN 4789) when the Node tunnels. */
  readonly tunnelUdpPort?: number | undefined;
  /** The agent API's TCP port (antctl, the controller's support bundle requests, probes). */
  readonly agentApiPort?: number | undefined;
}

/**
 * The rules every Node with the feature on has, whatever the policies: Antrea's own ports, then
 * replies and related packets (a policy decides on new connections only) and loopback traffic,
 * before any rule of a policy is looked at; then the policies' chains.
 */
export function staticChainRules(ports: AntreaHostPorts = {}): Map<string, string[]> {
  const comment = (text: string) => `-m comment --comment "${text}"`;
  return new Map([
    [
      ANTREA_INPUT_CHAIN,
      [
        ...(ports.tunnelUdpPort
          ? [`-p udp --dport ${ports.tunnelUdpPort} ${comment('Antrea: allow tunnel traffic')} -j ACCEPT`]
          : []),
        ...(ports.agentApiPort
          ? [`-p tcp --dport ${ports.agentApiPort} ${comment('Antrea: allow agent API traffic')} -j ACCEPT`]
          : []),
        `${comment('Antrea: jump to static ingress NodeNetworkPolicy rules')} -j ${PRE_INGRESS_CHAIN}`,
        `${comment('Antrea: jump to ingress NodeNetworkPolicy rules')} -j ${INGRESS_RULES_CHAIN}`,
      ],
    ],
    [
      ANTREA_OUTPUT_CHAIN,
      [
        `${comment('Antrea: jump to static egress NodeNetworkPolicy rules')} -j ${PRE_EGRESS_CHAIN}`,
        `${comment('Antrea: jump to egress NodeNetworkPolicy rules')} -j ${EGRESS_RULES_CHAIN}`,
      ],
    ],
    [
      PRE_INGRESS_CHAIN,
      [
        `-m conntrack --ctstate ESTABLISHED,RELATED ${comment('Antrea: allow ingress established or related packets')} -j ACCEPT`,
        `-i lo ${comment('Antrea: allow ingress packets from loopback')} -j ACCEPT`,
      ],
    ],
    [
      PRE_EGRESS_CHAIN,
      [
        `-m conntrack --ctstate ESTABLISHED,RELATED ${comment('Antrea: allow egress established or related packets')} -j ACCEPT`,
        `-o lo ${comment('Antrea: allow egress packets to loopback')} -j ACCEPT`,
      ],
    ],
  ]);
}

/** One rule of a policy applied to this Node, as the chains need it. */
export interface HostRule {
  /** The agent's rule id (stable while the policy keeps its rules). */
  readonly id: string;
  readonly direction: 'In' | 'Out';
  readonly action: 'Allow' | 'Drop' | 'Reject';
  /** Precedence: lower tier priority first, then lower policy priority, then rule order. */
  readonly tierPriority: number;
  readonly policyPriority: number;
  readonly rulePriority: number;
  /** Tie-break between policies of equal priorities (deterministic output). */
  readonly policyName: string;
  /** `Antrea: for rule <name>, policy <type>:<name>`. */
  readonly comment: string;
  /** Source (ingress) or destination (egress) CIDRs; `undefined` = any address; empty = none. */
  readonly peerCidrs: readonly string[] | undefined;
  readonly services: readonly Service[];
  /** The LOG rule's prefix when the rule has enableLogging. */
  readonly logPrefix: string | undefined;
}

const TARGET = { Allow: 'ACCEPT', Drop: 'DROP', Reject: 'REJECT' } as const;

/** Antrea's `<type>:<namespace>/<name>` (SourceRef.ToString); cluster-scoped without the slash. */
function sourceRefText(ref: NetworkPolicyReference | undefined, fallback: string): string {
  if (!ref) return fallback;
  return ref.namespace ? `${ref.type}:${ref.namespace}/${ref.name}` : `${ref.type}:${ref.name}`;
}

/** Text safe inside a double-quoted iptables-restore argument. */
function quoteSafe(text: string): string {
  return text.replace(/["\\\n\r]/g, '');
}

/**
 * Antrea's log prefix `Antrea:<I|O>:<action>:<label>:` (iptables keeps 29 characters, so the
 * user's label is cut to 12, which the webhook warns about).
 */
export function logPrefixOf(direction: 'In' | 'Out', action: string, label: string | undefined): string {
  const l = quoteSafe(label ?? '').slice(0, 12);
  return `Antrea:${direction[0]}:${action}${l ? `:${l}` : ''}:`;
}

/** A rule of the agent's rule cache as a host rule; undefined for actions iptables has no meaning for (Pass). */
export function hostRuleOf(r: CompletedRule): HostRule | undefined {
  if (r.action !== 'Allow' && r.action !== 'Drop' && r.action !== 'Reject') return undefined;
  const intervals = [
    ...memberIntervals(r.peer.members),
    ...(r.peer.ipBlocks ?? []).flatMap((b) => ipBlockIntervals(b)),
  ];
  return {
    id: r.id,
    direction: r.direction,
    action: r.action,
    tierPriority: r.policy.tierPriority ?? 0,
    policyPriority: r.policy.priority ?? 0,
    rulePriority: r.rule.priority,
    policyName: r.policy.metadata.name,
    comment: quoteSafe(
      `Antrea: for rule ${r.rule.name ?? ''}, policy ${sourceRefText(r.policy.sourceRef, r.policy.metadata.name)}`,
    ),
    peerCidrs: isEverything(intervals) ? undefined : intervalsToCidrs(intervals),
    services: r.rule.services ?? [],
    logPrefix: r.rule.enableLogging ? logPrefixOf(r.direction, r.action, r.rule.logLabel) : undefined,
  };
}

/** The per-rule service chain: `ANTREA-POL-` and 16 hex digits of the rule id (27 characters, under iptables' 28). */
export function ruleChainName(ruleId: string): string {
  return `${RULE_CHAIN_PREFIX}${createHash('sha256').update(ruleId).digest('hex').slice(0, 16).toUpperCase()}`;
}

const range = (lo: number, hi: number | undefined) =>
  hi !== undefined && hi !== lo ? `${lo}:${hi}` : `${lo}`;

/**
 * The match of one service (protocol, ports or ICMP type/code); undefined when iptables cannot
 * express it on a Node: a named port (Node processes declare none) or IGMP.
 */
export function serviceMatch(svc: Service): string | undefined {
  const proto = (svc.protocol ?? 'TCP').toLowerCase();
  if (proto === 'tcp' || proto === 'udp' || proto === 'sctp') {
    if (typeof svc.port === 'string') return undefined;
    const parts = [`-p ${proto}`];
    if (svc.srcPort !== undefined) parts.push(`--sport ${range(svc.srcPort, svc.srcEndPort)}`);
    if (svc.port !== undefined) parts.push(`--dport ${range(svc.port, svc.endPort)}`);
    return parts.join(' ');
  }
  if (proto === 'icmp') {
    if (svc.icmpType === undefined) return '-p icmp';
    return `-p icmp --icmp-type ${svc.icmpType}${svc.icmpCode !== undefined ? `/${svc.icmpCode}` : ''}`;
  }
  return undefined;
}

/** Highest precedence first: Antrea sorts core rules by (tier, policy, rule) priority. */
export function compareHostRules(a: HostRule, b: HostRule): number {
  return (
    a.tierPriority - b.tierPriority ||
    a.policyPriority - b.policyPriority ||
    a.rulePriority - b.rulePriority ||
    a.policyName.localeCompare(b.policyName) ||
    a.id.localeCompare(b.id)
  );
}

/** The lines of one chain: a LOG copy first when logging, then the deciding rule. */
function decide(match: string, target: string, comment: string, logPrefix: string | undefined): string[] {
  const m = match ? `${match} ` : '';
  const lines: string[] = [];
  if (logPrefix) lines.push(`${m}-j LOG --log-prefix "${logPrefix}"`);
  lines.push(`${m}${comment ? `-m comment --comment "${comment}" ` : ''}-j ${target}`);
  return lines;
}

/** The policy rule chains: the two core chains (always present) and one chain per multi-service rule. */
export function policyChainRules(rules: readonly HostRule[]): Map<string, string[]> {
  const chains = new Map<string, string[]>([
    [INGRESS_RULES_CHAIN, []],
    [EGRESS_RULES_CHAIN, []],
  ]);
  for (const r of [...rules].sort(compareHostRules)) {
    // No address selected (e.g. a nodeSelector peer that matches no Node yet): the rule matches nothing.
    if (r.peerCidrs?.length === 0) continue;
    const matches = r.services.map(serviceMatch).filter((m): m is string => m !== undefined);
    // Every service was one iptables cannot express: nothing of the rule can match.
    if (r.services.length > 0 && matches.length === 0) continue;
    const target = TARGET[r.action];
    let coreTarget: string = target;
    let coreService = '';
    if (matches.length > 1) {
      coreTarget = ruleChainName(r.id);
      chains.set(
        coreTarget,
        matches.flatMap((m) => decide(m, target, '', r.logPrefix)),
      );
    } else if (matches.length === 1) coreService = matches[0]!;
    const core = chains.get(r.direction === 'In' ? INGRESS_RULES_CHAIN : EGRESS_RULES_CHAIN)!;
    const addr = r.direction === 'In' ? '-s' : '-d';
    // One rule per CIDR: the Node has no ipset here (iptables' nf_tables backend, no ipset tool).
    for (const cidr of r.peerCidrs ?? [undefined]) {
      const match = [cidr ? `${addr} ${cidr}` : '', coreService].filter(Boolean).join(' ');
      core.push(...decide(match, coreTarget, r.comment, matches.length > 1 ? undefined : r.logPrefix));
    }
  }
  return chains;
}

/**
 * iptables-restore input (for `--noflush`) for the filter table: each chain given is declared, which
 * flushes it, and written whole; the chains in `remove` are flushed and deleted. Everything lands in
 * one commit, so packets see the old rule set or the new one, never a mix, and chains this does not
 * name are left as they are.
 */
export function filterRestoreInput(
  chains: ReadonlyMap<string, readonly string[]>,
  remove: readonly string[],
): string {
  const lines = ['*filter'];
  for (const name of [...chains.keys(), ...remove]) lines.push(`:${name} - [0:0]`);
  for (const [name, rules] of chains) for (const r of rules) lines.push(`-A ${name} ${r}`);
  for (const name of remove) lines.push(`-X ${name}`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}
