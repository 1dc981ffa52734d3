import type { PacketIn2 } from '@antrea-ts/openflow';
import type { Pipeline } from '../openflow/pipeline.js';
import type { CompletedRule } from './rule-cache.js';

/**
 * The NetworkPolicy audit log (Antrea's np.log, /var/log/antrea/networkpolicy/np.log): one line per
 * packet that hit the action flow of a rule with enableLogging (for Allow, the first packet of each
 * connection; established packets skip the rule tables), space separated:
 *
 *   <yyyy/mm/dd> <hh:mm:ss.uuuuuu> <table> <policy type>:<namespace/name> <rule name|-> <direction>
 *   <action> <OpenFlow priority> <applied-to Pod ns/name|-> <src IP> <src port> <dst IP> <dst port>
 *   <protocol> <IP packet length> <log label|->
 *
 * e.g. `2026/11/21 11:20:01.123456 AntreaPolicyIngressRule AntreaClusterNetworkPolicy:acnp-log
 * drop-y In Drop 63998 x/a 10.244.1.3 41000 10.244.0.2 80 TCP 60 -`. Ports are 0 for protocols
 * without them. Lines are rate limited with the packet-ins (PacketInHandler).
 */
export function auditLine(
  pi: PacketIn2,
  rule: CompletedRule,
  priority: number,
  pipeline: Pipeline,
  podOf: (ip: string) => string | undefined,
  now: Date,
): string | undefined {
  const f = pi.packet;
  if (f.length < 34 || f.readUInt16BE(12) !== 0x0800) return undefined;
  const ip = f.subarray(14);
  const ihl = (ip[0]! & 0x0f) * 4;
  const proto = ip[9]!;
  const src = ip.subarray(12, 16).join('.');
  const dst = ip.subarray(16, 20).join('.');
  const l4 = ip.subarray(ihl);
  const ports = (proto === 6 || proto === 17 || proto === 132) && l4.length >= 4;
  const sport = ports ? l4.readUInt16BE(0) : 0;
  const dport = ports ? l4.readUInt16BE(2) : 0;
  const protoName = { 1: 'ICMP', 6: 'TCP', 17: 'UDP', 132: 'SCTP' }[proto] ?? String(proto);
  const ref = rule.policy.sourceRef;
  const policy = ref
    ? `${ref.type}:${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`
    : `-:${rule.policy.metadata.name}`;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${now.getUTCFullYear()}/${pad(now.getUTCMonth() + 1)}/${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds() * 1000, 6)}`;
  const table = pi.tableId !== undefined ? (pipeline.nameOf(pi.tableId) ?? String(pi.tableId)) : '-';
  const appliedTo = podOf(rule.direction === 'In' ? dst : src) ?? '-';
  return [
    date,
    time,
    table,
    policy,
    rule.rule.name || '-',
    rule.direction,
    rule.action,
    String(priority),
    appliedTo,
    src,
    sport,
    dst,
    dport,
    protoName,
    ip.readUInt16BE(2),
    rule.rule.logLabel || '-',
  ].join(' ');
}
