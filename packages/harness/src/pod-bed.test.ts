import { describe, expect, it } from 'vitest';
import { NET_PREFIX, uniqueTag } from './netns.js';
import { podBedBridgeArgs, podBedNames } from './pod-bed.js';

describe('podBedNames', () => {
  it('gives host ports that fit Linux link names whatever the Pod is called', () => {
    const { hostPort } = podBedNames(uniqueTag(), 999, 'a-rather-long-pod-name');
    expect(hostPort.length).toBeLessThanOrEqual(15);
    expect(hostPort.startsWith(NET_PREFIX)).toBe(true);
  });

  it('keeps Pods of one bed and beds of different runs apart', () => {
    const [t1, t2] = ['a1b2c3', 'd4e5f6'];
    const names = [podBedNames(t1, 0, 'a'), podBedNames(t1, 1, 'b'), podBedNames(t2, 0, 'a')];
    expect(new Set(names.map((n) => n.netns)).size).toBe(3);
    expect(new Set(names.map((n) => n.hostPort)).size).toBe(3);
    // Netns are global: the leak check finds them by prefix, the tag tells runs apart.
    expect(names[0]!.netns).toBe(`${NET_PREFIX}-a1b2c3-pod-a`);
  });
});

describe('podBedBridgeArgs', () => {
  it('adds a netdev bridge in secure fail mode, with OpenFlow versions only when asked', () => {
    expect(podBedBridgeArgs('br-x')).toEqual([
      '--may-exist',
      'add-br',
      'br-x',
      '--',
      'set',
      'bridge',
      'br-x',
      'datapath_type=netdev',
      'fail_mode=secure',
    ]);
    expect(podBedBridgeArgs('br-x', ['OpenFlow10', 'OpenFlow15']).at(-1)).toBe(
      'protocols=OpenFlow10,OpenFlow15',
    );
  });
});
