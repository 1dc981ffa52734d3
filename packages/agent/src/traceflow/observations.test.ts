import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import {
  buildObservations,
  type ObservationContext,
  type PacketInFacts,
  packetInFacts,
} from './observations.js';

const ctx = (over: Partial<ObservationContext> = {}): ObservationContext => ({
  isSender: true,
  receiverOnly: false,
  gatewayOfport: 32769,
  gatewayIp: '10.10.1.1',
  tunnelOfport: 32768,
  rule: (id) =>
    id === 3
      ? { policy: 'AntreaClusterNetworkPolicy:acnp-deny', rule: 'deny-web', action: 'Drop' }
      : id === 4
        ? { policy: 'K8sNetworkPolicy:x/allow-a', rule: 'ingress-0', action: 'Allow' }
        : id === 5
          ? { policy: 'AntreaNetworkPolicy:x/reject', rule: 'rej', action: 'Reject' }
          : undefined,
  podOfPort: (p) => (p === 6 ? 'x/b' : undefined),
  ...over,
});
const facts = (over: Partial<PacketInFacts>): PacketInFacts => ({
  table: 'Output',
  targetOfport: 0,
  deciderConjId: 0,
  egressConjId: 0,
  ingressConjId: 0,
  tunnelDstIp: undefined,
  srcIp: '10.10.1.5',
  dstIp: '10.10.1.6',
  ...over,
});

describe('Traceflow observations', () => {
  it('intra-Node: SpoofGuard, the allowing ingress rule, delivered to the Pod', () => {
    expect(buildObservations(facts({ targetOfport: 6, ingressConjId: 4 }), ctx())).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: '10.10.1.5' },
      {
        component: 'NetworkPolicy',
        componentInfo: 'IngressRule',
        action: 'Forwarded',
        networkPolicy: 'K8sNetworkPolicy:x/allow-a',
        networkPolicyRule: 'ingress-0',
      },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'x/b' },
    ]);
  });

  it('inter-Node: the sender forwards into the tunnel, the receiver reports Received then Delivered', () => {
    expect(
      buildObservations(
        facts({ targetOfport: 32768, tunnelDstIp: '198.19.20.12', dstIp: '10.10.2.6' }),
        ctx(),
      ),
    ).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: '10.10.1.5' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '198.19.20.12' },
    ]);
    expect(buildObservations(facts({ targetOfport: 6 }), ctx({ isSender: false }))).toEqual([
      { component: 'Forwarding', action: 'Received' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'x/b' },
    ]);
  });

  it('a Service without endpoints: the sender reports SpoofGuard then LB Rejected (the ClusterIP stays the destination)', () => {
    const noEndpoint = facts({ table: 'EndpointDNAT', dstIp: '10.96.0.12', ctDstIp: '10.96.0.12' });
    expect(buildObservations(noEndpoint, ctx())).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: '10.10.1.5' },
      { component: 'LB', action: 'Rejected' },
    ]);
  });

  it('names the policy and rule of a drop or reject in the metric tables; isolation drops in the default tables', () => {
    expect(buildObservations(facts({ table: 'EgressMetric', deciderConjId: 3 }), ctx())[1]).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'EgressMetric',
      action: 'Dropped',
      networkPolicy: 'AntreaClusterNetworkPolicy:acnp-deny',
      networkPolicyRule: 'deny-web',
    });
    expect(
      buildObservations(facts({ table: 'IngressMetric', deciderConjId: 5 }), ctx({ isSender: false }))[1],
    ).toMatchObject({ componentInfo: 'IngressMetric', action: 'Rejected', networkPolicyRule: 'rej' });
    expect(buildObservations(facts({ table: 'IngressDefaultRule' }), ctx())[1]).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'IngressDefaultRule',
      action: 'Dropped',
    });
  });

  it('gateway: Delivered to the Node’s own IP, ForwardedOutOfNetwork otherwise; SpoofGuard drops end the path', () => {
    expect(buildObservations(facts({ targetOfport: 32769, dstIp: '10.10.1.1' }), ctx())[1]?.action).toBe(
      'Delivered',
    );
    expect(buildObservations(facts({ targetOfport: 32769, dstIp: '8.8.8.8' }), ctx())[1]?.action).toBe(
      'ForwardedOutOfNetwork',
    );
    expect(buildObservations(facts({ table: 'SpoofGuard', egressConjId: 4 }), ctx())).toEqual([
      { component: 'SpoofGuard', action: 'Dropped', srcPodIP: '10.10.1.5' },
    ]);
  });

  it('a receiver-only live Traceflow does not report egress rules', () => {
    const obs = buildObservations(
      facts({ targetOfport: 6, egressConjId: 4 }),
      ctx({ isSender: false, receiverOnly: true }),
    );
    expect(obs.map((o) => o.componentInfo ?? o.action)).toEqual(['Received', 'Output']);
  });

  it('a Service packet DNATed to an endpoint: LB Forwarded with the translated address, before policy and output', () => {
    const dnat = { srcIp: '10.10.1.5', dstIp: '10.10.2.6', ctSrcIp: '10.10.1.5', ctDstIp: '10.96.0.10' };
    expect(
      buildObservations(
        facts({ ...dnat, targetOfport: 32768, tunnelDstIp: '198.19.20.12', egressConjId: 4 }),
        ctx(),
      ).map((o) => o.component),
    ).toEqual(['SpoofGuard', 'LB', 'NetworkPolicy', 'Forwarding']);
    expect(buildObservations(facts({ ...dnat, targetOfport: 6 }), ctx())[1]).toEqual({
      component: 'LB',
      action: 'Forwarded',
      translatedDstIP: '10.10.2.6',
    });
    // The receiving Node sees the endpoint address in conntrack too: no LB there.
    expect(
      buildObservations(facts({ ctSrcIp: '10.10.1.5', ctDstIp: '10.10.1.6', targetOfport: 6 }), ctx()).map(
        (o) => o.component,
      ),
    ).toEqual(['SpoofGuard', 'Forwarding']);
  });

  it('hairpin: the SNATed source is reported as translatedSrcIP and SpoofGuard keeps the Pod’s address', () => {
    const hairpin = facts({
      srcIp: '169.254.0.253',
      dstIp: '10.10.1.5',
      ctSrcIp: '10.10.1.5',
      ctDstIp: '10.10.1.5',
      targetOfport: 5,
    });
    expect(buildObservations(hairpin, ctx()).slice(0, 2)).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: '10.10.1.5' },
      {
        component: 'LB',
        action: 'Forwarded',
        translatedDstIP: '10.10.1.5',
        translatedSrcIP: '169.254.0.253',
      },
    ]);
    // Live traffic traced only at the destination does not report the source side's translation.
    expect(
      buildObservations(hairpin, ctx({ isSender: false, receiverOnly: true })).map((o) => o.component),
    ).toEqual(['Forwarding', 'Forwarding']);
  });

  it('packetInFacts reads the registers, the tunnel destination and conntrack’s original addresses', () => {
    const pipeline = new Pipeline(DEFAULT_FEATURES);
    const ips = { srcIp: '10.10.1.5', dstIp: '10.10.2.6' };
    expect(
      packetInFacts(
        {
          packet: Buffer.alloc(0),
          tableId: pipeline.id('Output'),
          metadata: [
            { field: 'reg1', value: 32768n },
            { field: 'reg3', value: 7n },
            { field: 'reg5', value: 4n },
            { field: 'tun_dst', value: 0xc6131402n },
            { field: 'ct_nw_src', value: 0x0a0a0105n },
            { field: 'ct_nw_dst', value: 0x0a60000an },
          ],
        },
        pipeline,
        ips,
      ),
    ).toEqual({
      table: 'Output',
      targetOfport: 32768,
      deciderConjId: 7,
      egressConjId: 4,
      ingressConjId: 0,
      tunnelDstIp: '198.19.20.2',
      ctSrcIp: '10.10.1.5',
      ctDstIp: '10.96.0.10',
      ...ips,
    });
    // Without conntrack fields (an untracked packet) there is nothing to compare: no LB.
    const bare = packetInFacts({ packet: Buffer.alloc(0), metadata: [] }, pipeline, ips);
    expect([bare.ctSrcIp, bare.ctDstIp, bare.tunnelDstIp, bare.table]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
