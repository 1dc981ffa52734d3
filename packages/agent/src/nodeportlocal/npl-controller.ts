import type { Logger } from 'pino';
import type { NplRule } from './iptables-rules.js';
import {
  formatNplAnnotation,
  type NplAnnotation,
  type NplPod,
  type NplProtocol,
  type NplService,
  parseNplAnnotation,
  selects,
} from './model.js';
import { type NplMapping, type PortOpener, PortTable } from './port-table.js';

/** What the controller is told about this Node's Pods and every Service. */
export interface NplHandlers {
  upsertPod(pod: NplPod): void;
  removePod(key: string): void;
  upsertService(svc: NplService): void;
  removeService(key: string): void;
  /** Both initial lists have been delivered. */
  synced(): void;
}

/** Watches on Pods (this Node's) and Services; the real one is two informers. */
export interface NplSource {
  start(handlers: NplHandlers): Promise<void>;
  stop(): Promise<void>;
}

/** Writes the Pod annotation; null removes it. A Pod that is gone is not an error. */
export interface NplAnnotator {
  set(namespace: string, name: string, value: string | null): Promise<void>;
}

/** The iptables side, as NplIptables implements it. */
export interface NplRuleWriter {
  existing(): Promise<NplRule[]>;
  sync(rules: readonly NplRule[]): Promise<void>;
}

export interface NplControllerOptions {
  readonly nodeIp: string;
  readonly portRange: { readonly start: number; readonly end: number };
  readonly source: NplSource;
  readonly annotator: NplAnnotator;
  readonly rules: NplRuleWriter;
  readonly opener: PortOpener;
  readonly logger: Logger;
  /** First retry delay of a Pod whose sync failed (doubles up to 30 s). */
  readonly retryMs?: number;
}

interface Wanted {
  readonly podPort: number;
  readonly protocol: NplProtocol;
  /** A hostPort already exposes it: published as is, no port allocated (Antrea does the same). */
  readonly hostPort: number | undefined;
}

interface AnnotationWrite {
  readonly pod: NplPod;
  readonly value: string | null;
}

const MAX_RETRY_MS = 30_000;

/**
 * NodePortLocal (Antrea's NPLController): for each Pod of this Node selected by a Service annotated
 * `nodeportlocal.antrea.io/enabled: "true"`, one Node port per (target port, protocol), DNAT from
 * it to the Pod in iptables, and the mappings published in the Pod's `nodeportlocal.antrea.io`
 * annotation. Pod keys are queued on every relevant event and synced in batches: allocations first,
 * then one iptables-restore of the whole chain, then the annotations, so an annotation never names
 * a port whose rule is not in place. On start, the ports published by a previous run (annotations,
 * and rules left in the chain) are taken back, so mappings survive agent restarts.
 */
export class NodePortLocalController {
  private readonly log: Logger;
  private readonly table: PortTable;
  private readonly pods = new Map<string, NplPod>();
  private readonly services = new Map<string, NplService>();
  private readonly dirty = new Set<string>();
  private readonly retries = new Map<string, { delayMs: number; timer?: NodeJS.Timeout }>();
  private draining: Promise<void> | undefined;
  /** The start-up pass, once the lists are in: stop() waits for it, as it may be holding ports. */
  private initializing: Promise<void> | undefined;
  private initialized = false;
  /** The rule set last written to iptables, so Pod updates that change no mapping cost no restore. */
  private written: string | undefined;
  private stopped = false;
  private readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor(private readonly o: NplControllerOptions) {
    this.log = o.logger.child({ component: 'nodeportlocal' });
    this.table = new PortTable(o.portRange, o.opener);
    this.ready = new Promise((r) => {
      this.markReady = r;
    });
  }

  async start(): Promise<void> {
    await this.o.source.start({
      upsertPod: (p) => {
        this.pods.set(p.key, p);
        this.enqueue(p.key);
      },
      removePod: (key) => {
        this.pods.delete(key);
        this.enqueue(key);
      },
      upsertService: (s) => {
        const old = this.services.get(s.key);
        this.services.set(s.key, s);
        this.enqueueSelected(old, s);
      },
      removeService: (key) => {
        const old = this.services.get(key);
        this.services.delete(key);
        this.enqueueSelected(old, undefined);
      },
      synced: () => {
        this.initializing ??= this.initialize();
      },
    });
  }

  /** Resolves once the first pass over every Pod after start-up is done. */
  waitSynced(): Promise<void> {
    return this.ready;
  }

  /** Resolves when nothing is queued or running (retries waiting on a timer do not count). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** The current mappings (for the API and tests). */
  mappings(): NplMapping[] {
    return this.table.all();
  }

  /** Stops watching and gives the ports back; the rules stay, for the Pods, until the next run. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const r of this.retries.values()) clearTimeout(r.timer);
    await this.o.source.stop();
    await this.initializing;
    await this.idle();
    await this.table.closeAll();
  }

  private enqueue(key: string): void {
    this.dirty.add(key);
    if (this.initialized) this.kick();
  }

  /** Pods that an enabled Service selected before or selects now. */
  private enqueueSelected(old: NplService | undefined, cur: NplService | undefined): void {
    for (const svc of [old, cur]) {
      if (!svc?.enabled) continue;
      for (const pod of this.pods.values()) if (selects(svc, pod)) this.enqueue(pod.key);
    }
  }

  private async initialize(): Promise<void> {
    if (this.stopped) return;
    const restored = await this.restore();
    // Stopped while taking the ports back: stop() closes them; no chain is written for a run that is over.
    if (this.stopped) return;
    this.log.info(
      { restored, pods: this.pods.size },
      'NodePortLocal mappings of the previous run taken back',
    );
    // Written once even when no Pod is queued: the chain, its jumps, and no rule of a gone Pod.
    await this.writeRules().catch((err: unknown) =>
      this.log.warn({ err }, 'writing the NodePortLocal chain failed; the next Pod sync retries'),
    );
    this.initialized = true;
    for (const key of this.pods.keys()) this.dirty.add(key);
    this.kick();
    await this.idle();
    this.markReady();
  }

  /**
   * Antrea's waitForRulesInitialization: the annotations' mappings of Pods that still have their IP
   * are held again and their rules rewritten. Rules left in the chain for a Pod of this Node whose
   * annotation lacks them (the patch did not happen before a crash) are taken back too.
   */
  private async restore(): Promise<number> {
    const candidates: NplMapping[] = [];
    for (const pod of this.pods.values()) {
      if (!pod.ip || pod.annotation === undefined) continue;
      for (const m of parseNplAnnotation(pod.annotation) ?? []) {
        candidates.push({
          podKey: pod.key,
          podIp: pod.ip,
          podPort: m.podPort,
          protocol: m.protocol,
          nodePort: m.nodePort,
        });
      }
    }
    const byIp = new Map([...this.pods.values()].filter((p) => p.ip).map((p) => [p.ip!, p]));
    const existing = await this.o.rules.existing().catch((err: unknown) => {
      this.log.warn({ err }, 'reading the NodePortLocal chain failed; restoring from annotations only');
      return [];
    });
    for (const r of existing) {
      const pod = byIp.get(r.podIp);
      if (pod) candidates.push({ podKey: pod.key, ...r });
    }
    let adopted = 0;
    for (const m of candidates) if (await this.table.adopt(m)) adopted++;
    return adopted;
  }

  private kick(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.dirty.size > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty.size > 0 && !this.stopped) {
      const keys = [...this.dirty];
      this.dirty.clear();
      const writes: AnnotationWrite[] = [];
      const done: string[] = [];
      for (const key of keys) {
        try {
          const w = await this.syncPod(key);
          if (w) writes.push(w);
          done.push(key);
        } catch (err) {
          this.retry(key, err);
        }
      }
      try {
        await this.writeRules();
      } catch (err) {
        for (const key of done) this.retry(key, err);
        continue;
      }
      const unpublished = new Set<string>();
      for (const w of writes) {
        try {
          await this.o.annotator.set(w.pod.namespace, w.pod.name, w.value);
        } catch (err) {
          this.retry(w.pod.key, err);
          unpublished.add(w.pod.key);
        }
      }
      // In sync now (a Pod gone, or with nothing to publish, too): the back-off starts over.
      for (const key of done) if (!unpublished.has(key)) this.retries.delete(key);
    }
  }

  private async writeRules(): Promise<void> {
    const rules = this.table.all().map(({ podKey: _, ...r }) => r);
    const text = rules
      .map((r) => `${r.nodePort}/${r.protocol}>${r.podIp}:${r.podPort}`)
      .sort()
      .join(',');
    if (text === this.written) return;
    await this.o.rules.sync(rules);
    this.written = text;
  }

  private retry(key: string, err: unknown): void {
    const r = this.retries.get(key) ?? { delayMs: this.o.retryMs ?? 1000 };
    this.log.warn({ err, pod: key, retryInMs: r.delayMs }, 'NodePortLocal sync of Pod failed; retrying');
    clearTimeout(r.timer);
    r.timer = setTimeout(() => {
      if (!this.stopped) this.enqueue(key);
    }, r.delayMs);
    r.timer.unref();
    r.delayMs = Math.min(r.delayMs * 2, MAX_RETRY_MS);
    this.retries.set(key, r);
  }

  /** Allocates and releases the Pod's ports; returns the annotation to write, if it changes. */
  private async syncPod(key: string): Promise<AnnotationWrite | undefined> {
    const pod = this.pods.get(key);
    const wanted = pod ? this.wantedPorts(pod) : new Map<string, Wanted>();
    for (const m of this.table.forPod(key)) {
      const w = wanted.get(`${m.podPort}/${m.protocol}`);
      if (!w || w.hostPort !== undefined || m.podIp !== pod?.ip) {
        this.log.info(
          { pod: key, nodePort: m.nodePort, podPort: m.podPort, protocol: m.protocol },
          'NodePortLocal mapping removed',
        );
        await this.table.release(key, m.podPort, m.protocol);
      }
    }
    if (!pod) return undefined;
    const members: NplAnnotation[] = [];
    for (const w of wanted.values()) {
      let nodePort = w.hostPort;
      if (nodePort === undefined) {
        const m =
          this.table.get(key, w.podPort, w.protocol) ??
          (await this.table.allocate(key, pod.ip!, w.podPort, w.protocol));
        nodePort = m.nodePort;
        this.log.debug(
          { pod: key, nodePort, podPort: w.podPort, protocol: w.protocol },
          'NodePortLocal mapping',
        );
      }
      members.push({
        podPort: w.podPort,
        nodeIP: this.o.nodeIp,
        nodePort: nodePort!,
        protocol: w.protocol,
        ipFamily: 'IPv4',
      });
    }
    const value = members.length > 0 ? formatNplAnnotation(members) : null;
    // Compared as sets (a previous run's or Antrea's member order is no change); an annotation
    // that does not parse is compared as is, so it gets rewritten.
    const parsed = pod.annotation === undefined ? undefined : parseNplAnnotation(pod.annotation);
    const published = parsed ? formatNplAnnotation(parsed) : (pod.annotation ?? null);
    if (value === published) return undefined;
    return { pod, value };
  }

  /** Target ports of every enabled Service selecting the Pod, named ports resolved on the Pod. */
  private wantedPorts(pod: NplPod): Map<string, Wanted> {
    const wanted = new Map<string, Wanted>();
    if (!pod.ip || pod.terminated) return wanted;
    for (const svc of this.services.values()) {
      if (!svc.enabled || !selects(svc, pod)) continue;
      for (const sp of svc.ports) {
        const podPort =
          typeof sp.target === 'number'
            ? sp.target
            : pod.ports.find((p) => p.name === sp.target && p.protocol === sp.protocol)?.containerPort;
        if (podPort === undefined) continue;
        const hostPort = pod.ports.find(
          (p) => p.containerPort === podPort && p.protocol === sp.protocol && p.hostPort !== undefined,
        )?.hostPort;
        wanted.set(`${podPort}/${sp.protocol}`, { podPort, protocol: sp.protocol, hostPort });
      }
    }
    return wanted;
  }
}
