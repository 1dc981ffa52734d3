import { describe, expect, it } from 'vitest';
import { EXPECTED_BRIDGE_OBSERVATIONS, observeBridgeClient } from './bridge-client-contract.js';
import { FakeBridgeClient } from './fake-bridge-client.js';

describe('FakeBridgeClient', () => {
  it('behaves like OvsBridgeClient on the shared scenario', async () => {
    expect(await observeBridgeClient(new FakeBridgeClient())).toEqual(EXPECTED_BRIDGE_OBSERVATIONS);
  });

  it('gives the bridge port OpenFlow LOCAL and reports interface errors like ovs-vswitchd', async () => {
    const fake = new FakeBridgeClient();
    await fake.ensureBridge('br-int');
    expect(await fake.waitForOfport('br-int')).toBe(65534);
    fake.interfaceErrors.set('bad0', 'could not open network device bad0 (No such device)');
    await fake.addPort('br-int', { name: 'bad0' });
    await expect(fake.waitForOfport('bad0')).rejects.toMatchObject({ code: 'OVSDB_INTERFACE_ERROR' });
  });
});
