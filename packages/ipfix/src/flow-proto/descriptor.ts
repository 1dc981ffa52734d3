// Antrea's flow export API (package antrea_io.antrea.pkg.apis.flow.v1alpha1, pkg/apis/flow/v1alpha1
// in antrea-io/antrea): the messages an agent streams to the Flow Aggregator over gRPC, as a
// protobufjs reflection namespace. Field names and numbers follow Antrea's .proto; the
// FlowStreamService (a server-streaming query API of the aggregator) is not described here.
import type { IField, INamespace } from 'protobufjs';

const f = (type: string, id: number, extra: Record<string, unknown> = {}) => ({ type, id, ...extra });

const enums = {
  FlowEndReason: {
    values: {
      FLOW_END_REASON_UNSPECIFIED: 0,
      FLOW_END_REASON_IDLE_TIMEOUT: 1,
      FLOW_END_REASON_ACTIVE_TIMEOUT: 2,
      FLOW_END_REASON_END_OF_FLOW: 3,
      FLOW_END_REASON_FORCED_END: 4,
      FLOW_END_REASON_LACK_OF_RESOURCES: 5,
    },
  },
  IPVersion: { values: { IP_VERSION_UNSPECIFIED: 0, IP_VERSION_4: 4, IP_VERSION_6: 6 } },
  FlowType: {
    values: {
      FLOW_TYPE_UNSPECIFIED: 0,
      FLOW_TYPE_INTRA_NODE: 1,
      FLOW_TYPE_INTER_NODE: 2,
      FLOW_TYPE_TO_EXTERNAL: 3,
      FLOW_TYPE_FROM_EXTERNAL: 4,
    },
  },
  NetworkPolicyType: {
    values: {
      NETWORK_POLICY_TYPE_UNSPECIFIED: 0,
      NETWORK_POLICY_TYPE_K8S: 1,
      NETWORK_POLICY_TYPE_ANP: 2,
      NETWORK_POLICY_TYPE_ACNP: 3,
      NETWORK_POLICY_TYPE_K8SCNP: 4,
    },
  },
  NetworkPolicyRuleAction: {
    values: {
      NETWORK_POLICY_RULE_ACTION_NO_ACTION: 0,
      NETWORK_POLICY_RULE_ACTION_ALLOW: 1,
      NETWORK_POLICY_RULE_ACTION_DROP: 2,
      NETWORK_POLICY_RULE_ACTION_REJECT: 3,
    },
  },
  FlowDirection: {
    values: { FLOW_DIRECTION_INGRESS: 0, FLOW_DIRECTION_EGRESS: 1, FLOW_DIRECTION_UNKNOWN: 255 },
  },
};

const stats = {
  fields: {
    packetTotalCount: f('uint64', 1),
    packetDeltaCount: f('uint64', 2),
    octetTotalCount: f('uint64', 3),
    octetDeltaCount: f('uint64', 4),
  },
};

/** Kubernetes metadata of a flow: the numbers of Antrea's `Kubernetes` message. */
const kubernetes = {
  fields: {
    flowType: f('FlowType', 1),
    sourcePodNamespace: f('string', 2),
    sourcePodName: f('string', 3),
    sourcePodUid: f('string', 4),
    sourcePodLabels: f('Labels', 5),
    sourceNodeName: f('string', 6),
    sourceNodeUid: f('string', 7),
    destinationPodNamespace: f('string', 8),
    destinationPodName: f('string', 9),
    destinationPodUid: f('string', 10),
    destinationPodLabels: f('Labels', 11),
    destinationNodeName: f('string', 12),
    destinationNodeUid: f('string', 13),
    destinationClusterIp: f('bytes', 14),
    destinationServicePort: f('uint32', 15),
    destinationServicePortName: f('string', 16),
    destinationServiceUid: f('string', 17),
    ingressNetworkPolicyType: f('NetworkPolicyType', 18),
    ingressNetworkPolicyNamespace: f('string', 19),
    ingressNetworkPolicyName: f('string', 20),
    ingressNetworkPolicyUid: f('string', 21),
    ingressNetworkPolicyRuleName: f('string', 22),
    ingressNetworkPolicyRuleAction: f('NetworkPolicyRuleAction', 23),
    egressNetworkPolicyType: f('NetworkPolicyType', 24),
    egressNetworkPolicyNamespace: f('string', 25),
    egressNetworkPolicyName: f('string', 26),
    egressNetworkPolicyUid: f('string', 27),
    egressNetworkPolicyRuleName: f('string', 28),
    egressNetworkPolicyRuleAction: f('NetworkPolicyRuleAction', 29),
    egressName: f('string', 30),
    egressIp: f('bytes', 31),
    egressNodeName: f('string', 32),
    egressNodeUid: f('string', 33),
    egressUid: f('string', 34),
    destinationServiceIp: f('bytes', 35),
  },
};

const aggregation = {
  fields: {
    endTsFromSource: f('google.protobuf.Timestamp', 1),
    endTsFromDestination: f('google.protobuf.Timestamp', 2),
    statsFromSource: f('Stats', 3),
    reverseStatsFromSource: f('Stats', 4),
    statsFromDestination: f('Stats', 5),
    reverseStatsFromDestination: f('Stats', 6),
    throughputFromSource: f('uint64', 7),
    reverseThroughputFromSource: f('uint64', 8),
    throughputFromDestination: f('uint64', 9),
    reverseThroughputFromDestination: f('uint64', 10),
    throughput: f('uint64', 11),
    reverseThroughput: f('uint64', 12),
  },
};

const flow = {
  fields: {
    id: f('string', 1),
    ipfix: f('IPFIX', 2),
    startTs: f('google.protobuf.Timestamp', 3),
    endTs: f('google.protobuf.Timestamp', 4),
    endReason: f('FlowEndReason', 5),
    ip: f('IP', 6),
    transport: f('Transport', 7),
    k8s: f('Kubernetes', 8),
    stats: f('Stats', 9),
    reverseStats: f('Stats', 10),
    app: f('App', 11),
    flowDirection: f('FlowDirection', 12),
    aggregation: f('Aggregation', 13),
    proxySnatIp: f('bytes', 14),
    proxySnatPort: f('uint32', 15),
  },
};

export const FLOW_PROTO_PACKAGE = 'antrea_io.antrea.pkg.apis.flow.v1alpha1';

export const flowDescriptor: INamespace = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Timestamp: { fields: { seconds: f('int64', 1), nanos: f('int32', 2) } },
          },
        },
      },
    },
    antrea_io: {
      nested: {
        antrea: {
          nested: {
            pkg: {
              nested: {
                apis: {
                  nested: {
                    flow: {
                      nested: {
                        v1alpha1: {
                          nested: {
                            ...enums,
                            IPFIX: {
                              fields: {
                                exportTime: f('google.protobuf.Timestamp', 1),
                                sequenceNumber: f('uint32', 2),
                                observationDomainId: f('uint32', 3),
                                exporterIp: f('string', 4),
                              },
                            },
                            IP: {
                              fields: {
                                version: f('IPVersion', 1),
                                source: f('bytes', 2),
                                destination: f('bytes', 3),
                              },
                            },
                            TCP: { fields: { stateName: f('string', 1) } },
                            Transport: {
                              oneofs: { protocol: { oneof: ['TCP'] } },
                              fields: {
                                protocolNumber: f('uint32', 1),
                                sourcePort: f('uint32', 2),
                                destinationPort: f('uint32', 3),
                                TCP: f('TCP', 4),
                              },
                            },
                            Stats: stats,
                            // A map field (protobufjs's IMapField carries keyType).
                            Labels: {
                              fields: { labels: { keyType: 'string', type: 'string', id: 1 } as IField },
                            },
                            Kubernetes: kubernetes,
                            App: { fields: { protocolName: f('string', 1), httpVals: f('bytes', 2) } },
                            Aggregation: aggregation,
                            Flow: flow,
                            ExportRequest: { fields: { flows: f('Flow', 1, { rule: 'repeated' }) } },
                            ExportResponse: { fields: {} },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
