import type { V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { InformerLike } from '../informers/informers.js';
import { CidrAllocator, formatAddress } from './cidr-allocator.js';
import { type NodeClient, NodeIpamController } from './node-ipam-controller.js';

const logger = pino({ level: 'silent' });

/** An in-memory API server for Nodes: a NodeClient plus the informer fed by its changes. */
class FakeNodes implements NodeClient {
  readonly nodes = new Map<string, V1Node>();
  failWrites = 0;
  readonly #handlers: Record<string, ((n: V1Node) => void)[]> = { add: [], update: [], delete: [] };
  running = false;

  informer(): InformerLike<V1Node> {
    return {
      on: (verb: string, cb: (n: V1Node) => void) => {
        this.#handlers[verb]?.push(cb);
      },
      start: async () => {
        this.running = true;
        for (const n of this.nodes.values()) this.#emit('add', n);
      },
      stop: async () => {
        this.running = false;
      },
    } as InformerLike<V1Node>;
  }
  #emit(verb: string, n: V1Node): void {
    if (this.running) for (const h of this.#handlers[verb] ?? []) h(structuredClone(n));
  }
  add(name: string, podCIDRs?: string[]): void {
    const n: V1Node = { metadata: { name }, spec: podCIDRs ? { podCIDR: podCIDRs[0], podCIDRs } : {} };
    this.nodes.set(name, n);
    this.#emit('add', n);
  }
  remove(name: string): void {
    const n = this.nodes.get(name)!;
    this.nodes.delete(name);
    this.#emit('delete', n);
  }
  async list(): Promise<V1Node[]> {
    return [...this.nodes.values()].map((n) => structuredClone(n));
  }
  async setPodCIDRs(name: string, cidrs: string[]): Promise<void> {
    if (this.failWrites > 0) {
      this.failWrites--;
      throw Object.assign(new Error('conflict'), { code: 'X' });
    }
    const n = this.nodes.get(name)!;
    n.spec = { ...n.spec, podCIDR: cidrs[0], podCIDRs: cidrs };
    this.#emit('update', n);
  }
  cidrs(name: string): string[] | undefined {
    return this.nodes.get(name)?.spec?.podCIDRs;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 5));

describe('CidrAllocator', () => {
  it('splits a cluster CIDR into podCIDRs, skips occupied ones and runs out with a coded error', () => {
    const a = new CidrAllocator({ clusterCIDR: '10.244.0.0/22', nodeMaskSize: 24 });
    expect(a.occupy('10.244.1.0/24')).toBe(true);
    expect(a.occupy('10.245.0.0/24')).toBe(false);
    expect(a.occupy('10.244.2.0/25')).toBe(false);
    expect([a.allocate(), a.allocate(), a.allocate()]).toEqual([
      '10.244.0.0/24',
      '10.244.2.0/24',
      '10.244.3.0/24',
    ]);
    expect(() => a.allocate()).toThrow(expect.objectContaining({ code: 'CONTROLLER_NODEIPAM_EXHAUSTED' }));
    a.release('10.244.2.0/24');
    expect(a.allocate()).toBe('10.244.2.0/24');
  });

  it('handles IPv6 and prints addresses as Go does', () => {
    const a = new CidrAllocator({ clusterCIDR: 'fd00:10:244::/56', nodeMaskSize: 64 });
    expect(a.allocate()).toBe('fd00:10:244::/64');
    expect(a.allocate()).toBe('fd00:10:244:1::/64');
    expect(formatAddress(6, 1n)).toBe('::1');
    expect(formatAddress(6, 0x20010db8000000000001000000000001n)).toBe('2001:db8::1:0:0:1');
    expect(() => new CidrAllocator({ clusterCIDR: '10.0.0.0/24', nodeMaskSize: 16 })).toThrow(
      expect.objectContaining({ code: 'CONTROLLER_NODEIPAM_INVALID_CONFIG' }),
    );
    expect(() => new CidrAllocator({ clusterCIDR: '10.0.0/24', nodeMaskSize: 26 })).toThrow(
      expect.objectContaining({ code: 'CONTROLLER_NODEIPAM_INVALID_CONFIG' }),
    );
  });
});

describe('NodeIpamController', () => {
  const v4 = { clusterCIDR: '10.244.0.0/16', nodeMaskSize: 24 };
  const v6 = { clusterCIDR: 'fd00:10:244::/56', nodeMaskSize: 64 };

  it('allocates to Nodes without a podCIDR, keeps existing ones and frees them when Nodes go', async () => {
    const api = new FakeNodes();
    api.add('a', ['10.244.0.0/24']);
    api.add('b');
    const ipam = new NodeIpamController({ logger, nodes: api, informer: api.informer(), clusterCIDRs: [v4] });
    await ipam.start();
    await settle();
    expect(api.cidrs('a')).toEqual(['10.244.0.0/24']);
    expect(api.cidrs('b')).toEqual(['10.244.1.0/24']);
    api.add('c');
    await settle();
    expect(api.cidrs('c')).toEqual(['10.244.2.0/24']);
    api.remove('a');
    await ipam.stop();
  });

  it('rebuilds from the Nodes after a restart and never hands out a podCIDR twice', async () => {
    const api = new FakeNodes();
    for (const n of ['a', 'b', 'c']) api.add(n);
    const first = new NodeIpamController({
      logger,
      nodes: api,
      informer: api.informer(),
      clusterCIDRs: [v4],
    });
    await first.start();
    await settle();
    const before = ['a', 'b', 'c'].map((n) => api.cidrs(n)![0]);
    await first.stop();
    api.running = false;
    api.add('d');
    const second = new NodeIpamController({
      logger,
      nodes: api,
      informer: api.informer(),
      clusterCIDRs: [v4],
    });
    await second.start();
    await settle();
    expect(['a', 'b', 'c'].map((n) => api.cidrs(n)![0])).toEqual(before);
    const all = ['a', 'b', 'c', 'd'].map((n) => api.cidrs(n)![0]);
    expect(new Set(all).size).toBe(4);
    await second.stop();
  });

  it('reuses a released podCIDR once the pool is full, and retries a Node when none is left', async () => {
    const api = new FakeNodes();
    const ipam = new NodeIpamController({
      logger,
      nodes: api,
      informer: api.informer(),
      clusterCIDRs: [{ clusterCIDR: '10.0.0.0/23', nodeMaskSize: 24 }],
      retryMs: 10,
    });
    await ipam.start();
    api.add('a');
    api.add('b');
    await settle();
    api.add('c');
    await settle();
    expect(api.cidrs('c')).toBeUndefined();
    const freed = api.cidrs('a')![0];
    api.remove('a');
    await new Promise((r) => setTimeout(r, 40));
    expect(api.cidrs('c')).toEqual([freed]);
    await ipam.stop();
  });

  it('allocates one podCIDR per family when dual-stack, IPv4 first, and retries failed writes', async () => {
    const api = new FakeNodes();
    api.failWrites = 1;
    api.add('a');
    const ipam = new NodeIpamController({
      logger,
      nodes: api,
      informer: api.informer(),
      clusterCIDRs: [v4, v6],
      retryMs: 10,
    });
    await ipam.start();
    await new Promise((r) => setTimeout(r, 40));
    // The cursor moved past the failed attempt's podCIDRs (given back, like kube's allocator).
    expect(api.cidrs('a')).toEqual(['10.244.1.0/24', 'fd00:10:244:1::/64']);
    expect(api.nodes.get('a')!.spec!.podCIDR).toBe('10.244.1.0/24');
    expect(ipam.cidrsOf('a')).toEqual(api.cidrs('a'));
    await ipam.stop();
    expect(
      () => new NodeIpamController({ logger, nodes: api, informer: api.informer(), clusterCIDRs: [v4, v4] }),
    ).toThrow(expect.objectContaining({ code: 'CONTROLLER_NODEIPAM_INVALID_CONFIG' }));
  });
});
