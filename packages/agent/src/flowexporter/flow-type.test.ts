import { describe, expect, it } from 'vitest';
import type { Connection } from './connection.js';
import { FlowType, flowTypeOf, podCidrClassifier, readOncePerTurn, UNSUPPORTED_FLOW } from './flow-type.js';

const conn = (srcIp: string, dstIp: string, srcPod: boolean, dstPod: boolean) =>
  ({
    srcIp,
    dstIp,
    srcPod: srcPod ? { name: 's', namespace: 'n' } : undefined,
    dstPod: dstPod ? { name: 'd', namespace: 'n' } : undefined,
  }) as Connection;

describe('flow type', () => {
  let cidrs = ['10.10.0.0/24', '10.10.1.0/24'];
  const classify = podCidrClassifier(() => cidrs);

  it('classifies as Antrea’s findFlowType does', () => {
    expect(flowTypeOf(conn('10.10.0.2', '10.10.0.3', true, true), classify, false)).toBe(FlowType.intraNode);
    expect(flowTypeOf(conn('10.10.0.2', '10.10.1.3', true, false), classify, false)).toBe(FlowType.interNode);
    expect(flowTypeOf(conn('10.10.0.2', '8.8.8.8', true, false), classify, false)).toBe(FlowType.toExternal);
    expect(flowTypeOf(conn('192.0.2.7', '10.10.0.3', false, true), classify, false)).toBe(
      FlowType.fromExternal,
    );
    // To a gateway, or from a remote gateway to no local Pod: not exported.
    expect(flowTypeOf(conn('10.10.0.2', '10.10.0.1', true, false), classify, false)).toBe(UNSUPPORTED_FLOW);
    expect(flowTypeOf(conn('10.10.1.1', '10.10.0.3', false, true), classify, false)).toBe(FlowType.interNode);
    expect(flowTypeOf(conn('10.10.1.1', '10.10.0.9', false, false), classify, false)).toBe(UNSUPPORTED_FLOW);
    // networkPolicyOnly: only whether both ends are local.
    expect(flowTypeOf(conn('10.10.0.2', '8.8.8.8', true, false), classify, true)).toBe(FlowType.interNode);
  });

  it('follows the podCIDR list when it changes (a Node joins)', () => {
    expect(classify('10.10.2.5')).toEqual({ isPod: false, isGateway: false });
    cidrs = [...cidrs, '10.10.2.0/24'];
    expect(classify('10.10.2.5')).toEqual({ isPod: true, isGateway: false });
    expect(classify('10.10.2.1')).toEqual({ isPod: true, isGateway: true });
  });

  it('readOncePerTurn: one read per synchronous run, a changed list seen on the next', async () => {
    let reads = 0;
    let list = ['10.10.0.0/24'];
    const perTurn = podCidrClassifier(
      readOncePerTurn(() => {
        reads++;
        return list;
      }),
    );
    for (let i = 0; i < 100; i++) perTurn(`10.10.0.${i}`);
    expect(reads).toBe(1);
    list = ['10.10.0.0/24', '10.10.2.0/24'];
    await Promise.resolve();
    expect(perTurn('10.10.2.5')).toEqual({ isPod: true, isGateway: false });
    expect(reads).toBe(2);
  });
});
