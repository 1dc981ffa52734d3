import type { TrafficControl, TrafficControlPort } from '@antrea-ts/apis';
import { type Flow, formatFlow } from '@antrea-ts/openflow';
import { FakeBridgeClient } from '@antrea-ts/ovsdb/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import { CookieAllocator } from '../openflow/cookie.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { MemoryTrafficControlSource } from './memory-traffic-control-source.js';
import { TrafficControlController } from './traffic-control-controller.js';

const BR = 'br-int';
const ctx = {
  pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'trafficControl'])),
  cookies: new CookieAllocator(1),
};

const tc = (name: string, targetPort: TrafficControlPort): TrafficControl => ({
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name },
  spec: { appliedTo: { podSelector: {} }, direction: 'Egress', action: 'Mirror', targetPort },
});

const web = { podName: 'web', podNamespace: 'ns', ofport: 9 } as PodInterface;

async function setUp(
  tcs: TrafficControl[],
  prepare: (b: FakeBridgeClient) => Promise<void> = async () => {},
) {
  const bridges = new FakeBridgeClient();
  await bridges.ensureBridge(BR);
  await prepare(bridges);
  const source = new MemoryTrafficControlSource();
  const owned = new Map<string, Flow[]>();
  const linksUp: string[] = [];
  const errors: unknown[] = [];
  const logger = pino({ level: 'silent' });
  logger.warn = ((obj: { err?: unknown }) => void errors.push(obj.err)) as typeof logger.warn;
  const controller = new TrafficControlController({
    source,
    bridges,
    bridgeName: BR,
    flows: {
      replace: async (owner: string, flows: readonly Flow[]) => void owned.set(owner, [...flows]),
    },
    ctx,
    pods: () => [web],
    setLinkUp: async (name) => void linksUp.push(name),
    logger,
  });
  await controller.start();
  source.set({
    trafficControls: tcs,
    pods: [{ namespace: 'ns', name: 'web', labels: { app: 'web' }, hostNetwork: false }],
  });
  const marks = () => (owned.get('trafficcontrol/marks') ?? []).map((f) => formatFlow(f));
  const settle = () => new Promise((r) => setTimeout(r, 50));
  return { bridges, source, controller, marks, linksUp, errors, settle };
}

describe('TrafficControlController', () => {
  it('realizes the TrafficControls whose ports are ready and retries one whose device is missing', async () => {
    const t = await setUp(
      [tc('a-device', { device: { name: 'eth9' } }), tc('b-tap', { ovsInternal: { name: 'tap0' } })],
      async (b) => {
        b.interfaceErrors.set('eth9', 'could not open network device eth9 (No such device)');
      },
    );
    await t.settle();
    // The Pod goes to 'a-device' (first by name), whose port is not ready: no marks yet for it.
    expect(t.marks()).toEqual([]);
    expect(t.errors.some((e) => (e as { code?: string }).code === 'AGENT_TRAFFIC_CONTROL_FAILED')).toBe(true);
    expect(t.linksUp).toEqual(['tap0']);
    let synced = false;
    void t.controller.synced().then(() => {
      synced = true;
    });
    // The device appears: ovs-vswitchd gives the interface an ofport; the retry picks it up.
    t.bridges.ports.get('eth9')!.iface.ofport = 20;
    t.source.set({});
    await t.settle();
    expect(synced).toBe(true);
    expect(t.marks()).toEqual([expect.stringMatching(/in_port=9 actions=set_field:0x14->reg9/)]);
    await t.controller.stop();
  });

  it("removes a previous run's TrafficControl ports nobody names, never other ports", async () => {
    const t = await setUp([tc('a', { ovsInternal: { name: 'tap0' } })], async (b) => {
      await b.addPort(BR, {
        name: 'old-tap',
        type: 'internal',
        externalIds: { 'antrea-type': 'traffic-control' },
      });
      await b.addPort(BR, { name: 'users-port', type: 'internal' });
    });
    await t.controller.synced();
    expect([...t.bridges.ports.keys()].sort()).toEqual(['br-int', 'tap0', 'users-port']);
    t.source.set({ trafficControls: [] });
    await t.settle();
    expect([...t.bridges.ports.keys()].sort()).toEqual(['br-int', 'users-port']);
    expect(t.marks()).toEqual([]);
    await t.controller.stop();
  });
});
