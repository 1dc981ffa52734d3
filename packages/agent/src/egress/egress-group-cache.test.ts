import { parseIPGo } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { EgressGroupCache } from './egress-group-cache.js';

const member = (name: string, ip: string) => ({ pod: { name, namespace: 'ns' }, ips: [parseIPGo(ip)!] });

describe('EgressGroupCache', () => {
  it('holds full groups and applies patches and deletes', () => {
    let changes = 0;
    const cache = new EgressGroupCache(() => changes++);
    expect(cache.synced).toBe(false);
    cache.replace('egressgroups', [{ metadata: { name: 'eg' }, groupMembers: [member('a', '10.0.0.2')] }]);
    expect(cache.synced).toBe(true);
    expect(cache.podIps('eg')).toEqual(['10.0.0.2']);
    cache.apply('egressgroups', 'MODIFIED', 'eg', {
      metadata: { name: 'eg' },
      addedGroupMembers: [member('b', '10.0.0.3')],
      removedGroupMembers: [member('a', '10.0.0.2')],
    });
    expect(cache.podIps('eg')).toEqual(['10.0.0.3']);
    cache.apply('egressgroups', 'DELETED', 'eg', { metadata: { name: 'eg' } });
    expect(cache.podIps('eg')).toEqual([]);
    expect(changes).toBe(3);
  });
});
