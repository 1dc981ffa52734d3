import type { V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { InformerLike } from '../informers/informers.js';
import { CidrAllocator, type CidrAllocatorOptions } from './cidr-allocator.js';
import { NodeIpamError } from './errors.js';

/** The Node API NodeIPAM needs (KubeNodeClient in production, a fake in unit tests). */
export interface NodeClient {
  list(): Promise<V1Node[]>;
  /** Sets spec.podCIDR (the first) and spec.podCIDRs on a Node that has none. */
  setPodCIDRs(name: string, cidrs: string[]): Promise<void>;
}

export interface NodeIpamOptions {
  logger: Logger;
  nodes: NodeClient;
  /** Node events (add, update, delete); started by the controller after its initial list. */
  informer: InformerLike<V1Node>;
  /** One per IP family, IPv4 first when dual-stack (Nodes' podCIDRs keep this order). */
  clusterCIDRs: readonly CidrAllocatorOptions[];
  /** Delay before retrying a failed allocation. Default 5 s. */
  retryMs?: number;
}

function nodeCidrs(node: V1Node): string[] {
  const spec = node.spec;
  if (spec?.podCIDRs?.length) return spec.podCIDRs;
  return spec?.podCIDR ? [spec.podCIDR] : [];
}

/**
 * NodeIPAM inside antrea-controller (Antrea's `nodeIPAM` option, where no kube-controller-manager
 * allocates): every Node without a podCIDR gets one per configured cluster CIDR. Allocations live
 * in the Node objects only: start() lists the Nodes and marks their podCIDRs used before handing
 * out anything, so a restarted controller never hands out a podCIDR twice; a deleted Node's
 * podCIDRs return to the pool.
 */
export class NodeIpamController {
  readonly #log: Logger;
  readonly #opts: NodeIpamOptions;
  readonly #allocators: CidrAllocator[];
  /** podCIDRs we know each Node has (from the Node, or written by us). */
  readonly #byNode = new Map<string, string[]>();
  /** Nodes being written, so an update event in between does not allocate again. */
  readonly #pending = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #started = false;

  constructor(opts: NodeIpamOptions) {
    if (opts.clusterCIDRs.length === 0 || opts.clusterCIDRs.length > 2) {
      throw new NodeIpamError('CONTROLLER_NODEIPAM_INVALID_CONFIG', 'one or two cluster CIDRs are required');
    }
    this.#log = opts.logger.child({ component: 'node-ipam' });
    this.#opts = opts;
    this.#allocators = opts.clusterCIDRs.map((c) => new CidrAllocator(c));
    if (this.#allocators.length === 2 && this.#allocators[0]!.family === this.#allocators[1]!.family) {
      throw new NodeIpamError(
        'CONTROLLER_NODEIPAM_INVALID_CONFIG',
        'dual-stack needs one CIDR per IP family',
      );
    }
  }

  /** podCIDRs of a Node as NodeIPAM knows them. */
  cidrsOf(node: string): readonly string[] | undefined {
    return this.#byNode.get(node);
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const existing = await this.#opts.nodes.list();
    for (const n of existing) this.#remember(n);
    const inf = this.#opts.informer;
    inf.on('add', (n) => this.#onNode(n));
    inf.on('update', (n) => this.#onNode(n));
    inf.on('delete', (n) => this.#onDelete(n));
    inf.on('error', (err) => {
      if (!this.#started) return;
      this.#log.warn({ err }, 'node informer failed; restarting');
      this.#later(() => void inf.start().catch(() => {}));
    });
    // Nodes listed without a podCIDR: allocate now (the informer's adds for them are then no-ops).
    await Promise.all(existing.filter((n) => nodeCidrs(n).length === 0).map((n) => this.#allocate(n)));
    await inf.start();
    this.#log.info({ nodes: existing.length, used: this.#allocators.map((a) => a.used) }, 'NodeIPAM started');
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await this.#opts.informer.stop();
  }

  #remember(node: V1Node): void {
    const name = node.metadata?.name ?? '';
    const cidrs = nodeCidrs(node);
    if (cidrs.length === 0) return;
    for (const c of cidrs) {
      // A podCIDR outside our pools (set by someone else) is left alone.
      if (!this.#allocators.some((a) => a.occupy(c)))
        this.#log.debug({ node: name, cidr: c }, 'foreign podCIDR');
    }
    this.#byNode.set(name, cidrs);
  }

  #onNode(node: V1Node): void {
    const name = node.metadata?.name ?? '';
    if (nodeCidrs(node).length > 0) {
      this.#remember(node);
      return;
    }
    if (this.#byNode.has(name) || this.#pending.has(name)) return;
    void this.#allocate(node);
  }

  #onDelete(node: V1Node): void {
    const name = node.metadata?.name ?? '';
    const cidrs = this.#byNode.get(name) ?? nodeCidrs(node);
    this.#byNode.delete(name);
    for (const c of cidrs) for (const a of this.#allocators) a.release(c);
    if (cidrs.length > 0) this.#log.info({ node: name, cidrs }, 'released podCIDRs');
  }

  async #allocate(node: V1Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (!this.#started || this.#pending.has(name) || this.#byNode.has(name)) return;
    this.#pending.add(name);
    const cidrs: string[] = [];
    try {
      for (const a of this.#allocators) cidrs.push(a.allocate());
      await this.#opts.nodes.setPodCIDRs(name, cidrs);
      this.#byNode.set(name, cidrs);
      this.#log.info({ node: name, cidrs }, 'allocated podCIDRs');
    } catch (err) {
      // Give back what was taken; the Node gets another try later (a freed podCIDR, a fixed API).
      for (const c of cidrs) for (const a of this.#allocators) a.release(c);
      const code = (err as { code?: string }).code;
      this.#log.error({ err, node: name, code }, 'podCIDR allocation failed; retrying');
      this.#later(() => {
        if (!this.#byNode.has(name)) void this.#allocate(node);
      });
    } finally {
      this.#pending.delete(name);
    }
  }

  #later(fn: () => void): void {
    if (!this.#started) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, this.#opts.retryMs ?? 5000);
    t.unref();
    this.#timers.add(t);
  }
}
