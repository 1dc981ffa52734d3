import { ANTREA_NAMESPACE_NAME, CONTROLLER_SERVICE } from './names.js';

/**
 * The Kubernetes objects the lab installs besides the CRDs: service accounts and least-privilege-ish
 * RBAC for the agent and the controller (the rules of Antrea's antrea.yml, trimmed to what Antrea-TS
 * uses), and the Service + Endpoints and EndpointSlice in front of the controller that the APIService names: the
 * controller runs on the host, so the endpoints point at the underlay host address.
 */
type Obj = Record<string, unknown>;

const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({ apiGroups, resources, verbs });
const READ = ['get', 'list', 'watch'];

export const AGENT_RULES = [
  rule([''], ['nodes', 'pods', 'namespaces', 'services', 'endpoints'], READ),
  rule([''], ['configmaps'], READ),
  rule(['discovery.k8s.io'], ['endpointslices'], READ),
  rule(['networking.k8s.io'], ['networkpolicies'], READ),
  rule(['crd.antrea.io'], ['antreaagentinfos'], ['get', 'create', 'update', 'patch', 'delete']),
  rule(
    ['crd.antrea.io'],
    ['traceflows', 'traceflows/status', 'egresses', 'externalippools'],
    [...READ, 'patch', 'update'],
  ),
  rule(
    ['controlplane.antrea.io'],
    ['networkpolicies', 'appliedtogroups', 'addressgroups', 'egressgroups'],
    READ,
  ),
  rule(['controlplane.antrea.io'], ['networkpolicies/status', 'nodestatssummaries'], ['create', 'get']),
  rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
  rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  rule(['events.k8s.io', ''], ['events'], ['create', 'patch']),
];

export const CONTROLLER_RULES = [
  rule([''], ['pods', 'namespaces', 'services', 'endpoints'], READ),
  rule([''], ['nodes'], [...READ, 'patch', 'update']),
  rule([''], ['configmaps'], [...READ, 'create', 'update', 'patch']),
  rule(['discovery.k8s.io'], ['endpointslices'], READ),
  rule(['networking.k8s.io'], ['networkpolicies'], READ),
  rule(['crd.antrea.io'], ['*'], ['*']),
  rule(['apiregistration.k8s.io'], ['apiservices'], [...READ, 'create', 'update', 'patch']),
  rule(
    ['admissionregistration.k8s.io'],
    ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
    [...READ, 'update', 'patch'],
  ),
  rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
  rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  rule(['events.k8s.io', ''], ['events'], ['create', 'patch']),
];

function serviceAccount(name: string): Obj {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ANTREA_NAMESPACE_NAME } };
}

function clusterRole(name: string, rules: unknown[]): Obj {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

function clusterRoleBinding(name: string, role: string, sa: string): Obj {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ANTREA_NAMESPACE_NAME }],
  };
}

export function rbacObjects(): Obj[] {
  return [
    serviceAccount('antrea-agent'),
    serviceAccount('antrea-controller'),
    clusterRole('antrea-agent', AGENT_RULES),
    clusterRole('antrea-controller', CONTROLLER_RULES),
    clusterRoleBinding('antrea-agent', 'antrea-agent', 'antrea-agent'),
    clusterRoleBinding('antrea-controller', 'antrea-controller', 'antrea-controller'),
    // Delegated authentication and authorization, as every extension API server needs.
    clusterRoleBinding('antrea-controller-auth-delegator', 'system:auth-delegator', 'antrea-controller'),
    clusterRoleBinding('antrea-agent-auth-delegator', 'system:auth-delegator', 'antrea-agent'),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'antrea-controller-authentication-reader', namespace: 'kube-system' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'extension-apiserver-authentication-reader',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-controller', namespace: ANTREA_NAMESPACE_NAME }],
    },
  ];
}

/** The Service the APIServices name, backed by a hand-made Endpoints at the controller's address. */
export function controllerServiceObjects(address: string, port: number): Obj[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: CONTROLLER_SERVICE, namespace: ANTREA_NAMESPACE_NAME, labels: { app: 'antrea' } },
      spec: { ports: [{ port: 443, protocol: 'TCP', targetPort: port }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: CONTROLLER_SERVICE, namespace: ANTREA_NAMESPACE_NAME, labels: { app: 'antrea' } },
      subsets: [{ addresses: [{ ip: address }], ports: [{ port, protocol: 'TCP' }] }],
    },
    // The aggregator resolves Services through EndpointSlices (no mirroring controller runs).
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: CONTROLLER_SERVICE,
        namespace: ANTREA_NAMESPACE_NAME,
        labels: {
          app: 'antrea',
          'kubernetes.io/service-name': CONTROLLER_SERVICE,
          'endpointslice.kubernetes.io/managed-by': 'lab.antrea-ts.io',
        },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ port, protocol: 'TCP' }],
    },
  ];
}

/** Objects as one multi-document stream for `kubectl apply -f -` (JSON is valid YAML). */
export function toApplyStream(objects: readonly Obj[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n---\n');
}
