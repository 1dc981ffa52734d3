import {
  ANTREA_AGENT_IPV4_TEMPLATE,
  ANTREA_IPV4_TEMPLATE_ID,
  type FieldValue,
  type TemplateRecord,
} from '@antrea-ts/ipfix';
import type { PolicyRuleRef } from './connection.js';
import type { ExpiredFlow } from './connection-store.js';

/** antrea-agent's IPv4 template: the elements' list and order live in @antrea-ts/ipfix, shared with the Flow Aggregator. */
export const IPV4_TEMPLATE_ID = ANTREA_IPV4_TEMPLATE_ID;
export const IPV4_TEMPLATE: TemplateRecord = ANTREA_AGENT_IPV4_TEMPLATE;

const seconds = (ms: number): number => Math.floor(ms / 1000);
/** Counters never go backwards in a record: a reset conntrack entry reports 0, as Antrea's. */
const delta = (now: number, prev: number): bigint => BigInt(now >= prev ? now - prev : 0);
/** packetTotalCount, octetTotalCount, packetDeltaCount, octetDeltaCount (or their reverse forms). */
const counters = (packets: number, bytes: number, prevPackets: number, prevBytes: number): FieldValue[] => [
  BigInt(packets),
  BigInt(bytes),
  delta(packets, prevPackets),
  delta(bytes, prevBytes),
];
const ZERO_IP = '0.0.0.0';

/** name, namespace, type, rule name, action of one direction's rule; empty and 0 without one. */
const ruleValues = (r: PolicyRuleRef | undefined): FieldValue[] =>
  r ? [r.policyName, r.policyNamespace, r.policyType, r.ruleName, r.action] : ['', '', 0, '', 0];

/** One data record of IPV4_TEMPLATE, values in template order. */
export function ipv4RecordValues(f: ExpiredFlow, nodeName: string, flowType: number): FieldValue[] {
  const c = f.conn;
  const svc = c.servicePortName !== '';
  return [
    seconds(c.startMs),
    seconds(c.stopMs),
    f.endReason,
    c.srcPort,
    c.dstPort,
    c.protocol,
    ...counters(c.origPackets, c.origBytes, c.prevPackets, c.prevBytes),
    c.srcIp,
    c.dstIp,
    ...counters(c.replyPackets, c.replyBytes, c.prevReplyPackets, c.prevReplyBytes),
    c.srcPod?.name ?? '',
    c.srcPod?.namespace ?? '',
    // The Node is named only for the ends that are this Node's Pods.
    c.srcPod ? nodeName : '',
    c.dstPod?.name ?? '',
    c.dstPod?.namespace ?? '',
    c.dstPod ? nodeName : '',
    svc ? c.origDstPort : 0,
    c.servicePortName,
    ...ruleValues(c.ingressRule),
    ...ruleValues(c.egressRule),
    c.tcpState,
    flowType,
    '',
    '',
    '',
    0,
    // Fixed-length address fields cannot be empty: 0.0.0.0 stands for "none", as in Antrea.
    svc ? c.origDstIp : ZERO_IP,
    ZERO_IP,
    svc ? c.origDstIp : ZERO_IP,
  ];
}
