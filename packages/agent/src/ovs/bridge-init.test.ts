import { FakeBridgeClient } from '@antrea-ts/ovsdb/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { makeConfig } from '../config.js';
import { initBridge, persistRound } from './bridge-init.js';

const logger = pino({ level: 'silent' });

describe('bridge init', () => {
  it('creates br-int with the gateway and a flow-based tunnel at Antrea’s ofports', async () => {
    const bridges = new FakeBridgeClient();
    const cfg = makeConfig({ nodeName: 'n1', datapathType: 'netdev' });
    const state = await initBridge(bridges, cfg, 1450, logger);
    expect(state).toMatchObject({
      gatewayOfport: 32769,
      tunnelOfport: 32768,
      round: 1,
      previousRound: undefined,
    });
    const br = await bridges.getBridge('br-int');
    expect(br).toMatchObject({
      datapathType: 'netdev',
      failMode: 'secure',
      protocols: ['OpenFlow10', 'OpenFlow15'],
    });
    const tun = await bridges.getInterface('antrea-tun0');
    expect(tun).toMatchObject({ type: 'geneve', options: { remote_ip: 'flow', key: 'flow' } });
    expect((await bridges.getInterface('antrea-gw0'))?.externalIds).toEqual({ 'antrea-type': 'gateway' });
  });

  it('adopts what a previous run left, converts the tunnel type, advances the round', async () => {
    const bridges = new FakeBridgeClient();
    const first = makeConfig({ nodeName: 'n1', datapathType: 'netdev' });
    await initBridge(bridges, first, 1450, logger);
    await persistRound(bridges, first, 1);
    const again = await initBridge(
      bridges,
      makeConfig({ nodeName: 'n1', datapathType: 'netdev', tunnelType: 'vxlan' }),
      1450,
      logger,
    );
    expect(again).toMatchObject({ round: 2, previousRound: 1, gatewayOfport: 32769, tunnelOfport: 32768 });
    expect((await bridges.getInterface('antrea-tun0'))?.type).toBe('vxlan');
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual([
      'antrea-gw0',
      'antrea-tun0',
      'br-int',
    ]);
  });

  it('drops the tunnel in modes without encapsulation', async () => {
    const bridges = new FakeBridgeClient();
    await initBridge(bridges, makeConfig({ nodeName: 'n1' }), 1450, logger);
    const state = await initBridge(
      bridges,
      makeConfig({ nodeName: 'n1', trafficEncapMode: 'noEncap' }),
      1500,
      logger,
    );
    expect(state.tunnelOfport).toBeUndefined();
    expect(await bridges.getInterface('antrea-tun0')).toBeUndefined();
  });
});
