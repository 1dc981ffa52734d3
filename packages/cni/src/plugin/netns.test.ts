import { describe, expect, it } from 'vitest';
import { isOwnNetns } from './netns.js';

describe('isOwnNetns', () => {
  it("recognises this process's own network namespace", async () => {
    expect(await isOwnNetns('/proc/self/ns/net')).toBe(true);
    expect(await isOwnNetns(`/proc/${process.pid}/ns/net`)).toBe(true);
  });

  it('says no for other namespaces, other files and missing paths', async () => {
    expect(await isOwnNetns('/proc/self/ns/mnt')).toBe(false);
    expect(await isOwnNetns('/etc/hostname')).toBe(false);
    expect(await isOwnNetns('/nonexistent/netns')).toBe(false);
  });
});
