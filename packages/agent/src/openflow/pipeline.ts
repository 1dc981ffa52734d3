import { AgentError } from '../errors.js';

/**
 * The br-int pipeline, declared once as data (Antrea pkg/agent/openflow/pipeline.go). Everything
 * else names tables; only this module knows their numbers. Like Antrea, a table gets an id only when
 * a feature that needs it is enabled, so disabled features leave no empty tables and the ids of the
 * connectivity pipeline come out as in Antrea's documentation for the same feature set.
 */

/** A packet enters the root table and is sent to the ARP or the IP pipeline. */
export type PipelineName = 'root' | 'arp' | 'ip';

/**
 * Datapath features. `networkPolicy` tables are reserved for the policy issue: they get ids and a
 * "continue" miss flow now, so connectivity works through them and policy rules only add flows.
 */
export type Feature =
  | 'podConnectivity'
  | 'networkPolicy'
  | 'antreaPolicy'
  | 'service'
  | 'egress'
  | 'trafficControl';

/** What a packet that matches no flow does. */
export type MissAction = 'next' | 'drop' | { goto: TableName };

export interface TableSpec {
  readonly name: TableName;
  readonly pipeline: PipelineName;
  readonly features: readonly Feature[];
  readonly miss: MissAction;
  readonly doc: string;
}

const TABLE_NAMES = [
  'PipelineRootClassifier',
  'ARPSpoofGuard',
  'ARPResponder',
  'Classifier',
  'SpoofGuard',
  'UnSNAT',
  'ConntrackZone',
  'ConntrackState',
  'PreRoutingClassifier',
  'NodePortMark',
  'SessionAffinity',
  'ServiceLB',
  'EndpointDNAT',
  'AntreaPolicyEgressRule',
  'EgressRule',
  'EgressDefaultRule',
  'EgressMetric',
  'L3Forwarding',
  'EgressMark',
  'L3DecTTL',
  'SNATMark',
  'SNAT',
  'L2ForwardingCalc',
  'TrafficControl',
  'IngressSecurityClassifier',
  'AntreaPolicyIngressRule',
  'IngressRule',
  'IngressDefaultRule',
  'IngressMetric',
  'ConntrackCommit',
  'Output',
] as const;

export type TableName = (typeof TABLE_NAMES)[number];

const t = (
  name: TableName,
  pipeline: PipelineName,
  features: readonly Feature[],
  miss: MissAction,
  doc: string,
): TableSpec => ({ name, pipeline, features, miss, doc });

const PC: Feature[] = ['podConnectivity'];
const NP: Feature[] = ['networkPolicy'];

/** Every table in pipeline order (within each pipeline, packets only move forward). */
export const TABLES: readonly TableSpec[] = Object.freeze([
  t(
    'PipelineRootClassifier',
    'root',
    PC,
    'drop',
    'ARP to the ARP pipeline, IP to Classifier, the rest dropped',
  ),
  t('ARPSpoofGuard', 'arp', PC, 'drop', 'ARP from a local port must carry that port’s IP and MAC'),
  t(
    'ARPResponder',
    'arp',
    PC,
    'drop',
    'answers ARP for remote gateways with the global virtual MAC; other ARP goes NORMAL',
  ),
  t('Classifier', 'ip', PC, 'drop', 'marks the packet source (tunnel, gateway, Pod) in reg0[0..3]'),
  t('SpoofGuard', 'ip', PC, 'drop', 'IP from a Pod port must carry the Pod’s IP and MAC'),
  t('UnSNAT', 'ip', ['service'], 'next', 'un-SNATs replies of Service connections (zone 65521)'),
  t('ConntrackZone', 'ip', PC, 'next', 'sends IP through conntrack in zone 65520 (with nat)'),
  t('ConntrackState', 'ip', PC, 'next', 'drops invalid connections'),
  t('PreRoutingClassifier', 'ip', ['service'], 'next', 'Service pre-routing dispatch'),
  t('NodePortMark', 'ip', ['service'], 'next', 'marks NodePort destinations'),
  // With the service flows installed, their priority-1 flow answers every miss (EpToSelect, and
  // back to PreRoutingClassifier's next resubmit); 'next' keeps a pipeline without them working.
  t('SessionAffinity', 'ip', ['service'], 'next', 'learned session-affinity flows'),
  t('ServiceLB', 'ip', ['service'], 'next', 'select groups per Service'),
  t('EndpointDNAT', 'ip', ['service'], 'next', 'DNAT to the chosen Endpoint'),
  t('AntreaPolicyEgressRule', 'ip', ['antreaPolicy', 'networkPolicy'], 'next', 'Antrea-native egress tiers'),
  t('EgressRule', 'ip', NP, 'next', 'K8s NetworkPolicy egress rules (conjunctions)'),
  t('EgressDefaultRule', 'ip', NP, 'next', 'K8s egress isolation drops, baseline tier'),
  t('EgressMetric', 'ip', NP, 'next', 'per-rule egress counters'),
  t('L3Forwarding', 'ip', PC, { goto: 'L2ForwardingCalc' }, 'routes: local Pods, gateway, remote Node CIDRs'),
  // What no Egress claims continues as if EgressMark were not there: straight to L2ForwardingCalc.
  t('EgressMark', 'ip', ['egress'], { goto: 'L2ForwardingCalc' }, 'Egress SNAT marks'),
  t('L3DecTTL', 'ip', PC, 'next', 'decrements TTL of routed packets'),
  t('SNATMark', 'ip', ['service'], 'next', 'marks connections that need SNAT'),
  t('SNAT', 'ip', ['service'], 'next', 'SNAT in zone 65521'),
  t('L2ForwardingCalc', 'ip', PC, 'next', 'destination MAC to output port in reg1'),
  t('TrafficControl', 'ip', ['trafficControl'], 'next', 'mirror/redirect'),
  t('IngressSecurityClassifier', 'ip', NP, 'next', 'skips ingress policy for some sources'),
  t(
    'AntreaPolicyIngressRule',
    'ip',
    ['antreaPolicy', 'networkPolicy'],
    'next',
    'Antrea-native ingress tiers',
  ),
  t('IngressRule', 'ip', NP, 'next', 'K8s NetworkPolicy ingress rules (conjunctions)'),
  t('IngressDefaultRule', 'ip', NP, 'next', 'K8s ingress isolation drops, baseline tier'),
  t('IngressMetric', 'ip', NP, 'next', 'per-rule ingress counters'),
  t('ConntrackCommit', 'ip', PC, 'next', 'commits new connections in zone 65520'),
  t('Output', 'ip', PC, 'drop', 'outputs to the port in reg1'),
]);

export interface ResolvedTable extends TableSpec {
  readonly id: number;
  /** The table a miss continues to, when the miss action does not drop. */
  readonly missTarget: number | undefined;
}

/** The pipeline for one set of enabled features: table ids and miss targets, frozen. */
export class Pipeline {
  private readonly byName: ReadonlyMap<TableName, ResolvedTable>;
  readonly tables: readonly ResolvedTable[];

  constructor(readonly features: ReadonlySet<Feature>) {
    const active = TABLES.filter((spec) => spec.features.some((f) => features.has(f)));
    const ids = new Map<TableName, number>(active.map((spec, i) => [spec.name, i]));
    const resolved = active.map((spec, i): ResolvedTable => {
      let missTarget: number | undefined;
      if (spec.miss === 'next') {
        const next = active.slice(i + 1).find((s) => s.pipeline === spec.pipeline);
        if (!next) throw new AgentError('AGENT_PIPELINE_INVALID', `table ${spec.name} has no next table`);
        missTarget = ids.get(next.name);
      } else if (spec.miss !== 'drop') {
        missTarget = ids.get(spec.miss.goto);
        if (missTarget === undefined || missTarget <= i) {
          throw new AgentError(
            'AGENT_PIPELINE_INVALID',
            `table ${spec.name} misses to inactive ${spec.miss.goto}`,
          );
        }
      }
      return Object.freeze({ ...spec, id: i, missTarget });
    });
    this.tables = Object.freeze(resolved);
    this.byName = new Map(resolved.map((r) => [r.name, r]));
  }

  /** The id of a table; throws for a table no enabled feature needs (a programming error). */
  id(name: TableName): number {
    const table = this.byName.get(name);
    if (!table) throw new AgentError('AGENT_PIPELINE_INVALID', `table ${name} is not in this pipeline`);
    return table.id;
  }

  has(name: TableName): boolean {
    return this.byName.has(name);
  }

  table(name: TableName): ResolvedTable {
    const table = this.byName.get(name);
    if (!table) throw new AgentError('AGENT_PIPELINE_INVALID', `table ${name} is not in this pipeline`);
    return table;
  }

  /** The next active table of the same pipeline (where "continue" goes). */
  next(name: TableName): number {
    const table = this.table(name);
    const next = this.tables.find((x) => x.id > table.id && x.pipeline === table.pipeline);
    if (!next) throw new AgentError('AGENT_PIPELINE_INVALID', `table ${name} has no next table`);
    return next.id;
  }

  nameOf(id: number): TableName | undefined {
    return this.tables[id]?.name;
  }
}

/** What the agent enables today: connectivity, with the policy tables reserved. */
export const DEFAULT_FEATURES: ReadonlySet<Feature> = new Set<Feature>([
  'podConnectivity',
  'networkPolicy',
  'antreaPolicy',
  'service',
]);
