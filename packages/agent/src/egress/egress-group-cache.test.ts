import { parseIPGo } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { EgressGroupCache } from './egress-group-cache.js';
import { selectorMatches } from './label-match.js';

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

describe('selectorMatches', () => {
  it('follows metav1.LabelSelector semantics', () => {
    const labels = { role: 'egress', zone: 'a' };
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { role: 'egress' } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { role: 'web' } }, labels)).toBe(false);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, labels),
    ).toBe(true);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, labels),
    ).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, labels)).toBe(
      true,
    );
    expect(selectorMatches({ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, labels)).toBe(false);
  });
});
