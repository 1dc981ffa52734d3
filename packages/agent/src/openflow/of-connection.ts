import type { FlowMod, FlowStats, FlowStatsRequest, GroupDesc, GroupMod } from '@antrea-ts/openflow';
import { OpenFlowBridge } from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';

/** A group change inside a bundle (flow mods have no `kind`). */
export type GroupChange = { kind: 'group' } & GroupMod;

/**
 * What the agent needs from the switch: atomic batches of flow and group changes, dumps, and a
 * signal when a (new) connection is up so it can replay. Tests can pass a fake.
 */
export interface FlowSwitch {
  readonly connected: boolean;
  /** Applies all changes or none (an OpenFlow atomic bundle), in order. */
  bundle(mods: readonly (FlowMod | GroupChange)[]): Promise<void>;
  /** Groups installed on the switch; none: the switch cannot tell (FlowCache.pruneGroups does nothing). */
  dumpGroups?(): Promise<GroupDesc[]>;
  dumpFlows(request?: FlowStatsRequest): Promise<FlowStats[]>;
  /** Called after every successful handshake, the first one included. */
  onConnected(listener: (generation: number) => void): () => void;
  waitConnected(timeoutMs: number): Promise<void>;
}

export interface OfConnectionOptions {
  /** The bridge's management socket, e.g. /var/run/openvswitch/br-int.mgmt. */
  socketPath: string;
  logger: Logger;
  /** First delay before redialing a lost switch (it doubles per failed attempt, up to 1 s). */
  reconnectDelayMs?: number;
  requestTimeoutMs?: number;
}

/** Longest pause between redials: an ovs-vswitchd restart is noticed within this much of its end. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * The agent's one OpenFlow session with ovs-vswitchd: FlowSwitch on top of the library's
 * OpenFlowBridge, whose `bridge` also serves packet-in and packet-out (NetworkPolicy logging and
 * Reject, Traceflow). This class only adapts: it numbers connections (a new ovs-vswitchd starts
 * with no flows, so every connection is announced for replay), holds requests while the switch
 * restarts, and reports failures as AgentErrors.
 */
export class OfConnection implements FlowSwitch {
  readonly bridge: OpenFlowBridge;
  private readonly log: Logger;
  private readonly requestTimeoutMs: number;
  private stopped = true;
  private generation = 0;
  private readonly listeners = new Set<(generation: number) => void>();

  constructor(options: OfConnectionOptions) {
    this.log = options.logger.child({ component: 'openflow-connection', socket: options.socketPath });
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    const reconnectDelayMs = options.reconnectDelayMs ?? 200;
    this.bridge = new OpenFlowBridge({
      target: { path: options.socketPath },
      logger: options.logger,
      requestTimeoutMs: this.requestTimeoutMs,
      reconnectInitialDelayMs: reconnectDelayMs,
      reconnectMaxDelayMs: Math.max(reconnectDelayMs, MAX_RECONNECT_DELAY_MS),
    });
    this.bridge.on('ready', () => {
      this.generation++;
      this.log.info({ generation: this.generation }, 'OpenFlow connection up');
      for (const l of this.listeners) l(this.generation);
    });
    // The library logs refusals nobody waited for; without a listener they would only be dropped.
    this.bridge.on('switchError', () => {});
  }

  get connected(): boolean {
    return this.bridge.ready;
  }

  /** Dials in the background and keeps redialing until stopped; see waitConnected. */
  start(signal?: AbortSignal): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.bridge
      .start(signal)
      .catch((err: unknown) => this.log.warn({ err }, 'first OpenFlow session failed; still redialing'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.bridge.stop();
  }

  onConnected(listener: (generation: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  waitConnected(timeoutMs: number): Promise<void> {
    return this.bridge.waitReady(timeoutMs).catch((err: unknown) => {
      throw new AgentError('AGENT_OPENFLOW_FAILED', `no OpenFlow connection within ${timeoutMs} ms`, {
        cause: err,
      });
    });
  }

  async bundle(mods: readonly (FlowMod | GroupChange)[]): Promise<void> {
    if (mods.length === 0) return;
    try {
      await this.whileSwitchRestarts();
      await this.bridge.commitBundle(
        mods.map((m) => ('kind' in m ? m : { kind: 'flow', ...m })),
        { atomic: true },
      );
    } catch (err) {
      throw new AgentError(
        'AGENT_OPENFLOW_FAILED',
        `bundle of ${mods.length} flow mods failed: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  async dumpFlows(request: FlowStatsRequest = {}): Promise<FlowStats[]> {
    try {
      await this.whileSwitchRestarts();
      return await this.bridge.dumpFlows(request);
    } catch (err) {
      throw new AgentError('AGENT_OPENFLOW_FAILED', `flow dump failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  async dumpGroups(): Promise<GroupDesc[]> {
    try {
      await this.whileSwitchRestarts();
      return await this.bridge.dumpGroups();
    } catch (err) {
      throw new AgentError('AGENT_OPENFLOW_FAILED', `group dump failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /**
   * During an ovs-vswitchd restart, waits for the new session (the flow replay it triggers follows
   * whatever is sent now) rather than failing, say, a Pod's ADD.
   */
  private async whileSwitchRestarts(): Promise<void> {
    if (!this.bridge.ready && !this.stopped) await this.bridge.waitReady(this.requestTimeoutMs);
  }
}
