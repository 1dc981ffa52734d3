import { AgentError } from '../errors.js';
import type { NplProtocol } from './model.js';

/** A held host port: closing it gives the port back to the host. */
export interface HeldPort {
  close(): Promise<void>;
}

/** Reserves a host port for a protocol, failing when something on the host already uses it. */
export interface PortOpener {
  open(port: number, protocol: NplProtocol): Promise<HeldPort>;
}

/** One mapping: NodeIP:nodePort/protocol is DNATed to podIp:podPort. */
export interface NplMapping {
  readonly podKey: string;
  readonly podIp: string;
  readonly podPort: number;
  readonly protocol: NplProtocol;
  readonly nodePort: number;
}

interface Entry {
  readonly mapping: NplMapping;
  readonly held: HeldPort;
}

const byPodPort = (podKey: string, podPort: number, protocol: string) => `${podKey}:${podPort}:${protocol}`;
const byNodePort = (nodePort: number, protocol: string) => `${nodePort}:${protocol}`;

/**
 * The Node ports NodePortLocal hands out (Antrea's portcache.PortTable): one per (Pod, Pod port,
 * protocol), from a range, each held open on the host for as long as the mapping lives so that no
 * other process binds it. The search starts after the last port handed out and wraps, so a port
 * just released is not reused at once. Callers serialize calls.
 */
export class PortTable {
  private readonly entries = new Map<string, Entry>();
  private readonly taken = new Map<string, Entry>();
  private searchStart: number;

  constructor(
    readonly range: { readonly start: number; readonly end: number },
    private readonly opener: PortOpener,
  ) {
    this.searchStart = range.start;
  }

  get(podKey: string, podPort: number, protocol: NplProtocol): NplMapping | undefined {
    return this.entries.get(byPodPort(podKey, podPort, protocol))?.mapping;
  }

  forPod(podKey: string): NplMapping[] {
    return this.all().filter((m) => m.podKey === podKey);
  }

  all(): NplMapping[] {
    return [...this.entries.values()].map((e) => e.mapping);
  }

  inRange(port: number): boolean {
    return port >= this.range.start && port <= this.range.end;
  }

  /** A free port for the Pod port (first one in the range the host lets us hold), held from now on. */
  async allocate(podKey: string, podIp: string, podPort: number, protocol: NplProtocol): Promise<NplMapping> {
    const size = this.range.end - this.range.start + 1;
    for (let i = 0; i < size; i++) {
      let port = this.searchStart + i;
      if (port > this.range.end) port -= size;
      if (this.taken.has(byNodePort(port, protocol))) continue;
      const held = await this.opener.open(port, protocol).catch(() => undefined);
      if (!held) continue;
      this.searchStart = port === this.range.end ? this.range.start : port + 1;
      return this.add({ podKey, podIp, podPort, protocol, nodePort: port }, held);
    }
    throw new AgentError(
      'AGENT_NPL_PORTS_EXHAUSTED',
      `no free ${protocol} port in ${this.range.start}-${this.range.end}`,
    );
  }

  /**
   * Takes back a mapping a previous run published (restart). False when the port is outside the
   * range, already mapped here, or held by something else on the host: the Pod then gets a new one.
   */
  async adopt(mapping: NplMapping): Promise<boolean> {
    if (!this.inRange(mapping.nodePort)) return false;
    if (this.taken.has(byNodePort(mapping.nodePort, mapping.protocol))) return false;
    if (this.entries.has(byPodPort(mapping.podKey, mapping.podPort, mapping.protocol))) return false;
    const held = await this.opener.open(mapping.nodePort, mapping.protocol).catch(() => undefined);
    if (!held) return false;
    this.add(mapping, held);
    return true;
  }

  /** Gives the port back to the host. */
  async release(podKey: string, podPort: number, protocol: NplProtocol): Promise<void> {
    const key = byPodPort(podKey, podPort, protocol);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.taken.delete(byNodePort(entry.mapping.nodePort, protocol));
    await entry.held.close();
  }

  /** Closes every held port (agent stop); the mappings are forgotten, not the rules. */
  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.taken.clear();
    await Promise.all(all.map((e) => e.held.close()));
  }

  private add(mapping: NplMapping, held: HeldPort): NplMapping {
    const entry = { mapping, held };
    this.entries.set(byPodPort(mapping.podKey, mapping.podPort, mapping.protocol), entry);
    this.taken.set(byNodePort(mapping.nodePort, mapping.protocol), entry);
    return mapping;
  }
}
