import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ANTREA_AGENT_IPV4_ELEMENTS } from '../antrea-template.js';
import {
  decodeExportRequest,
  domainIdOf,
  encodeExportRequest,
  flowFromValues,
  ipBytes,
  ipText,
  type NamedFlowValues,
  valuesFromFlow,
} from './flow-message.js';

/** A source Node's record of a ClusterIP connection, every element of the agent template set. */
const record: NamedFlowValues = {
  flowStartSeconds: 1_700_000_000,
  flowEndSeconds: 1_700_000_005,
  flowEndReason: 2,
  sourceTransportPort: 43_001,
  destinationTransportPort: 8080,
  protocolIdentifier: 6,
  packetTotalCount: 10n,
  octetTotalCount: 1500n,
  packetDeltaCount: 4n,
  octetDeltaCount: 600n,
  sourceIPv4Address: '10.10.0.5',
  destinationIPv4Address: '10.10.1.7',
  reversePacketTotalCount: 8n,
  reverseOctetTotalCount: 9_007_199_254_740_991n,
  reversePacketDeltaCount: 2n,
  reverseOctetDeltaCount: 200n,
  sourcePodName: 'client',
  sourcePodNamespace: 'fa',
  sourceNodeName: 'node-1',
  destinationPodName: '',
  destinationPodNamespace: '',
  destinationNodeName: '',
  destinationServicePort: 80,
  destinationServicePortName: 'fa/web:http',
  ingressNetworkPolicyName: '',
  ingressNetworkPolicyNamespace: '',
  ingressNetworkPolicyType: 0,
  ingressNetworkPolicyRuleName: '',
  ingressNetworkPolicyRuleAction: 0,
  egressNetworkPolicyName: 'allow-web',
  egressNetworkPolicyNamespace: 'fa',
  egressNetworkPolicyType: 2,
  egressNetworkPolicyRuleName: 'rule1',
  egressNetworkPolicyRuleAction: 1,
  tcpState: 'ESTABLISHED',
  flowType: 2,
  egressName: 'eg',
  egressIP: '198.19.45.10',
  egressNodeName: 'node-2',
  proxySnatPort: 0,
  destinationClusterIPv4: '10.96.0.10',
  proxySnatIPv4: '0.0.0.0',
  destinationServiceIPv4: '10.96.0.10',
};

const roundTrip = (
  v: NamedFlowValues,
  domainId = 7,
): { values: NamedFlowValues; flows: Record<string, unknown>[] } => {
  const flows = decodeExportRequest(encodeExportRequest([flowFromValues(v, domainId, 1_700_000_006)]));
  return { values: valuesFromFlow(flows[0]!), flows };
};

/** Top-level (field number, wire type) pairs of a message and the bytes of length-delimited ones. */
function fields(bytes: Uint8Array): Map<number, Uint8Array | number> {
  const r = protobuf.Reader.create(bytes);
  const out = new Map<number, Uint8Array | number>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    const wire = tag & 7;
    if (wire === 2) out.set(tag >>> 3, r.bytes());
    else if (wire === 0) {
      const x = r.uint64() as unknown as number | { toNumber(): number };
      out.set(tag >>> 3, typeof x === 'number' ? x : x.toNumber());
    } else r.skipType(wire);
  }
  return out;
}

describe('Flow message mapping', () => {
  it('carries every element of the agent template through the protobuf message unchanged', () => {
    const { values } = roundTrip(record);
    expect(Object.keys(values).sort()).toEqual([...ANTREA_AGENT_IPV4_ELEMENTS].sort());
    expect(values).toEqual(record);
  });

  it('puts fields at the numbers of Antrea’s flow.proto', () => {
    const request = encodeExportRequest([flowFromValues(record, 7, 1_700_000_006)]);
    const flow = fields(request).get(1) as Uint8Array; // ExportRequest.flows = 1
    const top = fields(flow);
    expect(top.get(5)).toBe(2); // end_reason ACTIVE_TIMEOUT
    expect(fields(top.get(3) as Uint8Array).get(1)).toBe(1_700_000_000); // start_ts.seconds
    expect(fields(top.get(2) as Uint8Array).get(3)).toBe(7); // ipfix.observation_domain_id
    const ip = fields(top.get(6) as Uint8Array);
    expect([ip.get(1), ipText(ip.get(2) as Uint8Array), ipText(ip.get(3) as Uint8Array)]).toEqual([
      4,
      '10.10.0.5',
      '10.10.1.7',
    ]);
    const transport = fields(top.get(7) as Uint8Array);
    expect([transport.get(1), transport.get(2), transport.get(3)]).toEqual([6, 43_001, 8080]);
    expect(Buffer.from(fields(transport.get(4) as Uint8Array).get(1) as Uint8Array).toString()).toBe(
      'ESTABLISHED',
    );
    const k8s = fields(top.get(8) as Uint8Array);
    const text = (n: number) => Buffer.from(k8s.get(n) as Uint8Array).toString();
    expect(k8s.get(1)).toBe(2); // flow_type INTER_NODE
    expect([text(2), text(3), text(6)]).toEqual(['fa', 'client', 'node-1']);
    expect([k8s.get(15), text(16)]).toEqual([80, 'fa/web:http']);
    expect([k8s.get(24), text(25), text(26), text(28), k8s.get(29)]).toEqual([
      2,
      'fa',
      'allow-web',
      'rule1',
      1,
    ]);
    expect([text(30), ipText(k8s.get(31) as Uint8Array), text(32)]).toEqual(['eg', '198.19.45.10', 'node-2']);
    expect(ipText(k8s.get(14) as Uint8Array)).toBe('10.96.0.10'); // deprecated destination_cluster_ip
    expect(ipText(k8s.get(35) as Uint8Array)).toBe('10.96.0.10'); // destination_service_ip
    const stats = fields(top.get(9) as Uint8Array);
    expect([stats.get(1), stats.get(2), stats.get(3), stats.get(4)]).toEqual([10, 4, 1500, 600]);
    // Unset addresses (0.0.0.0) are left out, as Go's zero netip.Addr marshals to no bytes.
    expect(top.has(14)).toBe(false);
  });

  it('reads the unspecified address for addresses a flow leaves out, and keeps the domain id', () => {
    const { values, flows } = roundTrip({
      ...record,
      destinationClusterIPv4: '0.0.0.0',
      destinationServiceIPv4: '0.0.0.0',
      egressIP: '',
    });
    expect([
      values.destinationClusterIPv4,
      values.destinationServiceIPv4,
      values.proxySnatIPv4,
      values.egressIP,
    ]).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0', '']);
    expect(domainIdOf(flows[0]!)).toBe(7);
  });

  it('maps IPv6 flows to the IPv6 elements', () => {
    const { values } = roundTrip({
      ...record,
      sourceIPv4Address: '',
      destinationIPv4Address: '',
      sourceIPv6Address: 'fd00:10::5',
      destinationIPv6Address: 'fd00:10:1::7',
      destinationClusterIPv4: '',
      destinationServiceIPv4: '',
      destinationServiceIPv6: 'fd00:96::a',
      proxySnatIPv4: '',
    });
    expect(values).toMatchObject({
      sourceIPv6Address: 'fd00:10::5',
      destinationIPv6Address: 'fd00:10:1::7',
      destinationServiceIPv6: 'fd00:96::a',
      destinationClusterIPv6: 'fd00:96::a',
      proxySnatIPv6: '::',
    });
    expect(values.sourceIPv4Address).toBeUndefined();
  });

  it('refuses bytes that are not an ExportRequest and addresses that are not addresses', () => {
    expect(() => decodeExportRequest(Uint8Array.from([0x0a, 0xff]))).toThrow(
      expect.objectContaining({ code: 'IPFIX_DECODE' }),
    );
    expect(() => ipBytes('not-an-ip')).toThrow(expect.objectContaining({ code: 'IPFIX_ENCODE' }));
    expect(() => ipText(Uint8Array.from([1, 2, 3]))).toThrow(
      expect.objectContaining({ code: 'IPFIX_DECODE' }),
    );
  });
});
