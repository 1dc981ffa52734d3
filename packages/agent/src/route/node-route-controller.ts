import type { Logger } from 'pino';
import { type AgentConfig, type PeerPath, peerPath } from '../config.js';
import type { NodeInfo } from '../k8s/node-source.js';
import type { HostNetwork } from '../net/host-network.js';
import { gatewayIp, isIpv4, parseCidr } from '../net/ipv4.js';
import { remoteNodeTunnelFlows } from '../openflow/features/tunnel.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { KeyedMutex } from '../util/keyed-mutex.js';

export interface LocalNode {
  readonly name: string;
  readonly nodeIp: string;
  /** The subnet of the transport interface (e.g. 198.18.3.0/24): decides hybrid/noEncap routing. */
  readonly transportSubnet: string;
  readonly transportInterface: string;
  readonly podCidr: string;
  readonly gatewayMac: string;
}

interface PeerState {
  readonly podCidr: string;
  readonly nodeIp: string;
  readonly path: PeerPath;
}

export const nodeFlowOwner = (name: string): string => `node/${name}`;

/**
 * Per remote Node (Antrea pkg/agent/controller/noderoute): the tunnel flow (podCIDR -> tun_dst),
 * the ARP responder for its gateway, and a host route; or, in noEncap/hybrid for Nodes on the same
 * subnet, only a host route via the peer Node IP. Everything is removed when the Node goes.
 * Handlers only record the wanted state; work runs per Node, serialized, so bursts of updates for
 * one Node never race.
 */
export class NodeRouteController {
  private readonly log: Logger;
  private readonly peers = new Map<string, PeerState>();
  private readonly mutex = new KeyedMutex();
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: {
      readonly config: AgentConfig;
      readonly local: LocalNode;
      readonly flows: FlowCache;
      readonly ctx: FlowContext;
      readonly host: HostNetwork;
      readonly logger: Logger;
      /** Told the podCIDRs of all known peers whenever they change (SNAT exclusions). */
      readonly onPeerCidrsChanged?: (cidrs: string[]) => Promise<void>;
    },
  ) {
    this.log = deps.logger.child({ component: 'node-route-controller' });
  }

  upsert(node: NodeInfo): void {
    if (node.name === this.deps.local.name) return;
    this.track(this.mutex.run(node.name, () => this.sync(node)));
  }

  remove(name: string): void {
    if (name === this.deps.local.name) return;
    this.track(this.mutex.run(name, () => this.uninstall(name)));
  }

  /** After the initial list: removes routes on antrea-gw0 left by Nodes that went away while we were down. */
  async synced(names: readonly string[]): Promise<void> {
    await this.idle();
    const known = new Set(names);
    const wanted = new Set([...this.peers.entries()].filter(([n]) => known.has(n)).map(([, p]) => p.podCidr));
    const local = parseCidr(this.deps.local.podCidr);
    for (const r of await this.deps.host.routes(this.deps.config.gatewayName)) {
      if (!r.gateway || wanted.has(r.dst) || r.dst === `${this.deps.local.podCidr}`) continue;
      if (!r.dst.includes('/') || parseCidr(r.dst).prefix === local.prefix) {
        this.log.info({ dst: r.dst }, 'removing stale Node route');
        await this.deps.host.deleteRoute(r.dst);
      }
    }
  }

  /** Resolves when queued work is done (tests, stop). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  peerCount(): number {
    return this.peers.size;
  }

  /** Host routes again (after the gateway was recreated, e.g. ovs-vswitchd restart). */
  async reinstallRoutes(): Promise<void> {
    for (const [name, p] of this.peers) {
      await this.mutex.run(name, () => this.installRoute(p));
    }
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch((err) => this.log.error({ err }, 'Node route sync failed'));
    this.inflight.add(t);
    void t.finally(() => this.inflight.delete(t));
  }

  private async sync(node: NodeInfo): Promise<void> {
    const podCidr = node.podCidrs.find((c) => !c.includes(':'));
    const nodeIp = node.internalIp;
    if (!podCidr || !nodeIp || !isIpv4(nodeIp)) {
      // Not ready (no podCIDR from NodeIPAM yet): nothing to route to.
      await this.uninstall(node.name);
      return;
    }
    const path = peerPath(this.deps.config.trafficEncapMode, this.deps.local.transportSubnet, nodeIp);
    const prev = this.peers.get(node.name);
    if (prev && prev.podCidr === podCidr && prev.nodeIp === nodeIp && prev.path === path) return;
    if (prev && prev.podCidr !== podCidr) await this.deps.host.deleteRoute(prev.podCidr);
    const state: PeerState = { podCidr, nodeIp, path };
    const { ctx, local } = this.deps;
    const flows =
      path === 'tunnel'
        ? remoteNodeTunnelFlows(ctx, { podCidr, nodeIp, gatewayIp: gatewayIp(podCidr) }, local.gatewayMac)
        : undefined;
    await this.deps.flows.replaceMany([[nodeFlowOwner(node.name), flows]]);
    await this.installRoute(state);
    this.peers.set(node.name, state);
    await this.notifyPeers();
    this.log.info({ node: node.name, podCidr, nodeIp, path }, 'installed Node route');
  }

  /** podCIDRs of every known peer. */
  peerCidrs(): string[] {
    return [...this.peers.values()].map((p) => p.podCidr).sort();
  }

  private async notifyPeers(): Promise<void> {
    await this.deps.onPeerCidrsChanged?.(this.peerCidrs());
  }

  private async installRoute(p: PeerState): Promise<void> {
    const { host, config, local } = this.deps;
    if (p.path === 'tunnel') {
      // The kernel ARPs for the peer gateway on antrea-gw0; the ARP responder flow answers.
      await host.replaceRoute(p.podCidr, gatewayIp(p.podCidr), config.gatewayName, true);
    } else if (p.path === 'route') {
      await host.replaceRoute(p.podCidr, p.nodeIp, local.transportInterface, false);
    } else {
      await host.deleteRoute(p.podCidr);
    }
  }

  private async uninstall(name: string): Promise<void> {
    const prev = this.peers.get(name);
    await this.deps.flows.remove(nodeFlowOwner(name));
    if (prev) {
      await this.deps.host.deleteRoute(prev.podCidr);
      this.peers.delete(name);
      await this.notifyPeers();
      this.log.info({ node: name }, 'removed Node route');
    }
  }
}
