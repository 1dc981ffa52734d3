import { formatFlow, formatGroup } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../pipeline.js';
import {
  type ServicePortFlowConfig,
  servicePortFlows,
  serviceStaticFlows,
  VIRTUAL_NODEPORT_DNAT_IP,
} from './service.js';

const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };
const id = (name: Parameters<typeof ctx.pipeline.id>[0]) => ctx.pipeline.id(name);
const svc: ServicePortFlowConfig = {
  clusterIp: '10.96.0.10',
  port: 80,
  protocol: 'TCP',
  groupId: 7,
  endpoints: [
    { ip: '10.10.1.5', port: 8080 },
    { ip: '10.10.2.5', port: 8080 },
  ],
};
const lines = (c: ServicePortFlowConfig) =>
  servicePortFlows(ctx, c, 'fiveTuple').flows.map((f) => formatFlow(f));
const inTable = (all: string[], table: number) => all.filter((l) => l.includes(`table=${table},`));

describe('service flows: LoadBalancer ingress IPs and externalIPs', () => {
  it('match each external IP on the service port and share the ClusterIP’s group, marked ToClusterService', () => {
    const lb = lines({ ...svc, externalIps: ['172.31.31.10', '172.31.31.11'] });
    const lbFlows = inTable(lb, id('ServiceLB'));
    expect(lbFlows).toHaveLength(3);
    for (const ip of ['10.96.0.10', '172.31.31.10', '172.31.31.11']) {
      const flow = lbFlows.find((l) => l.includes(`nw_dst=${ip},`));
      expect(flow).toContain('tp_dst=80');
      expect(flow).toContain('group:7');
    }
    // Only the external ones carry reg4[21] (SNATed when they came from outside to another Node).
    expect(lbFlows.filter((l) => l.includes('0x200000/0x200000->reg4'))).toHaveLength(2);
    expect(lbFlows.find((l) => l.includes('nw_dst=10.96.0.10,'))).not.toContain('0x200000/0x200000->reg4');
    // One DNAT flow per endpoint, whatever the number of VIPs.
    expect(inTable(lb, id('EndpointDNAT'))).toHaveLength(2);
  });

  it('reject every VIP of a port without endpoints', () => {
    const empty = lines({ ...svc, endpoints: [], externalIps: ['172.31.31.10'] });
    expect(empty).toHaveLength(2);
    for (const l of empty) expect(l).toContain('set_field:0x4000/0x4000->reg0');
  });

  it('keep affinity on every VIP (a learn flow each)', () => {
    const sticky = lines({ ...svc, externalIps: ['172.31.31.10'], affinityTimeoutSeconds: 60 });
    expect(inTable(sticky, id('ServiceLB')).filter((l) => l.includes('learn('))).toHaveLength(2);
  });
});

describe('service flows: NodePort and externalTrafficPolicy Local (proxyAll)', () => {
  it('a nodePort matches the NodePort-address mark and the node port, to the same group', () => {
    const np = inTable(lines({ ...svc, nodePort: 30080 }), id('ServiceLB'));
    const flow = np.find((l) => l.includes('tp_dst=30080'));
    expect(flow).toBeDefined();
    expect(flow).not.toContain('nw_dst');
    // reg4[19] ToNodePortAddress and reg4[16..18] = 1 (EpToSelect), merged into one masked match.
    expect(flow).toContain('reg4=0x90000/0xf0000');
    expect(flow).toContain('group:7');
  });

  it('Local: from the gateway, the external VIPs and nodePort go to the local group; Pods keep the cluster group', () => {
    const local = { groupId: 8, endpoints: [{ ip: '10.10.1.5', port: 8080 }] };
    const { flows, groups } = servicePortFlows(
      ctx,
      { ...svc, externalIps: ['172.31.31.10'], nodePort: 30080, local },
      'fiveTuple',
    );
    const all = flows.map((f) => formatFlow(f));
    const fromGateway = inTable(all, id('ServiceLB')).filter((l) => l.includes('priority=210'));
    expect(fromGateway).toHaveLength(2);
    for (const l of fromGateway) {
      expect(l).toContain('reg0=0x2/0xf');
      expect(l).toContain('group:8');
    }
    // Not from the Node itself (reg4[20] FromLocalNode clear): Antrea treats that as Cluster.
    expect(fromGateway.find((l) => l.includes('tp_dst=30080'))).toContain('reg4=0x90000/0x1f0000');
    expect(fromGateway.find((l) => l.includes('nw_dst=172.31.31.10'))).toContain('reg4=0x10000/0x170000');
    // Nothing is SNATed under Local (the client address is kept).
    expect(all.some((l) => l.includes('0x200000/0x200000->reg4'))).toBe(false);
    expect(groups.map((g) => g.groupId)).toEqual([7, 8]);
    // The local group holds 10.10.1.5 only.
    expect(formatGroup(groups[1]!)).toContain('0xa0a0105');
    expect(formatGroup(groups[1]!)).not.toContain('0xa0a0205');
    // The local endpoint has a DNAT flow for each group.
    expect(inTable(all, id('EndpointDNAT')).filter((l) => l.includes('0xa0a0105'))).toHaveLength(2);
  });

  it('Local without an endpoint on this Node: traffic from outside is dropped', () => {
    const { flows } = servicePortFlows(
      ctx,
      { ...svc, nodePort: 30080, local: { groupId: 8, endpoints: [] } },
      'fiveTuple',
    );
    const drop = flows.map((f) => formatFlow(f)).find((l) => l.includes('priority=210'));
    expect(drop).toMatch(/actions=drop$/);
  });

  it('static flows: NodePort addresses marked, SNAT to the gateway IP, replies routed back to the gateway', () => {
    const node = {
      gatewayIp: '10.10.1.1',
      gatewayMac: '02:00:0a:0a:01:01',
      nodePortAddresses: ['198.19.31.2'],
    };
    const all = serviceStaticFlows(ctx, node).map((f) => formatFlow(f));
    const marks = inTable(all, id('NodePortMark')).filter((l) => l.includes('priority=200'));
    expect(marks.map((l) => /nw_dst=([\d.]+)/.exec(l)?.[1])).toEqual([
      '198.19.31.2',
      VIRTUAL_NODEPORT_DNAT_IP,
    ]);
    expect(inTable(all, id('PreRoutingClassifier'))[0]).toContain(`resubmit(,${id('NodePortMark')})`);
    // The Node's own sources (gateway IP, NodePort addresses) from the gateway get FromLocalNode,
    // plus the NodePort mark towards the virtual NodePort IP (its OUTPUT-DNATed NodePorts).
    const fromNode = inTable(all, id('NodePortMark')).filter((l) => l.includes('0x100000/0x100000->reg4'));
    expect(fromNode).toHaveLength(4);
    for (const src of ['10.10.1.1', '198.19.31.2']) {
      const bySrc = fromNode.filter((l) => l.includes(`nw_src=${src}`));
      expect(bySrc.map((l) => /priority=(\d+)/.exec(l)?.[1]).sort()).toEqual(['205', '210']);
      for (const l of bySrc) expect(l).toContain('reg0=0x2/0xf');
      expect(bySrc.find((l) => l.includes('priority=210'))).toContain(
        `nw_dst=${VIRTUAL_NODEPORT_DNAT_IP} actions=set_field:0x80000/0x80000->reg4`,
      );
    }
    // ... and its connections to another Node's endpoint are SNATed whatever the policy.
    const nodeSnat = inTable(all, id('SNATMark')).find(
      (l) => l.includes('priority=195') && l.includes('reg4=0x100000/0x100000'),
    );
    // Service connections (ct_mark[4]) from the gateway (reg0 0x2) to the tunnel (reg0 0x10).
    expect(nodeSnat).toContain('ct_mark=0x10/0x10,ip,reg0=0x12/0xff');
    expect(nodeSnat).toContain('ct(commit');
    expect(inTable(all, id('UnSNAT')).some((l) => l.includes('nw_dst=10.10.1.1'))).toBe(true);
    expect(inTable(all, id('SNAT')).some((l) => l.includes('nat(src=10.10.1.1)'))).toBe(true);
    expect(inTable(all, id('L3Forwarding')).find((l) => l.includes('+rpl+trk'))).toContain(
      'set_field:02:00:0a:0a:01:01->eth_dst',
    );
    // Without proxyAll none of it.
    const plain = serviceStaticFlows(ctx).map((f) => formatFlow(f));
    expect(inTable(plain, id('NodePortMark'))).toEqual([]);
    expect(plain.some((l) => l.includes('10.10.1.1'))).toBe(false);
  });
});
