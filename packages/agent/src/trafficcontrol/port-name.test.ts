import { describe, expect, it } from 'vitest';
import { trafficControlPortName } from './port-name.js';

describe('trafficControlPortName', () => {
  it('names tunnels as Antrea does, defaults and explicit defaults alike', () => {
    // The names Antrea's agent gives these tunnels (its unit test's expectations).
    for (const vxlan of [
      { remoteIP: '1.1.1.1' },
      { remoteIP: '1.1.1.1', destinationPort: 4789 },
      { remoteIP: '1.1.1.1', vni: 0, destinationPort: 4789 },
    ]) {
      expect(trafficControlPortName({ vxlan })).toBe('vxlan-cb3ab8');
    }
    expect(trafficControlPortName({ geneve: { remoteIP: '1.1.1.1' } })).toBe('geneve-e17764');
    expect(trafficControlPortName({ geneve: { remoteIP: '1.1.1.1', vni: 0 } })).toBe('geneve-e17764');
    expect(trafficControlPortName({ gre: { remoteIP: '1.1.1.1', key: 0 } })).toBe('gre-b2d3bd');
    expect(trafficControlPortName({ erspan: { remoteIP: '1.1.1.1', version: 1 } })).toBe('erspan-9de667');
  });

  it('gives tunnels that differ in anything different names', () => {
    const names = new Set(
      [
        { geneve: { remoteIP: '1.1.1.1' } },
        { geneve: { remoteIP: '1.1.1.2' } },
        { geneve: { remoteIP: '1.1.1.1', vni: 7 } },
        { geneve: { remoteIP: '1.1.1.1', destinationPort: 6082 } },
        { vxlan: { remoteIP: 'fd00::2' } },
        { vxlan: { remoteIP: 'fd00::3' } },
      ].map(trafficControlPortName),
    );
    expect(names.size).toBe(6);
  });

  it('keeps the names of internal ports and devices', () => {
    expect(trafficControlPortName({ ovsInternal: { name: 'tap0' } })).toBe('tap0');
    expect(trafficControlPortName({ device: { name: 'eno2' } })).toBe('eno2');
  });
});
