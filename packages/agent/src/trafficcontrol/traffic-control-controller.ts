import { SyncLoop, type TrafficControl, type TrafficControlPort } from '@antrea-ts/apis';
import type { Flow } from '@antrea-ts/openflow';
import type { BridgeClient } from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import { AgentError } from '../errors.js';
import {
  trafficControlMarkFlows,
  trafficControlReturnFlows,
  trafficControlStaticFlows,
} from '../openflow/features/traffic-control.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { trafficControlPortName } from './port-name.js';
import { removeTrafficControlPorts } from './port-removal.js';
import { trafficControlPortSpec } from './port-spec.js';
import { type LocalPod, selectPorts } from './selection.js';
import type { TrafficControlSource } from './traffic-control-source.js';

export const TC_STATIC_OWNER = 'trafficcontrol';
const TC_FLOWS_OWNER = 'trafficcontrol/marks';

export interface TrafficControlControllerOptions {
  readonly source: TrafficControlSource;
  readonly bridges: BridgeClient;
  readonly bridgeName: string;
  readonly flows: Pick<FlowCache, 'replace'>;
  readonly ctx: FlowContext;
  /** This Node's Pod interfaces (the interface store). */
  readonly pods: () => readonly PodInterface[];
  /** Brings a new OVS internal port's link up in the Node's namespace (`ip link set up`). */
  readonly setLinkUp: (name: string) => Promise<void>;
  /** Stops br-int flooding to a port (`portNoFlood`); none: ports stay flood targets. */
  readonly setNoFlood?: (name: string) => Promise<void>;
  readonly logger: Logger;
}

/** A port the TrafficControls want on the bridge. */
interface WantedPort {
  readonly port: TrafficControlPort;
  readonly isReturn: boolean;
}

/**
 * The agent half of TrafficControl (Antrea pkg/agent/controller/trafficcontrol): for every
 * TrafficControl, its target (and return) port on br-int, created or attached through OVSDB, and
 * the TrafficControl table's marks for the Pods it selects on this Node. Level-triggered: each
 * sync computes the whole wanted state from the API and the interface store and converges the
 * bridge and the flows to it, so restarts and missed events need no bookkeeping; ports nothing
 * wants any more (also those left by a previous run) are removed after their flows.
 */
export class TrafficControlController {
  readonly #o: TrafficControlControllerOptions;
  readonly #log: Logger;
  readonly #loop: SyncLoop;
  #synced!: () => void;
  readonly #syncedPromise = new Promise<void>((resolve) => {
    this.#synced = resolve;
  });
  #started = false;
  /** Ports set no-flood by this run (ovs-vswitchd forgets the flag when it restarts, as do we). */
  readonly #noFlood = new Set<string>();

  constructor(opts: TrafficControlControllerOptions) {
    this.#o = opts;
    this.#log = opts.logger.child({ component: 'traffic-control' });
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'TrafficControl sync failed; retrying'),
      retryMs: 2000,
    });
  }

  /** Installs the shared flows, lists the API and starts syncing; resolves once listed. */
  async start(signal?: AbortSignal): Promise<void> {
    this.#started = true;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.#o.flows.replace(TC_STATIC_OWNER, trafficControlStaticFlows(this.#o.ctx));
    await this.#o.source.start(() => this.#loop.schedule());
    this.#loop.start();
  }

  /** Resolves after the first sync that realized every TrafficControl. */
  synced(): Promise<void> {
    return this.#syncedPromise;
  }

  /** The interface store changed (a Pod came or went on this Node). */
  podsChanged(): void {
    this.#loop.schedule();
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.#loop.stop();
    await this.#o.source.stop();
  }

  async #sync(): Promise<void> {
    const o = this.#o;
    const tcs = o.source.trafficControls();
    const wanted = wantedPorts(tcs);
    const ofports = await this.#ensurePorts(wanted);

    // One owner for every TrafficControl's flows: a Pod moving from one TrafficControl to another
    // keeps the same match, which one bundle modifies in place (two owners would delete it).
    const failures: string[] = [];
    const flows: Flow[] = [];
    for (const [name, w] of wanted) {
      const ofport = ofports.get(name);
      if (w.isReturn && ofport !== undefined) flows.push(...trafficControlReturnFlows(o.ctx, ofport));
    }
    const selected = selectPorts(tcs, this.#localPods(), (ns) => o.source.namespaceLabels(ns));
    for (const tc of tcs) {
      const name = tc.metadata.name ?? '';
      const target = ofports.get(trafficControlPortName(tc.spec.targetPort));
      if (target === undefined) {
        failures.push(name);
        continue;
      }
      flows.push(
        ...trafficControlMarkFlows(o.ctx, {
          podOfports: selected.get(name) ?? [],
          targetOfport: target,
          direction: tc.spec.direction,
          action: tc.spec.action,
        }),
      );
    }
    await o.flows.replace(TC_FLOWS_OWNER, flows);
    // Flows first, then the ports they output to or classify.
    const ports = await o.bridges.listPorts(o.bridgeName);
    await removeTrafficControlPorts(o.bridges, o.bridgeName, ports, this.#log, new Set(wanted.keys()));
    for (const name of this.#noFlood) if (!wanted.has(name)) this.#noFlood.delete(name);
    if (failures.length > 0) {
      throw new AgentError('AGENT_TRAFFIC_CONTROL_FAILED', `ports not ready for ${failures.join(', ')}`);
    }
    this.#synced();
  }

  /** The TrafficControls' ports on the bridge, created when missing: ofport by port name. */
  async #ensurePorts(wanted: ReadonlyMap<string, WantedPort>): Promise<Map<string, number>> {
    const o = this.#o;
    const present = new Map((await o.bridges.listPorts(o.bridgeName)).map((p) => [p.name, p]));
    const out = new Map<string, number>();
    for (const [name, w] of wanted) {
      try {
        let ofport = present.get(name)?.interfaces[0]?.ofport;
        if (ofport === undefined || ofport <= 0) {
          if (!present.has(name)) {
            await o.bridges.addPort(o.bridgeName, trafficControlPortSpec(name, w.port));
            this.#log.info({ port: name, return: w.isReturn }, 'added TrafficControl port');
          }
          ofport = await o.bridges.waitForOfport(name);
          if (w.port.ovsInternal) await o.setLinkUp(name);
        }
        if (o.setNoFlood && !this.#noFlood.has(name)) {
          // Only ARP floods depend on it: the port is used either way, the flag tried again next sync.
          await o.setNoFlood(name).then(
            () => this.#noFlood.add(name),
            (err: unknown) => this.#log.warn({ err, port: name }, 'TrafficControl port not set no-flood'),
          );
        }
        out.set(name, ofport);
      } catch (err) {
        // A missing device, say: the other TrafficControls go on; this one is retried.
        this.#log.warn({ err, port: name }, 'TrafficControl port not ready');
      }
    }
    return out;
  }

  /** This Node's non-hostNetwork Pods with their labels and, once attached, their ports. */
  #localPods(): LocalPod[] {
    const ports = new Map(this.#o.pods().map((p) => [`${p.podNamespace}/${p.podName}`, p.ofport]));
    return this.#o.source
      .pods()
      .filter((p) => !p.hostNetwork)
      .map((p) => {
        const ofport = ports.get(`${p.namespace}/${p.name}`);
        return { ...p, ofport: ofport !== undefined && ofport > 0 ? ofport : undefined };
      });
  }
}

/** Every port the TrafficControls name, by OVS port name (a return port whenever one is given, as Antrea). */
function wantedPorts(tcs: readonly TrafficControl[]): Map<string, WantedPort> {
  const out = new Map<string, WantedPort>();
  for (const tc of tcs) {
    const target = trafficControlPortName(tc.spec.targetPort);
    if (!out.has(target)) out.set(target, { port: tc.spec.targetPort, isReturn: false });
    const ret = tc.spec.returnPort;
    if (ret) out.set(trafficControlPortName(ret), { port: ret, isReturn: true });
  }
  return out;
}
