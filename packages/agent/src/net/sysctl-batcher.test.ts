import { describe, expect, it } from 'vitest';
import type { CommandRunner } from './command-runner.js';
import { hostVethSysctls, SysctlBatcher } from './sysctl-batcher.js';

/** `sysctl -w` that fails for any key of a missing interface. */
class FakeSysctl implements CommandRunner {
  calls: string[][] = [];
  async run(argv: readonly string[]): Promise<string> {
    this.calls.push([...argv]);
    await new Promise((r) => setTimeout(r, 5));
    if (argv.some((a) => a.includes('/gone/'))) throw new Error('sysctl: cannot stat');
    return '';
  }
}

describe('SysctlBatcher', () => {
  it('writes the host-end sysctls of concurrent Pods with one sysctl process', async () => {
    const sysctl = new FakeSysctl();
    const b = new SysctlBatcher(sysctl);
    await Promise.all([
      b.set(hostVethSysctls('p0')),
      b.set(hostVethSysctls('p1')),
      b.set(hostVethSysctls('p2')),
    ]);
    expect(sysctl.calls).toEqual([
      ['sysctl', '-q', '-w', 'net/ipv4/conf/p0/arp_ignore=1', 'net/ipv4/conf/p0/forwarding=0'],
      [
        'sysctl',
        '-q',
        '-w',
        'net/ipv4/conf/p1/arp_ignore=1',
        'net/ipv4/conf/p1/forwarding=0',
        'net/ipv4/conf/p2/arp_ignore=1',
        'net/ipv4/conf/p2/forwarding=0',
      ],
    ]);
  });

  it('retries a failed group caller by caller, failing only the faulty one', async () => {
    const b = new SysctlBatcher(new FakeSysctl());
    const first = b.set(hostVethSysctls('p0'));
    const results = await Promise.allSettled([
      first,
      b.set(hostVethSysctls('gone')),
      b.set(hostVethSysctls('p2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('refuses keys or values that are not plain words', () => {
    expect(() => new SysctlBatcher(new FakeSysctl()).set({ 'net/x y': '1' })).toThrow(/bad sysctl/);
  });
});
