import { OvsdbError } from '../errors.js';
import type { BridgeClient } from '../vswitch/bridge-client.js';

/**
 * One scenario run against any BridgeClient, returning what it observed. The unit test runs it on
 * FakeBridgeClient and the integration test on OvsBridgeClient with a real ovs-vswitchd; both
 * compare with EXPECTED_BRIDGE_OBSERVATIONS, which keeps the fake honest.
 */
export async function observeBridgeClient(client: BridgeClient, bridge = 'br-contract'): Promise<unknown> {
  const code = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
      return 'ok';
    } catch (err) {
      return OvsdbError.is(err) ? err.code : `unexpected: ${String(err)}`;
    }
  };
  const first = await client.ensureBridge(bridge, {
    datapathType: 'netdev',
    protocols: ['OpenFlow15'],
    failMode: 'secure',
  });
  const second = await client.ensureBridge(bridge, { externalIds: { owner: 'antrea-ts' } });
  await client.addPort(bridge, {
    name: 'c-gw0',
    type: 'internal',
    ofportRequest: 2,
    externalIds: { 'antrea-type': 'gateway' },
  });
  await client.addPort(bridge, {
    name: 'c-tun0',
    type: 'geneve',
    ofportRequest: 1,
    // A distinct dst_port: ovs-vswitchd refuses a second flow-based tunnel of the same type and
    // port ("File exists"), and the caller may already have one.
    options: { remote_ip: 'flow', key: 'flow', dst_port: '6082' },
  });
  await client.addPort(bridge, { name: 'c-p0', type: 'internal', portExternalIds: { pod: 'web-0' } });
  const gwOfport = await client.waitForOfport('c-gw0');
  const tunOfport = await client.waitForOfport('c-tun0');
  const p0Ofport = await client.waitForOfport('c-p0');
  const duplicate = await code(client.addPort(bridge, { name: 'c-gw0', type: 'internal' }));
  const missingBridge = await code(client.addPort('no-such-bridge', { name: 'c-x', type: 'internal' }));
  const ports = (await client.listPorts(bridge)).map((p) => ({
    name: p.name,
    externalIds: p.externalIds,
    interfaces: p.interfaces.map((i) => ({
      name: i.name,
      type: i.type,
      options: i.options,
      ofportRequest: i.ofportRequest,
    })),
  }));
  const bridgeRow = await client.getBridge(bridge);
  const deleted = [await client.deletePort(bridge, 'c-p0'), await client.deletePort(bridge, 'c-p0')];
  const afterDelete = (await client.listPorts(bridge)).map((p) => p.name);
  const bridgeDeleted = [await client.deleteBridge(bridge), await client.deleteBridge(bridge)];
  return {
    created: [first.created, second.created, first.uuid === second.uuid],
    bridge: {
      datapathType: bridgeRow?.datapathType,
      protocols: bridgeRow?.protocols,
      failMode: bridgeRow?.failMode,
      externalIds: bridgeRow?.externalIds,
      portCount: bridgeRow?.portUuids.length,
    },
    ofports: { gw: gwOfport, tun: tunOfport, p0Assigned: p0Ofport > 2 && p0Ofport < 65280 },
    duplicate,
    missingBridge,
    ports,
    deleted,
    afterDelete,
    bridgeDeleted,
    gone: (await client.getBridge(bridge)) === undefined,
  };
}

export const EXPECTED_BRIDGE_OBSERVATIONS = {
  created: [true, false, true],
  bridge: {
    datapathType: 'netdev',
    protocols: ['OpenFlow15'],
    failMode: 'secure',
    externalIds: { owner: 'antrea-ts' },
    portCount: 4,
  },
  ofports: { gw: 2, tun: 1, p0Assigned: true },
  duplicate: 'OVSDB_TXN_FAILED',
  missingBridge: 'OVSDB_NOT_FOUND',
  ports: [
    {
      name: 'br-contract',
      externalIds: {},
      interfaces: [{ name: 'br-contract', type: 'internal', options: {}, ofportRequest: undefined }],
    },
    {
      name: 'c-gw0',
      externalIds: { 'antrea-type': 'gateway' },
      interfaces: [{ name: 'c-gw0', type: 'internal', options: {}, ofportRequest: 2 }],
    },
    {
      name: 'c-p0',
      externalIds: { pod: 'web-0' },
      interfaces: [{ name: 'c-p0', type: 'internal', options: {}, ofportRequest: undefined }],
    },
    {
      name: 'c-tun0',
      externalIds: {},
      interfaces: [
        {
          name: 'c-tun0',
          type: 'geneve',
          options: { remote_ip: 'flow', key: 'flow', dst_port: '6082' },
          ofportRequest: 1,
        },
      ],
    },
  ],
  deleted: [true, false],
  afterDelete: ['br-contract', 'c-gw0', 'c-tun0'],
  bridgeDeleted: [true, false],
  gone: true,
};
