import type {
  AntreaAgentInfo,
  AntreaControllerInfo,
  AntreaNetworkPolicy,
  ClusterGroup,
  ClusterNetworkPolicy,
  Egress,
  ExternalEntity,
  ExternalIPPool,
  Group,
  PolicyPeer,
  PolicyRule,
  SupportBundleCollection,
  Tier,
  Traceflow,
  TrafficControl,
} from '@antrea-ts/apis';

// Valid objects of every kind, modelled on Antrea's documentation (docs/antrea-network-policy.md,
// docs/traceflow-guide.md, docs/support-bundle-guide.md) plus the less common fields, so that a
// schema that prunes or refuses something Antrea accepts shows up as a read-back difference.

export const NAMESPACE = 'crd-test';

export const tier: Tier = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Tier',
  metadata: { name: 'mytier' },
  spec: { priority: 10, description: 'my custom tier' },
};

// The documentation's policy examples share their peers and their egress rule.
const frontendPeers: PolicyPeer[] = [
  { podSelector: { matchLabels: { role: 'frontend' } } },
  {
    podSelector: { matchLabels: { role: 'nondb' } },
    namespaceSelector: { matchLabels: { role: 'db' } },
  },
];
const dropToThirdParty: PolicyRule = {
  action: 'Drop',
  to: [{ ipBlock: { cidr: '10.0.10.0/24' } }],
  ports: [{ protocol: 'TCP', port: 5978 }],
  name: 'DropToThirdParty',
};

/** docs/antrea-network-policy.md, "ACNP with stand-alone selectors". */
export const acnpStandAlone: ClusterNetworkPolicy = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name: 'acnp-with-stand-alone-selectors' },
  spec: {
    priority: 5,
    tier: 'securityops',
    appliedTo: [
      { podSelector: { matchLabels: { role: 'db' } } },
      { namespaceSelector: { matchLabels: { env: 'prod' } } },
    ],
    ingress: [
      {
        action: 'Allow',
        from: frontendPeers,
        ports: [
          { protocol: 'TCP', port: 8080, endPort: 9000 },
          { protocol: 'TCP', port: 6379 },
        ],
        name: 'AllowFromFrontend',
      },
    ],
    egress: [dropToThirdParty],
  },
};

/** Every ACNP field Antrea's schema accepts, in the positions where it accepts it. */
export const acnpAllFields: ClusterNetworkPolicy = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name: 'acnp-all-fields' },
  spec: {
    priority: 9999.5,
    tier: 'application',
    ingress: [
      {
        action: 'Reject',
        appliedTo: [
          {
            podSelector: {
              matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }],
            },
            namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] },
          },
          { group: 'cg-web' },
          { serviceAccount: { name: 'sa', namespace: 'default' } },
          { service: { name: 'nodeport-svc', namespace: 'default' } },
        ],
        from: [
          { podSelector: {}, namespaces: { match: 'Self' } },
          { namespaces: { sameLabels: ['tenant'] } },
          { ipBlock: { cidr: '2001:db8::/48', except: ['2001:db8::/64'] } },
          { group: 'cg-clients' },
          { serviceAccount: { name: 'client', namespace: 'default' } },
          { nodeSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } },
          { podSelector: { matchLabels: { app: 'mc' } }, scope: 'ClusterSet' },
        ],
        ports: [{ protocol: 'UDP', port: 'dns', sourcePort: 1024, sourceEndPort: 2048 }],
        protocols: [
          { icmp: { icmpType: 8, icmpCode: 0 } },
          { igmp: { igmpType: 0x11, groupAddress: '224.0.0.1' } },
        ],
        enableLogging: true,
        logLabel: 'reject-web',
        name: 'RejectWeb',
      },
      {
        action: 'Allow',
        appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
        l7Protocols: [
          { http: { host: '*.example.com', method: 'GET', path: '/api/*' } },
          { tls: { sni: 'foo.com' } },
        ],
      },
      {
        action: 'Pass',
        appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
      },
    ],
    egress: [
      {
        action: 'Allow',
        appliedTo: [{ podSelector: { matchLabels: { app: 'client' } } }],
        to: [{ fqdn: '*.antrea.io' }, { namespaces: { match: 'Self' }, podSelector: {} }],
        protocols: [{ igmp: { igmpType: 0x16, groupAddress: 'ff02::1' } }],
      },
      {
        action: 'Drop',
        appliedTo: [{ podSelector: { matchLabels: { app: 'client' } } }],
        toServices: [{ name: 'svc', namespace: 'default', scope: 'Cluster' }],
      },
    ],
  },
};

/** docs/antrea-network-policy.md, "The Antrea NetworkPolicy resource". */
export const annp: AntreaNetworkPolicy = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'NetworkPolicy',
  metadata: { name: 'test-annp', namespace: NAMESPACE },
  spec: {
    priority: 5,
    tier: 'securityops',
    appliedTo: [{ podSelector: { matchLabels: { role: 'db' } } }],
    ingress: [
      {
        action: 'Allow',
        from: [...frontendPeers, { externalEntitySelector: { matchLabels: { vm: 'db' } } }],
        ports: [{ protocol: 'TCP', port: 8080, endPort: 9000 }],
        name: 'AllowFromFrontend',
      },
    ],
    egress: [
      dropToThirdParty,
      {
        action: 'Allow',
        toServices: [{ name: 'local-svc' }],
      },
    ],
  },
};

/** docs/antrea-network-policy.md, "ClusterGroup CRD". */
export const clusterGroups: ClusterGroup[] = [
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: { name: 'test-cg-sel' },
    spec: {
      podSelector: { matchLabels: { role: 'db' } },
      namespaceSelector: { matchLabels: { env: 'prod' } },
    },
  },
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: { name: 'test-cg-ip-block' },
    spec: { ipBlocks: [{ cidr: '10.0.10.0/24' }] },
  },
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: { name: 'test-cg-svc-ref' },
    spec: { serviceReference: { name: 'test-service', namespace: 'default' } },
  },
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: { name: 'test-cg-nested' },
    spec: { childGroups: ['test-cg-sel', 'test-cg-ip-blocks', 'test-cg-svc-ref'] },
  },
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterGroup',
    metadata: { name: 'test-cg-nodes' },
    spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } } },
  },
];

export const group: Group = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Group',
  metadata: { name: 'test-grp-with-namespace', namespace: NAMESPACE },
  spec: { podSelector: { matchLabels: { role: 'db' } }, namespaceSelector: { matchLabels: { env: 'prod' } } },
};

export const externalEntity: ExternalEntity = {
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'ExternalEntity',
  metadata: { name: 'vm1-eth0', namespace: NAMESPACE, labels: { vm: 'db' } },
  spec: {
    endpoints: [
      { ip: '10.10.0.5', name: 'eth0' },
      { ip: 'fd00::5', name: 'eth0' },
    ],
    ports: [{ protocol: 'TCP', port: 3306, name: 'mysql' }],
    externalNode: 'vm1',
  },
};

/** docs/traceflow-guide.md, the first example. */
export const traceflow: Traceflow = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Traceflow',
  metadata: { name: 'tf-test' },
  spec: {
    source: { namespace: 'default', pod: 'tcp-sts-0' },
    destination: { namespace: 'default', pod: 'tcp-sts-2' },
    packet: {
      ipHeader: { protocol: 6 },
      transportHeader: { tcp: { srcPort: 10000, dstPort: 80, flags: 2 } },
    },
  },
};

/** docs/traceflow-guide.md, live traffic. */
export const liveTraceflow: Traceflow = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Traceflow',
  metadata: { name: 'tf-live' },
  spec: {
    liveTraffic: true,
    droppedOnly: true,
    destination: { namespace: 'default', pod: 'udp-server' },
    packet: { transportHeader: { udp: { dstPort: 1234 } } },
    timeout: 60,
  },
};

/** docs/support-bundle-guide.md, without expirationMinutes so the schema default applies. */
export const supportBundleCollection: SupportBundleCollection = {
  apiVersion: 'crd.antrea.io/v1alpha1',
  kind: 'SupportBundleCollection',
  metadata: { name: 'support-bundle-for-nodes' },
  spec: {
    nodes: { nodeNames: ['worker1'], nodeSelector: { matchLabels: { role: 'workers' } } },
    sinceTime: '2h',
    fileServer: { url: 'sftp://yourtestdomain.com:22/root/test' },
    authentication: {
      authType: 'BasicAuthentication',
      authSecret: { name: 'support-bundle-secret', namespace: 'default' },
    },
  },
};

export const agentInfo: AntreaAgentInfo = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'AntreaAgentInfo',
  metadata: { name: 'node-1' },
  version: 'v2.8.0-ts',
  podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-agent-abcde' },
  nodeRef: { kind: 'Node', name: 'node-1' },
  nodeSubnets: ['10.244.1.0/24'],
  ovsInfo: { version: '3.3.0', bridgeName: 'br-int', flowTable: { Classifier: 12, SpoofGuard: 4 } },
  networkPolicyControllerInfo: { networkPolicyNum: 3, addressGroupNum: 2, appliedToGroupNum: 1 },
  localPodNum: 7,
  agentConditions: [
    { type: 'AgentHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T09:00:00Z' },
    { type: 'OVSDBConnectionUp', status: 'False', lastHeartbeatTime: '2026-11-21T09:00:00Z', reason: 'Down' },
  ],
  apiPort: 10350,
  apiCABundle: Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64'),
  nodePortLocalPortRange: '61000-62000',
  networkInfo: {
    transportInterface: 'eth0',
    transportInterfaceMTU: 1500,
    podMTU: 1450,
    transportInterfaceIPs: ['192.168.1.10/24'],
  },
};

export const controllerInfo: AntreaControllerInfo = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'AntreaControllerInfo',
  metadata: { name: 'antrea-controller' },
  version: 'v2.8.0-ts',
  podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-controller-xyz' },
  nodeRef: { kind: 'Node', name: 'node-0' },
  serviceRef: { kind: 'Service', namespace: 'kube-system', name: 'antrea' },
  networkPolicyControllerInfo: { networkPolicyNum: 3, addressGroupNum: 2, appliedToGroupNum: 1 },
  connectedAgentNum: 2,
  controllerConditions: [
    { type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T09:00:00Z' },
  ],
  apiPort: 10349,
};

// docs/egress.md: a pool on the Node subnet for Nodes labelled network-role=egress-gateway.
export const externalIPPool: ExternalIPPool = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name: 'prod-external-ip-pool' },
  spec: {
    ipRanges: [{ start: '10.10.0.2', end: '10.10.0.3' }, { cidr: '10.10.1.0/28' }],
    nodeSelector: { matchLabels: { 'network-role': 'egress-gateway' } },
  },
};

export const egress: Egress = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Egress',
  metadata: { name: 'egress-prod-web' },
  spec: {
    appliedTo: {
      namespaceSelector: { matchLabels: { env: 'prod' } },
      podSelector: { matchLabels: { role: 'web' } },
    },
    egressIP: '10.10.0.8',
    externalIPPool: 'prod-external-ip-pool',
  },
};

// docs/traffic-control.md: mirror a Namespace's web Pods over VXLAN, and redirect through two
// OVS internal ports (the IDS example).
export const trafficControlMirror: TrafficControl = {
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name: 'mirror-web-app' },
  spec: {
    appliedTo: { podSelector: { matchLabels: { app: 'web' } } },
    direction: 'Both',
    action: 'Mirror',
    targetPort: { vxlan: { remoteIP: '10.0.10.2', vni: 1, destinationPort: 4789 } },
  },
};

export const trafficControlRedirect: TrafficControl = {
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name: 'redirect-prod-to-local' },
  spec: {
    appliedTo: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } } },
    direction: 'Ingress',
    action: 'Redirect',
    targetPort: { ovsInternal: { name: 'tap0' } },
    returnPort: { ovsInternal: { name: 'tap1' } },
  },
};
