import { describe, expect, it } from 'vitest';
import { GroupIdAllocator, MAX_SERVICE_GROUP_ID, preferredGroupId } from './group-ids.js';

describe('GroupIdAllocator', () => {
  it('gives the same key the same id in another process (a restart rewrites groups in place)', () => {
    const a = new GroupIdAllocator();
    const b = new GroupIdAllocator();
    const keys = ['service/default/web/http/TCP', 'service/kube-system/kube-dns/dns/UDP'];
    expect(keys.map((k) => a.idFor(k))).toEqual(
      [...keys]
        .reverse()
        .map((k) => b.idFor(k))
        .reverse(),
    );
    expect(a.idFor(keys[0] as string)).toBe(preferredGroupId(keys[0] as string));
  });

  it('keeps ids within 1..0xfffffff0 and distinct over many keys', () => {
    const a = new GroupIdAllocator();
    const ids = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const id = a.idFor(`service/ns${i % 50}/svc${i}/p/TCP`);
      expect(id).toBeGreaterThanOrEqual(1);
      expect(id).toBeLessThanOrEqual(MAX_SERVICE_GROUP_ID);
      ids.add(id);
    }
    expect(ids.size).toBe(5000);
  });

  it('probes the next free id on a collision, wraps at the top, and frees ids on release', () => {
    const a = new GroupIdAllocator(() => MAX_SERVICE_GROUP_ID - 1);
    expect(a.idFor('x')).toBe(MAX_SERVICE_GROUP_ID - 1);
    expect(a.idFor('y')).toBe(MAX_SERVICE_GROUP_ID);
    expect(a.idFor('z')).toBe(1);
    expect(a.idFor('x')).toBe(MAX_SERVICE_GROUP_ID - 1);
    a.release('x');
    expect(a.size).toBe(2);
    expect(a.idFor('w')).toBe(MAX_SERVICE_GROUP_ID - 1);
  });
});
