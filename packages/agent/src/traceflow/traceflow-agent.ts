import type { Traceflow, TraceflowNodeResult } from '@antrea-ts/apis';
import { OFPP, type PacketIn2, type PacketOut } from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import { AgentError } from '../errors.js';
import {
  allowedRuleMetrics,
  isolationDropFlows,
  type LiveTrafficMatch,
  traceflowFlows,
} from '../openflow/features/traceflow.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { type ServiceDestination, serviceDestination } from './destination.js';
import type { TraceflowApi } from './kube-traceflow-api.js';
import { buildObservations, packetInFacts, type TracedRule } from './observations.js';
import { capturedPacket, craftTracePacket, parseTracePacket, tracePacketSpec } from './packet.js';

/** This Node's datapath facts the Traceflow agent needs. */
export interface TraceflowNodeInfo {
  readonly gatewayOfport: number;
  readonly gatewayIp: string;
  readonly gatewayMac: string;
  readonly tunnelOfport: number | undefined;
}

export interface TraceflowAgentOptions {
  readonly nodeName: string;
  readonly api: TraceflowApi;
  readonly flows: FlowCache;
  readonly ctx: FlowContext;
  readonly node: TraceflowNodeInfo;
  readonly pods: () => readonly PodInterface[];
  /** Injects a packet into br-int (an OpenFlow packet-out). */
  readonly packetOut: (po: PacketOut) => Promise<void>;
  /** The NetworkPolicy rule behind a conjunction id, when policies are enforced. */
  readonly rule?: (conjId: number) => TracedRule | undefined;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly random?: () => number;
  /**
   * A packet bound for another Node is injected again every `reinjectMs` (500 ms), at most
   * `maxInjections` (5) times, until the Traceflow ends: that Node learns of the Traceflow from the
   * same watch event as this one and may not have its flows in for the first copy. Each copy is a
   * new connection to conntrack (fresh echo id or source port); each Node reports only one.
   */
  readonly reinjectMs?: number;
  readonly maxInjections?: number;
}

/** One Running Traceflow on this Node. */
interface Session {
  readonly name: string;
  readonly tag: number;
  readonly isSender: boolean;
  readonly receiverOnly: boolean;
  readonly liveTraffic: boolean;
  readonly droppedOnly: boolean;
  reported: boolean;
  timer?: NodeJS.Timeout;
}

const DEFAULT_REINJECT_MS = 500;
const DEFAULT_MAX_INJECTIONS = 5;
const owner = (tag: number) => `traceflow/${tag}`;

/**
 * The agent half of Traceflow (Antrea pkg/agent/controller/traceflow): for every Running Traceflow
 * it installs the flows that follow the tag; the Node of the source Pod crafts the packet and
 * injects it into that Pod's port; each packet-in of a tagged packet becomes this Node's result in
 * the Traceflow's status. Flows go when the Traceflow ends or is deleted (live traffic: after the
 * first packet).
 */
export class TraceflowAgent {
  private readonly log: Logger;
  private readonly sessions = new Map<number, Session>();
  private readonly byName = new Map<string, number>();
  private started = false;
  private readonly random: () => number;

  constructor(private readonly o: TraceflowAgentOptions) {
    this.log = o.logger.child({ component: 'traceflow' });
    this.random = o.random ?? Math.random;
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.o.api.watch(
      {
        upsert: (tf) => void this.upsert(tf).catch((err: unknown) => this.failed(tf, err)),
        remove: (name) => void this.end(name),
      },
      signal,
    );
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.o.api.stop();
    for (const name of [...this.byName.keys()]) await this.end(name);
  }

  private async upsert(tf: Traceflow): Promise<void> {
    const name = tf.metadata.name ?? '';
    const tag = tf.status?.dataplaneTag ?? 0;
    const running = tf.status?.phase === 'Running' && tag > 0;
    const current = this.byName.get(name);
    if (!running) {
      if (current !== undefined) await this.end(name);
      return;
    }
    if (current === tag) return;
    if (current !== undefined) await this.end(name);
    // A tag comes back to the controller when its Traceflow ends: an end this Node missed must
    // not leave the old session holding it.
    const previous = this.sessions.get(tag);
    if (previous) await this.end(previous.name);
    await this.begin(tf, tag);
  }

  /**
   * A Traceflow this Node should start but cannot (no destination address, flows refused) ends as
   * Failed with the reason, as Antrea's agents report it, instead of running into its timeout.
   */
  private async failed(tf: Traceflow, err: unknown): Promise<void> {
    const name = tf.metadata.name ?? '';
    this.log.warn({ err, traceflow: name }, 'Traceflow failed');
    const s = this.sessions.get(this.byName.get(name) ?? -1);
    if (!s?.isSender && !s?.receiverOnly) return;
    const reason = `Node: ${this.o.nodeName}, error: ${err instanceof Error ? err.message : String(err)}`;
    await this.o.api
      .fail(name, reason)
      .catch((e: unknown) =>
        this.log.warn({ err: e, traceflow: name }, 'marking the Traceflow Failed failed'),
      );
  }

  private async begin(tf: Traceflow, tag: number): Promise<void> {
    const spec = tf.spec;
    const pods = this.o.pods();
    const find = (ns?: string, pod?: string) =>
      pod ? pods.find((p) => p.podNamespace === (ns ?? 'default') && p.podName === pod) : undefined;
    const src = find(spec.source?.namespace, spec.source?.pod);
    const dstPod = find(spec.destination?.namespace, spec.destination?.pod);
    const liveTraffic = !!spec.liveTraffic;
    const session: Session = {
      name: tf.metadata.name ?? '',
      tag,
      isSender: !!src,
      receiverOnly: liveTraffic && !spec.source?.pod && !!dstPod,
      liveTraffic,
      droppedOnly: liveTraffic && !!spec.droppedOnly,
      reported: false,
    };
    this.sessions.set(tag, session);
    this.byName.set(session.name, tag);
    // As Antrea's preparePacket: only the source Pod's Node needs the Service (its ClusterIP).
    const svc = spec.destination?.service;
    const service = src && svc ? await this.service(spec.destination?.namespace, svc) : undefined;
    const live = liveTraffic ? this.liveMatch(tf, src, dstPod, service?.ip) : undefined;
    const installed = this.o.flows.all();
    await this.o.flows.replace(
      owner(tag),
      traceflowFlows(this.o.ctx, {
        tag,
        tunnelOfport: this.o.node.tunnelOfport,
        liveTraffic,
        droppedOnly: session.droppedOnly,
        isolationDrops: isolationDropFlows(this.o.ctx, installed),
        allowedRules: allowedRuleMetrics(this.o.ctx, installed),
        ...(live ? { live } : {}),
      }),
    );
    this.log.info(
      { traceflow: session.name, tag, sender: session.isSender, liveTraffic },
      'following Traceflow',
    );
    if (!src || liveTraffic) return;
    const dstIp =
      spec.destination?.ip ??
      spec.packet?.dstIP ??
      service?.ip ??
      dstPod?.ip ??
      (spec.destination?.pod
        ? await this.o.api.podIp(spec.destination.namespace ?? 'default', spec.destination.pod)
        : undefined);
    if (!dstIp) throw new AgentError('AGENT_TRACEFLOW_INVALID', 'destination is not specified');
    const ends = { srcMac: src.mac, srcIp: src.ip, dstIp, dstMac: dstPod?.mac ?? this.o.node.gatewayMac };
    const inject = () =>
      this.o
        .packetOut({
          inPort: src.ofport,
          packet: craftTracePacket(tracePacketSpec(tag, spec.packet, ends, this.random, service?.dstPort)),
          actions: [{ type: 'output', port: OFPP.TABLE }],
        })
        .catch((err) =>
          this.log.warn({ err, traceflow: session.name }, 'injecting the Traceflow packet failed'),
        );
    await inject();
    // A local destination is traced by this Node's flows, which are in; a remote one may not be yet.
    if (dstPod) return;
    let injections = 1;
    session.timer = setInterval(() => {
      if (++injections >= (this.o.maxInjections ?? DEFAULT_MAX_INJECTIONS)) clearInterval(session.timer);
      void inject();
    }, this.o.reinjectMs ?? DEFAULT_REINJECT_MS);
    session.timer.unref?.();
  }

  private async service(namespace = 'default', name: string): Promise<ServiceDestination> {
    return serviceDestination(
      `${namespace}/${name}`,
      await this.o.api.service(namespace, name),
      this.o.ctx.pipeline.has('EndpointDNAT'),
    );
  }

  private liveMatch(
    tf: Traceflow,
    src?: PodInterface,
    dst?: PodInterface,
    serviceIp?: string,
  ): LiveTrafficMatch {
    const p = tf.spec.packet;
    const th = p?.transportHeader;
    const protocol = p?.ipHeader?.protocol ?? (th?.tcp ? 6 : th?.udp ? 17 : undefined);
    const l4 = th?.tcp ?? th?.udp;
    const srcIp = tf.spec.source?.ip ?? p?.srcIP ?? src?.ip;
    const dstIp = tf.spec.destination?.ip ?? p?.dstIP ?? serviceIp ?? dst?.ip;
    return {
      ...(src
        ? { sender: { ofport: src.ofport } }
        : dst
          ? { receiver: { ofport: dst.ofport, mac: dst.mac } }
          : {}),
      ...(srcIp ? { srcIp } : {}),
      ...(dstIp ? { dstIp } : {}),
      ...(protocol !== undefined ? { protocol } : {}),
      ...(l4?.srcPort ? { srcPort: l4.srcPort } : {}),
      ...(l4?.dstPort ? { dstPort: l4.dstPort } : {}),
    };
  }

  private async end(name: string): Promise<void> {
    const tag = this.byName.get(name);
    if (tag === undefined) return;
    const s = this.sessions.get(tag);
    if (s?.timer) clearInterval(s.timer);
    this.byName.delete(name);
    this.sessions.delete(tag);
    await this.o.flows
      .remove(owner(tag))
      .catch((err) => this.log.warn({ err }, 'removing Traceflow flows failed'));
  }

  /** A packet-in with the Traceflow bit: this Node's observations for the tagged packet. */
  async handlePacketIn(pi: PacketIn2): Promise<void> {
    const packet = parseTracePacket(pi.packet);
    if (!packet) return;
    const s = this.sessions.get(packet.tag);
    if (!s) {
      this.log.debug({ tag: packet.tag }, 'packet-in for a tag no Traceflow holds');
      return;
    }
    // One result per Node: an injected packet stops here; of live traffic only the first counts.
    if (s.reported) return;
    s.reported = true;
    if (s.liveTraffic) await this.o.flows.remove(owner(s.tag)).catch(() => undefined);
    const node = this.o.node;
    const pods = new Map(this.o.pods().map((p) => [p.ofport, `${p.podNamespace}/${p.podName}`]));
    const observations = buildObservations(
      packetInFacts(pi, this.o.ctx.pipeline, { srcIp: packet.srcIp, dstIp: packet.dstIp }),
      {
        isSender: s.isSender,
        receiverOnly: s.receiverOnly,
        gatewayOfport: node.gatewayOfport,
        gatewayIp: node.gatewayIp,
        tunnelOfport: node.tunnelOfport,
        rule: (id) => this.o.rule?.(id),
        podOfPort: (port) => pods.get(port),
      },
    );
    const result: TraceflowNodeResult = {
      node: this.o.nodeName,
      role: s.isSender ? 'sender' : 'receiver',
      timestamp: Math.floor((this.o.now ?? (() => new Date()))().getTime() / 1000),
      observations,
    };
    const captured = s.liveTraffic && (s.isSender || s.receiverOnly || s.droppedOnly);
    try {
      await this.o.api.appendResult(s.name, result, captured ? capturedPacket(packet) : undefined);
      this.log.info({ traceflow: s.name, observations: observations.length }, 'Traceflow result written');
    } catch (err) {
      this.log.warn({ err, traceflow: s.name }, 'writing the Traceflow result failed');
    }
  }
}
