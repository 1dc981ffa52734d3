// Canned controlplane objects in their JSON wire form (IPs as base64 bytes), shared by unit tests
// and by the fake controller of the integration tests.

export const ip64 = (ip: string): string => Buffer.from(ip.split('.').map(Number)).toString('base64');

export const NETWORK_POLICIES = {
  kind: 'NetworkPolicyList',
  apiVersion: 'controlplane.antrea.io/v1beta2',
  metadata: { resourceVersion: '7' },
  items: [
    {
      metadata: {
        name: 'b6d8c4f0-0000-4000-8000-000000000002',
        uid: 'b6d8c4f0-0000-4000-8000-000000000002',
        resourceVersion: '5',
        generation: 1,
        creationTimestamp: null,
      },
      rules: [
        {
          direction: 'In',
          from: { addressGroups: ['ag-web'] },
          priority: 0,
          action: 'Allow',
          enableLogging: false,
        },
      ],
      appliedToGroups: ['atg-db'],
      priority: 5,
      tierPriority: 250,
      sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'acnp-db', uid: 'u-acnp' },
    },
    {
      metadata: {
        name: 'a1f00000-0000-4000-8000-000000000001',
        uid: 'a1f00000-0000-4000-8000-000000000001',
        resourceVersion: '6',
        generation: 1,
        creationTimestamp: null,
      },
      rules: [
        { direction: 'In', from: { addressGroups: ['ag-web'] }, priority: -1, enableLogging: false },
        { direction: 'Out', to: { ipBlocks: [] }, priority: -1, enableLogging: false },
      ],
      appliedToGroups: ['atg-web', 'atg-db'],
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: 'allow-web', uid: 'u-knp' },
    },
    {
      metadata: {
        name: 'c0000000-0000-4000-8000-000000000003',
        uid: 'c0000000-0000-4000-8000-000000000003',
        resourceVersion: '7',
        generation: 2,
        creationTimestamp: null,
      },
      rules: [
        {
          direction: 'Out',
          to: { addressGroups: ['ag-web'] },
          priority: 0,
          action: 'Drop',
          enableLogging: true,
        },
      ],
      appliedToGroups: ['atg-web'],
      priority: 1,
      tierPriority: 100,
      sourceRef: { type: 'AntreaNetworkPolicy', namespace: 'prod', name: 'annp-deny', uid: 'u-annp' },
    },
  ],
};

export const ADDRESS_GROUPS = {
  kind: 'AddressGroupList',
  apiVersion: 'controlplane.antrea.io/v1beta2',
  metadata: {},
  items: [
    {
      metadata: { name: 'ag-web', creationTimestamp: null },
      groupMembers: [
        { pod: { name: 'web-1', namespace: 'default' }, ips: [ip64('10.10.1.3')] },
        { pod: { name: 'web-0', namespace: 'default' }, ips: [ip64('10.10.0.2')] },
        { node: { name: 'node-a' }, ips: [ip64('192.168.77.10')] },
      ],
    },
    { metadata: { name: 'ag-empty', creationTimestamp: null } },
  ],
};

export const APPLIED_TO_GROUPS = {
  kind: 'AppliedToGroupList',
  apiVersion: 'controlplane.antrea.io/v1beta2',
  metadata: {},
  items: [
    {
      metadata: { name: 'atg-web', creationTimestamp: null },
      groupMembers: [
        { pod: { name: 'web-0', namespace: 'default' }, ips: [ip64('10.10.0.2')] },
        { pod: { name: 'web-1', namespace: 'default' }, ips: [ip64('10.10.1.3')] },
      ],
    },
    {
      metadata: { name: 'atg-db', creationTimestamp: null },
      groupMembers: [{ pod: { name: 'db-0', namespace: 'prod' }, ips: [ip64('10.10.2.4')] }],
    },
  ],
};

export const CONTROLLER_INFO = {
  kind: 'AntreaControllerInfo',
  apiVersion: 'system.antrea.io/v1beta1',
  metadata: { name: 'antrea-controller' },
  version: 'v0.1.0-antrea-ts',
  podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-controller-5d9f' },
  nodeRef: { kind: 'Node', name: 'node-a' },
  serviceRef: { kind: 'Service', name: 'antrea' },
  networkPolicyControllerInfo: { networkPolicyNum: 3, addressGroupNum: 2, appliedToGroupNum: 2 },
  connectedAgentNum: 2,
  controllerConditions: [
    { type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T09:00:00Z' },
  ],
  apiPort: 10349,
};

export const AGENT_INFO = {
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'AntreaAgentInfo',
  metadata: { name: 'node-a' },
  version: '0.1.0-antrea-ts',
  podRef: { kind: 'Pod', namespace: 'kube-system', name: 'antrea-agent-x7k2p' },
  nodeRef: { kind: 'Node', name: 'node-a' },
  nodeSubnets: ['10.10.0.0/24'],
  ovsInfo: { version: '3.3.0', bridgeName: 'br-int' },
  networkPolicyControllerInfo: { networkPolicyNum: 1, addressGroupNum: 1, appliedToGroupNum: 1 },
  localPodNum: 4,
  agentConditions: [
    { type: 'AgentHealthy', status: 'True', lastHeartbeatTime: '2026-11-21T09:00:00Z' },
    { type: 'OVSDBConnectionUp', status: 'True', lastHeartbeatTime: '2026-11-21T09:00:00Z' },
  ],
  apiPort: 10350,
};

export const POD_INTERFACES = [
  {
    name: 'web-0',
    podNamespace: 'default',
    interfaceName: 'web-0-4a1b2c',
    ips: ['10.10.0.2'],
    mac: '16:6e:1a:2b:3c:4d',
    ofPort: 3,
    containerID: '0123456789abcdef0123',
  },
  {
    name: 'db-0',
    podNamespace: 'prod',
    interfaceName: 'db-0-9f8e7d',
    ips: ['10.10.0.5'],
    mac: '16:6e:1a:2b:3c:99',
    ofPort: 4,
    containerID: 'fedcba9876543210fedc',
  },
];
