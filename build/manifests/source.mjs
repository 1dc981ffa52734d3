// @ts-check
// The one source of Antrea-TS's deployment: every object of build/yamls/antrea.yml and of the Helm
// chart build/charts/antrea is described here once, as a function of the chart's values. generate.mjs
// calls it twice: with a renderer that substitutes the defaults (the plain manifest) and with one
// that leaves Helm expressions (the chart templates).
//
// Names and numbers are Antrea's (docs/architecture.md): kube-system, antrea-agent/antrea-controller,
// Service antrea, APIServices v1beta2.controlplane.antrea.io etc., ports 10349/10350, br-int.

/** The chart's values.yaml: what a user tunes. */
export const DEFAULT_VALUES = {
  image: { repository: 'antrea-ts/antrea', tag: 'latest', pullPolicy: 'IfNotPresent' },
  trafficEncapMode: 'encap',
  tunnelType: 'geneve',
  noSNAT: false,
  // Egress is on by default, as in Antrea (its `egress` keys below apply then); FlowExporter,
  // ServiceExternalIP (LoadBalancer IPs from ExternalIPPools, agent and controller) and
  // NodeNetworkPolicy (ClusterNetworkPolicies applied to Nodes, in the agents' iptables) off.
  featureGates: {
    AntreaPolicy: true,
    Egress: true,
    FlowExporter: false,
    ServiceExternalIP: false,
    NodeNetworkPolicy: false,
  },
  // AntreaProxy: Services load-balanced in OVS for Pod traffic; proxyAll makes it the kube-proxy
  // replacement (NodePorts, the Node's own Service traffic), which then needs kubeAPIServerOverride.
  antreaProxy: {
    enable: true,
    proxyAll: false,
    skipServices: [],
    serviceProxyName: '',
    proxyLoadBalancerIPs: true,
    nodePortAddresses: [],
  },
  // The kube-apiserver the agents use instead of the in-cluster ClusterIP (host, host:port or URL).
  kubeAPIServerOverride: '',
  // The cluster's Service CIDR, routed to antrea-gw0 with proxyAll (empty: a route per ClusterIP).
  serviceCIDR: '',
  // NodePortLocal: Node ports DNATed to Pods of annotated Services (off by default, as in Antrea).
  nodePortLocal: { enable: false, portRange: '61000-62000' },
  // Egress: destinations that bypass Egress SNAT, and the pool IPs one Node holds at most.
  egress: { exceptCIDRs: [], maxEgressIPsPerNode: 255 },
  // Flow Exporter (with featureGates.FlowExporter): local Pods' connections to the Flow Aggregator
  // Service of build/yamls/flow-aggregator.yml, over gRPC with mutual TLS as Antrea's default (or
  // IPFIX on 4739 over tls, tcp or udp).
  flowExporter: {
    enable: false,
    flowCollectorAddr: 'flow-aggregator/flow-aggregator:14739:grpc',
    flowPollInterval: '5s',
    activeFlowExportTimeout: '5s',
    idleFlowExportTimeout: '15s',
    protocolFilter: [],
  },
  nodeIPAM: { enable: false, clusterCIDRs: ['10.244.0.0/16'] },
  logLevel: 'info',
  cni: { confDir: '/etc/cni/net.d', binDir: '/opt/cni/bin' },
  agent: { resources: { requests: { cpu: '200m', memory: '256Mi' } } },
  ovs: { resources: { requests: { cpu: '200m', memory: '128Mi' } } },
  controller: { resources: { requests: { cpu: '200m', memory: '256Mi' } } },
  // The web dashboard listens on the controller Pod's loopback only: reach it with
  // `kubectl -n kube-system port-forward deploy/antrea-controller 10352`. 0 turns it off.
  dashboard: { port: 10352 },
};

const NS = 'kube-system';
const READ = ['get', 'list', 'watch'];
/** @param {string[]} apiGroups @param {string[]} resources @param {string[]} verbs */
const rule = (apiGroups, resources, verbs) => ({ apiGroups, resources, verbs });

/**
 * Least privilege per component: what each one reads, watches and writes (Antrea's antrea.yml,
 * trimmed to what Antrea-TS does). The lab applies these same roles, so they are exercised.
 */
export const AGENT_RULES = [
  rule([''], ['nodes', 'pods', 'namespaces', 'services', 'endpoints'], READ),
  // NodePortLocal publishes its mappings in a Pod annotation, patched through pods/status as Antrea does.
  rule([''], ['pods/status'], ['patch']),
  // ServiceExternalIP: the Node holding a Service's external IP writes its name into the ingress.
  rule([''], ['services/status'], ['update', 'patch']),
  rule([''], ['configmaps'], READ),
  rule(['discovery.k8s.io'], ['endpointslices'], READ),
  rule(['networking.k8s.io'], ['networkpolicies'], READ),
  rule(['crd.antrea.io'], ['antreaagentinfos'], ['get', 'create', 'update', 'patch', 'delete']),
  rule(
    ['crd.antrea.io'],
    ['traceflows', 'traceflows/status', 'egresses', 'egresses/status', 'externalippools'],
    [...READ, 'patch', 'update'],
  ),
  // TrafficControl: each agent watches the TrafficControls (it writes no status, as Antrea's).
  rule(['crd.antrea.io'], ['trafficcontrols'], READ),
  // PacketCapture: the capturing Node watches the captures, writes their status (read, then
  // replace, through /status) and reads the file server's credentials, that Secret only.
  rule(['crd.antrea.io'], ['packetcaptures'], READ),
  rule(['crd.antrea.io'], ['packetcaptures/status'], ['get', 'update']),
  {
    apiGroups: [''],
    resources: ['secrets'],
    resourceNames: ['antrea-packetcapture-fileserver-auth'],
    verbs: ['get'],
  },
  rule(
    ['controlplane.antrea.io'],
    ['networkpolicies', 'appliedtogroups', 'addressgroups', 'egressgroups'],
    READ,
  ),
  rule(['controlplane.antrea.io'], ['networkpolicies/status', 'nodestatssummaries'], ['create', 'get']),
  rule(['controlplane.antrea.io'], ['supportbundlecollections'], READ),
  rule(['controlplane.antrea.io'], ['supportbundlecollections/status'], ['create']),
  rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
  rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  rule(['events.k8s.io', ''], ['events'], ['create', 'patch']),
];

export const CONTROLLER_RULES = [
  rule([''], ['pods', 'namespaces', 'services', 'endpoints'], READ),
  rule([''], ['nodes'], [...READ, 'patch', 'update']),
  // ServiceExternalIP: status.loadBalancer.ingress of LoadBalancer Services with a pool.
  rule([''], ['services/status'], ['update', 'patch']),
  rule([''], ['configmaps'], [...READ, 'create', 'update', 'patch']),
  // Secrets: a SupportBundleCollection's upload credentials (any name it references), and the
  // controller's own serving certificate and CA, kept across restarts in antrea-controller-tls.
  rule([''], ['secrets'], ['get', 'create']),
  { apiGroups: [''], resources: ['secrets'], resourceNames: ['antrea-controller-tls'], verbs: ['update'] },
  rule(['discovery.k8s.io'], ['endpointslices'], READ),
  rule(['networking.k8s.io'], ['networkpolicies'], READ),
  rule(['crd.antrea.io'], ['*'], ['*']),
  // AdminNetworkPolicy/BaselineAdminNetworkPolicy (featureGates.AdminNetworkPolicy), status included.
  rule(
    ['policy.networking.k8s.io'],
    [
      'adminnetworkpolicies',
      'adminnetworkpolicies/status',
      'baselineadminnetworkpolicies',
      'baselineadminnetworkpolicies/status',
    ],
    [...READ, 'update', 'patch'],
  ),
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

/**
 * antctl's ClusterRole (Antrea's, for what Antrea-TS serves). Its ServiceAccount kube-system/antctl
 * is the identity `antctl supportbundle` asks a token of to call agents: each agent checks it with
 * TokenReview and these rules with SubjectAccessReview (the nonResourceURLs are agent API paths).
 */
export const ANTCTL_RULES = [
  rule(['controlplane.antrea.io'], ['networkpolicies', 'appliedtogroups', 'addressgroups'], ['get', 'list']),
  rule(
    ['stats.antrea.io'],
    ['networkpolicystats', 'antreaclusternetworkpolicystats', 'antreanetworkpolicystats'],
    ['get', 'list'],
  ),
  rule(['system.antrea.io'], ['controllerinfos', 'agentinfos'], ['get']),
  rule(['system.antrea.io'], ['supportbundles'], ['get', 'create']),
  rule(['system.antrea.io'], ['supportbundles/download'], ['get']),
  {
    nonResourceURLs: [
      '/agentinfo',
      '/addressgroups',
      '/appliedtogroups',
      '/featuregates',
      '/fqdncache',
      '/loglevel',
      '/networkpolicies',
      '/ovsflows',
      '/ovstracing',
      '/podinterfaces',
    ],
    verbs: ['get'],
  },
];

/**
 * @typedef {object} Renderer
 * @property {(path: string) => string} scalar  a value inside text or a plain field
 * @property {(path: string) => unknown} block  an object field (resources)
 * @property {(helm: string, rendered: string) => string} text  literal text per mode
 */

/**
 * One conf line whose value is JSON (valid YAML): a Helm `toJson` in the chart, the default in the
 * plain manifest.
 * @param {Renderer} r @param {object} values the defaults of the chart @param {string} path
 * @param {string} prefix the text before the value (indentation and key)
 */
function jsonLine(r, values, path, prefix) {
  /** @type {any} */
  let v = values;
  for (const k of path.split('.')) v = v[k];
  return r.text(`${prefix}{{ toJson .Values.${path} }}`, `${prefix}${JSON.stringify(v)}`);
}

/** @param {Renderer} r */
function agentConf(r) {
  return [
    '# antrea-agent.conf (keys as in Antrea).',
    r.text(
      'featureGates:\n{{- range $k, $v := .Values.featureGates }}\n  {{ $k }}: {{ $v }}\n{{- end }}',
      `featureGates:\n${Object.entries(DEFAULT_VALUES.featureGates)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}`,
    ),
    'ovsBridge: br-int',
    'ovsDatapathType: system',
    'hostGateway: antrea-gw0',
    `trafficEncapMode: ${r.scalar('trafficEncapMode')}`,
    `tunnelType: ${r.scalar('tunnelType')}`,
    `noSNAT: ${r.scalar('noSNAT')}`,
    r.text(
      'kubeAPIServerOverride: {{ toJson .Values.kubeAPIServerOverride }}',
      `kubeAPIServerOverride: ${JSON.stringify(DEFAULT_VALUES.kubeAPIServerOverride)}`,
    ),
    r.text(
      'serviceCIDR: {{ toJson .Values.serviceCIDR }}',
      `serviceCIDR: ${JSON.stringify(DEFAULT_VALUES.serviceCIDR)}`,
    ),
    'antreaProxy:',
    `  enable: ${r.scalar('antreaProxy.enable')}`,
    `  proxyAll: ${r.scalar('antreaProxy.proxyAll')}`,
    `  proxyLoadBalancerIPs: ${r.scalar('antreaProxy.proxyLoadBalancerIPs')}`,
    r.text(
      '  nodePortAddresses: {{ toJson .Values.antreaProxy.nodePortAddresses }}',
      `  nodePortAddresses: ${JSON.stringify(DEFAULT_VALUES.antreaProxy.nodePortAddresses)}`,
    ),
    r.text(
      '  skipServices: {{ toJson .Values.antreaProxy.skipServices }}',
      `  skipServices: ${JSON.stringify(DEFAULT_VALUES.antreaProxy.skipServices)}`,
    ),
    r.text(
      '  serviceProxyName: {{ toJson .Values.antreaProxy.serviceProxyName }}',
      `  serviceProxyName: ${JSON.stringify(DEFAULT_VALUES.antreaProxy.serviceProxyName)}`,
    ),
    'nodePortLocal:',
    `  enable: ${r.scalar('nodePortLocal.enable')}`,
    r.text(
      '  portRange: {{ toJson .Values.nodePortLocal.portRange }}',
      `  portRange: ${JSON.stringify(DEFAULT_VALUES.nodePortLocal.portRange)}`,
    ),
    'egress:',
    r.text(
      '  exceptCIDRs: {{ toJson .Values.egress.exceptCIDRs }}',
      `  exceptCIDRs: ${JSON.stringify(DEFAULT_VALUES.egress.exceptCIDRs)}`,
    ),
    `  maxEgressIPsPerNode: ${r.scalar('egress.maxEgressIPsPerNode')}`,
    '# flowExporter: needs featureGates.FlowExporter too. flowCollectorAddr is <HOST>:[<PORT>][:<PROTO>],',
    '# HOST may be <namespace>/<Service>; PROTO grpc (mutual TLS with the certificates the Flow Aggregator',
    '# publishes in its namespace), or IPFIX over tls (the same certificates), tcp or udp.',
    'flowExporter:',
    `  enable: ${r.scalar('flowExporter.enable')}`,
    ...[
      'flowCollectorAddr',
      'flowPollInterval',
      'activeFlowExportTimeout',
      'idleFlowExportTimeout',
      'protocolFilter',
    ].map((k) => jsonLine(r, DEFAULT_VALUES, `flowExporter.${k}`, `  ${k}: `)),
    '# disableTXChecksumOffload: TX checksum offload off on Pod interfaces (default: on for netdev).',
    'apiPort: 10350',
    '',
  ].join('\n');
}

/** @param {Renderer} r */
function controllerConf(r) {
  return [
    '# antrea-controller.conf (keys as in Antrea).',
    r.text(
      'featureGates:\n{{- range $k, $v := .Values.featureGates }}\n  {{ $k }}: {{ $v }}\n{{- end }}',
      `featureGates:\n${Object.entries(DEFAULT_VALUES.featureGates)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}`,
    ),
    'apiPort: 10349',
    'selfSignedCert: true',
    'nodeIPAM:',
    `  enableNodeIPAM: ${r.scalar('nodeIPAM.enable')}`,
    r.text(
      '  clusterCIDRs: {{ toJson .Values.nodeIPAM.clusterCIDRs }}',
      `  clusterCIDRs: ${JSON.stringify(DEFAULT_VALUES.nodeIPAM.clusterCIDRs)}`,
    ),
    '',
  ].join('\n');
}

const CNI_CONFLIST = `${JSON.stringify(
  {
    cniVersion: '1.0.0',
    name: 'antrea',
    plugins: [
      { type: 'antrea', ipam: { type: 'host-local' } },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'bandwidth', capabilities: { bandwidth: true } },
    ],
  },
  null,
  2,
)}\n`;

/** @param {string} name @param {string} [namespace] @param {Record<string, string>} [labels] */
const sa = (name, namespace = NS, labels = { app: 'antrea' }) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, labels },
});
/** @param {string} name @param {unknown[]} rules */
const clusterRole = (name, rules) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels: { app: 'antrea' } },
  rules,
});
/** @param {string} name @param {string} kind @param {string} role @param {string} subject @param {string} [namespace] */
const binding = (name, kind, role, subject, namespace) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
  metadata: { name, labels: { app: 'antrea' }, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
  subjects: [{ kind: 'ServiceAccount', name: subject, namespace: NS }],
});

/** Service accounts and RBAC: also what the lab applies. */
export function rbacObjects() {
  return [
    sa('antrea-agent'),
    sa('antrea-controller'),
    sa('antctl'),
    clusterRole('antrea-agent', AGENT_RULES),
    clusterRole('antrea-controller', CONTROLLER_RULES),
    clusterRole('antctl', ANTCTL_RULES),
    binding('antrea-agent', 'ClusterRole', 'antrea-agent', 'antrea-agent'),
    binding('antrea-controller', 'ClusterRole', 'antrea-controller', 'antrea-controller'),
    binding('antctl', 'ClusterRole', 'antctl', 'antctl'),
    // Delegated authentication and authorization, as every extension API server needs.
    binding('antrea-controller-auth-delegator', 'ClusterRole', 'system:auth-delegator', 'antrea-controller'),
    binding('antrea-agent-auth-delegator', 'ClusterRole', 'system:auth-delegator', 'antrea-agent'),
    binding(
      'antrea-controller-authentication-reader',
      'Role',
      'extension-apiserver-authentication-reader',
      'antrea-controller',
      'kube-system',
    ),
  ];
}

/** @param {Renderer} r */
function image(r) {
  return r.text(
    '"{{ .Values.image.repository }}:{{ .Values.image.tag }}"',
    `${DEFAULT_VALUES.image.repository}:${DEFAULT_VALUES.image.tag}`,
  );
}

const fieldEnv = [
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
];

/** @param {string} name @param {string} path @param {string} [type] */
const hostPath = (name, path, type) => ({ name, hostPath: { path, ...(type ? { type } : {}) } });

/** @param {Renderer} r */
function controllerDeployment(r) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'antrea-controller',
      namespace: NS,
      labels: { app: 'antrea', component: 'antrea-controller' },
    },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: 'antrea', component: 'antrea-controller' } },
      template: {
        metadata: { labels: { app: 'antrea', component: 'antrea-controller' } },
        spec: {
          // Agents reach the controller before any Pod network exists: host network, as in Antrea.
          hostNetwork: true,
          priorityClassName: 'system-cluster-critical',
          serviceAccountName: 'antrea-controller',
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [
            { key: 'CriticalAddonsOnly', operator: 'Exists' },
            { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
          ],
          containers: [
            {
              name: 'antrea-controller',
              image: image(r),
              imagePullPolicy: r.scalar('image.pullPolicy'),
              command: ['antrea-controller'],
              args: [
                '--config=/etc/antrea/antrea-controller.conf',
                `--log-level=${r.scalar('logLevel')}`,
                `--dashboard-port=${r.scalar('dashboard.port')}`,
              ],
              env: fieldEnv,
              ports: [{ name: 'api', containerPort: 10349, protocol: 'TCP' }],
              readinessProbe: {
                httpGet: { host: '127.0.0.1', path: '/readyz', port: 'api', scheme: 'HTTPS' },
                periodSeconds: 10,
              },
              livenessProbe: {
                httpGet: { host: '127.0.0.1', path: '/livez', port: 'api', scheme: 'HTTPS' },
                periodSeconds: 10,
                failureThreshold: 5,
              },
              resources: r.block('controller.resources'),
              volumeMounts: [
                {
                  name: 'antrea-config',
                  mountPath: '/etc/antrea/antrea-controller.conf',
                  subPath: 'antrea-controller.conf',
                  readOnly: true,
                },
              ],
            },
          ],
          volumes: [{ name: 'antrea-config', configMap: { name: 'antrea-config' } }],
        },
      },
    },
  };
}

/** @param {Renderer} r */
function agentDaemonSet(r) {
  const run = { name: 'host-var-run-antrea', mountPath: '/var/run/antrea' };
  const ovsRun = { name: 'host-var-run-openvswitch', mountPath: '/var/run/openvswitch' };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'antrea-agent', namespace: NS, labels: { app: 'antrea', component: 'antrea-agent' } },
    spec: {
      selector: { matchLabels: { app: 'antrea', component: 'antrea-agent' } },
      updateStrategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels: { app: 'antrea', component: 'antrea-agent' } },
        spec: {
          hostNetwork: true,
          priorityClassName: 'system-node-critical',
          serviceAccountName: 'antrea-agent',
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ operator: 'Exists' }],
          initContainers: [
            {
              // Puts the conflist in the kubelet's CNI conf dir and the plugin (a launcher with its
              // own Node.js runtime) in the CNI bin dir, then loads the openvswitch module.
              name: 'install-cni',
              image: image(r),
              imagePullPolicy: r.scalar('image.pullPolicy'),
              command: ['install-cni'],
              securityContext: { privileged: true },
              volumeMounts: [
                {
                  name: 'antrea-config',
                  mountPath: '/etc/antrea/antrea-cni.conflist',
                  subPath: 'antrea-cni.conflist',
                  readOnly: true,
                },
                { name: 'host-cni-conf', mountPath: '/host/etc/cni/net.d' },
                { name: 'host-cni-bin', mountPath: '/host/opt/cni/bin' },
                { name: 'host-lib-modules', mountPath: '/lib/modules', readOnly: true },
                run,
              ],
            },
          ],
          containers: [
            {
              name: 'antrea-agent',
              image: image(r),
              imagePullPolicy: r.scalar('image.pullPolicy'),
              command: ['antrea-agent'],
              args: ['--config=/etc/antrea/antrea-agent.conf', `--log-level=${r.scalar('logLevel')}`],
              env: fieldEnv,
              securityContext: { privileged: true },
              // HTTPS like kubelet probes Antrea's agent; health paths need no credentials.
              readinessProbe: {
                httpGet: { host: '127.0.0.1', path: '/readyz', port: 10350, scheme: 'HTTPS' },
                periodSeconds: 10,
                failureThreshold: 5,
              },
              livenessProbe: {
                httpGet: { host: '127.0.0.1', path: '/livez', port: 10350, scheme: 'HTTPS' },
                periodSeconds: 10,
                failureThreshold: 5,
              },
              resources: r.block('agent.resources'),
              volumeMounts: [
                {
                  name: 'antrea-config',
                  mountPath: '/etc/antrea/antrea-agent.conf',
                  subPath: 'antrea-agent.conf',
                  readOnly: true,
                },
                run,
                ovsRun,
                { name: 'host-cni-bin', mountPath: '/opt/cni/bin', readOnly: true },
                { name: 'host-var-lib-cni', mountPath: '/var/lib/cni' },
                { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
                { name: 'host-proc', mountPath: '/host/proc', readOnly: true },
                {
                  name: 'host-var-run-netns',
                  mountPath: '/var/run/netns',
                  mountPropagation: 'HostToContainer',
                },
              ],
            },
            {
              name: 'antrea-ovs',
              image: image(r),
              imagePullPolicy: r.scalar('image.pullPolicy'),
              command: ['start-ovs'],
              securityContext: { privileged: true },
              resources: r.block('ovs.resources'),
              livenessProbe: {
                exec: { command: ['ovs-appctl', 'version'] },
                periodSeconds: 10,
                failureThreshold: 5,
              },
              volumeMounts: [
                ovsRun,
                { name: 'host-var-lib-openvswitch', mountPath: '/var/lib/openvswitch' },
                { name: 'host-var-log-openvswitch', mountPath: '/var/log/openvswitch' },
                { name: 'host-lib-modules', mountPath: '/lib/modules', readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'antrea-config', configMap: { name: 'antrea-config' } },
            hostPath('host-cni-conf', r.scalar('cni.confDir')),
            hostPath('host-cni-bin', r.scalar('cni.binDir')),
            hostPath('host-var-run-antrea', '/var/run/antrea', 'DirectoryOrCreate'),
            hostPath('host-var-run-openvswitch', '/var/run/openvswitch', 'DirectoryOrCreate'),
            hostPath('host-var-lib-openvswitch', '/var/lib/openvswitch', 'DirectoryOrCreate'),
            hostPath('host-var-log-openvswitch', '/var/log/openvswitch', 'DirectoryOrCreate'),
            hostPath('host-var-lib-cni', '/var/lib/cni', 'DirectoryOrCreate'),
            hostPath('host-var-run-netns', '/var/run/netns', 'DirectoryOrCreate'),
            hostPath('host-lib-modules', '/lib/modules'),
            hostPath('host-proc', '/proc'),
            hostPath('xtables-lock', '/run/xtables.lock', 'FileOrCreate'),
          ],
        },
      },
    },
  };
}

/** @param {string} version @param {string} group */
const apiService = (version, group) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: `${version}.${group}`, labels: { app: 'antrea' } },
  spec: {
    group,
    version,
    service: { name: 'antrea', namespace: NS, port: 443 },
    // The controller publishes its self-signed CA here (and in the antrea-ca ConfigMap).
    insecureSkipTLSVerify: false,
    groupPriorityMinimum: 100,
    versionPriority: 100,
  },
});

/**
 * One admission webhook of antrea-controller (Antrea's templates/webhooks/): called through Service
 * antrea, trusted by the CA bundle the controller injects into configurations labelled
 * served-by: antrea-controller.
 * @param {string} name @param {string} path @param {string[]} operations @param {string} resource
 * @param {'Cluster' | 'Namespaced'} scope
 */
const webhook = (name, path, operations, resource, scope) => ({
  name,
  clientConfig: { service: { name: 'antrea', namespace: NS, path } },
  rules: [
    { operations, apiGroups: ['crd.antrea.io'], apiVersions: ['v1beta1'], resources: [resource], scope },
  ],
  admissionReviewVersions: ['v1', 'v1beta1'],
  sideEffects: 'None',
  timeoutSeconds: 5,
});

const WEBHOOK_LABELS = { app: 'antrea', 'served-by': 'antrea-controller' };

/** Antrea's crdvalidator.antrea.io and crdmutator.antrea.io, for the kinds Antrea-TS validates. */
export function webhookConfigurations() {
  const cu = ['CREATE', 'UPDATE'];
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'crdvalidator.antrea.io', labels: WEBHOOK_LABELS },
      webhooks: [
        webhook('tiervalidator.antrea.io', '/validate/tier', [...cu, 'DELETE'], 'tiers', 'Cluster'),
        webhook('acnpvalidator.antrea.io', '/validate/acnp', cu, 'clusternetworkpolicies', 'Cluster'),
        webhook('annpvalidator.antrea.io', '/validate/annp', cu, 'networkpolicies', 'Namespaced'),
        webhook('clustergroupvalidator.antrea.io', '/validate/clustergroup', cu, 'clustergroups', 'Cluster'),
        webhook('groupvalidator.antrea.io', '/validate/group', cu, 'groups', 'Namespaced'),
        webhook('egressvalidator.antrea.io', '/validate/egress', cu, 'egresses', 'Cluster'),
        webhook(
          'externalippoolvalidator.antrea.io',
          '/validate/externalippool',
          cu,
          'externalippools',
          'Cluster',
        ),
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'crdmutator.antrea.io', labels: WEBHOOK_LABELS },
      webhooks: [
        webhook('acnpmutator.antrea.io', '/mutate/acnp', cu, 'clusternetworkpolicies', 'Cluster'),
        webhook('annpmutator.antrea.io', '/mutate/annp', cu, 'networkpolicies', 'Namespaced'),
      ],
    },
  ];
}

/**
 * Every object of a deployment, in apply order (CRDs come from build/crds separately).
 * @param {Renderer} r
 */
export function objects(r) {
  return [
    ...rbacObjects(),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'antrea-config', namespace: NS, labels: { app: 'antrea' } },
      data: {
        'antrea-agent.conf': agentConf(r),
        'antrea-controller.conf': controllerConf(r),
        'antrea-cni.conflist': CNI_CONFLIST,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'antrea', namespace: NS, labels: { app: 'antrea' } },
      spec: {
        selector: { app: 'antrea', component: 'antrea-controller' },
        ports: [{ port: 443, protocol: 'TCP', targetPort: 'api' }],
      },
    },
    apiService('v1beta2', 'controlplane.antrea.io'),
    apiService('v1beta1', 'system.antrea.io'),
    apiService('v1alpha1', 'stats.antrea.io'),
    ...webhookConfigurations(),
    controllerDeployment(r),
    agentDaemonSet(r),
  ];
}

/**
 * The Flow Aggregator's chart values (build/yamls/flow-aggregator.yml, build/charts/flow-aggregator):
 * flow-aggregator.conf's keys as Antrea names them, with the defaults of
 * packages/flow-aggregator/src/config.ts. Not here: Antrea's tls transport, ClickHouse, S3 and Proxy
 * mode, which this implementation refuses.
 */
export const FLOW_AGGREGATOR_VALUES = {
  image: DEFAULT_VALUES.image,
  activeFlowRecordTimeout: '60s',
  inactiveFlowRecordTimeout: '90s',
  // The IPFIX collector: tls, tcp or udp (or none). tcp by default here (Antrea: tls), so that the
  // aggregator also serves IPFIX without Kubernetes. The gRPC collector (the agents' default, port
  // 14739, mutual TLS) always runs, as in Antrea.
  aggregatorTransportProtocol: 'tcp',
  // One more DNS name or IP in the gRPC server certificate (besides flow-aggregator.<ns>.svc).
  flowAggregatorAddress: '',
  recordContents: { podLabels: false },
  apiServer: { apiPort: 10348 },
  flowCollector: {
    enable: false,
    address: '',
    recordFormat: 'IPFIX',
    templateRefreshTimeout: '600s',
    maxIPFIXMsgSize: 0,
  },
  flowLogger: {
    enable: false,
    path: '/tmp/antrea-flows.log',
    maxSize: 100,
    maxBackups: 3,
    compress: true,
    prettyPrint: true,
    filters: [],
  },
  logLevel: 'info',
  resources: { requests: { cpu: '200m', memory: '256Mi' } },
};

const FA_NS = 'flow-aggregator';
const FA_LABELS = { app: 'flow-aggregator' };

/** @param {Renderer} r */
function flowAggregatorConf(r) {
  const v = FLOW_AGGREGATOR_VALUES;
  const json = (/** @type {string} */ path, /** @type {string} */ prefix) => jsonLine(r, v, path, prefix);
  return [
    '# flow-aggregator.conf (keys as in Antrea). Aggregate mode only.',
    'mode: Aggregate',
    json('activeFlowRecordTimeout', 'activeFlowRecordTimeout: '),
    json('inactiveFlowRecordTimeout', 'inactiveFlowRecordTimeout: '),
    '# The IPFIX collector on 4739: tls (mutual), tcp, udp or none. The gRPC collector (14739, mutual',
    "# TLS, the agents' default) always runs; its CA and client certificate go to the Secrets",
    '# flow-aggregator-ca-tls and flow-aggregator-client-tls and the CA to the ConfigMap flow-aggregator-ca.',
    json('aggregatorTransportProtocol', 'aggregatorTransportProtocol: '),
    '# One more DNS name or IP for the gRPC server certificate.',
    json('flowAggregatorAddress', 'flowAggregatorAddress: '),
    'recordContents:',
    `  podLabels: ${r.scalar('recordContents.podLabels')}`,
    '# /livez, /readyz and /stats, plain HTTP.',
    'apiServer:',
    `  apiPort: ${r.scalar('apiServer.apiPort')}`,
    '# An IPFIX collector: address <IP>:<port>[:tcp|udp]; recordFormat IPFIX only.',
    'flowCollector:',
    `  enable: ${r.scalar('flowCollector.enable')}`,
    json('flowCollector.address', '  address: '),
    json('flowCollector.recordFormat', '  recordFormat: '),
    json('flowCollector.templateRefreshTimeout', '  templateRefreshTimeout: '),
    `  maxIPFIXMsgSize: ${r.scalar('flowCollector.maxIPFIXMsgSize')}`,
    "# Antrea's flow log (CSV lines), rotated past maxSize MB.",
    'flowLogger:',
    `  enable: ${r.scalar('flowLogger.enable')}`,
    json('flowLogger.path', '  path: '),
    `  maxSize: ${r.scalar('flowLogger.maxSize')}`,
    `  maxBackups: ${r.scalar('flowLogger.maxBackups')}`,
    `  compress: ${r.scalar('flowLogger.compress')}`,
    `  prettyPrint: ${r.scalar('flowLogger.prettyPrint')}`,
    json('flowLogger.filters', '  filters: '),
    '',
  ].join('\n');
}

/** @param {Renderer} r */
function flowAggregatorDeployment(r) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'flow-aggregator', namespace: FA_NS, labels: FA_LABELS },
    spec: {
      // One replica: both Nodes' halves of a connection must reach the same process to be correlated.
      replicas: 1,
      selector: { matchLabels: FA_LABELS },
      template: {
        metadata: { labels: FA_LABELS },
        spec: {
          serviceAccountName: 'flow-aggregator',
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [
            {
              name: 'flow-aggregator',
              image: image(r),
              imagePullPolicy: r.scalar('image.pullPolicy'),
              command: ['flow-aggregator'],
              args: [
                '--config=/etc/flow-aggregator/flow-aggregator.conf',
                `--log-level=${r.scalar('logLevel')}`,
              ],
              env: fieldEnv.slice(0, 2),
              ports: [
                { name: 'ipfix-tcp', containerPort: 4739, protocol: 'TCP' },
                { name: 'ipfix-udp', containerPort: 4739, protocol: 'UDP' },
                { name: 'grpc', containerPort: 14739, protocol: 'TCP' },
                { name: 'api', containerPort: r.block('apiServer.apiPort'), protocol: 'TCP' },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'api' }, periodSeconds: 10 },
              livenessProbe: {
                httpGet: { path: '/livez', port: 'api' },
                periodSeconds: 10,
                failureThreshold: 5,
              },
              resources: r.block('resources'),
              volumeMounts: [
                { name: 'flow-aggregator-config', mountPath: '/etc/flow-aggregator', readOnly: true },
              ],
            },
          ],
          volumes: [{ name: 'flow-aggregator-config', configMap: { name: 'flow-aggregator-configmap' } }],
        },
      },
    },
  };
}

/** A Role in the Flow Aggregator's namespace. @param {string} name @param {object[]} rules */
const faRole = (name, rules) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name, namespace: FA_NS, labels: FA_LABELS },
  rules,
});

/** Binds the Role `name` to one subject. @param {string} name @param {object} subject */
const faRoleBinding = (name, subject) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: `${name}-binding`, namespace: FA_NS, labels: FA_LABELS },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
  subjects: [subject],
});

/**
 * Every object of the Flow Aggregator's deployment, in apply order. Its ClusterRole is what its Pod
 * informer needs (Pod labels and missing Pod names): Pods, cluster-wide, read only.
 * @param {Renderer} r
 */
export function flowAggregatorObjects(r) {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FA_NS, labels: FA_LABELS } },
    sa('flow-aggregator', FA_NS, FA_LABELS),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'flow-aggregator', labels: FA_LABELS },
      rules: [rule([''], ['pods'], READ)],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'flow-aggregator', labels: FA_LABELS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flow-aggregator' },
      subjects: [{ kind: 'ServiceAccount', name: 'flow-aggregator', namespace: FA_NS }],
    },
    // Its certificates, as Antrea's Role: it creates and keeps the CA and client Secrets and the CA
    // ConfigMap in its own namespace, and nothing else there.
    faRole('flow-aggregator-role', [
      rule([''], ['configmaps', 'secrets'], ['create']),
      {
        ...rule([''], ['configmaps'], ['get', 'list', 'watch', 'update']),
        resourceNames: ['flow-aggregator-ca'],
      },
      {
        ...rule([''], ['secrets'], ['get', 'list', 'watch', 'update']),
        resourceNames: ['flow-aggregator-ca-tls', 'flow-aggregator-client-tls'],
      },
    ]),
    faRoleBinding('flow-aggregator-role', {
      kind: 'ServiceAccount',
      name: 'flow-aggregator',
      namespace: FA_NS,
    }),
    // The agents read the CA and the client certificate (gRPC flow export), those two only.
    faRole('flow-aggregator-exporter-role', [
      { ...rule([''], ['configmaps'], ['get']), resourceNames: ['flow-aggregator-ca'] },
      { ...rule([''], ['secrets'], ['get']), resourceNames: ['flow-aggregator-client-tls'] },
    ]),
    faRoleBinding('flow-aggregator-exporter-role', {
      kind: 'ServiceAccount',
      name: 'antrea-agent',
      namespace: 'kube-system',
    }),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'flow-aggregator-configmap', namespace: FA_NS, labels: FA_LABELS },
      data: { 'flow-aggregator.conf': flowAggregatorConf(r) },
    },
    {
      // The agents' flowExporter.flowCollectorAddr default names it: flow-aggregator/flow-aggregator.
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'flow-aggregator', namespace: FA_NS, labels: FA_LABELS },
      spec: {
        selector: FA_LABELS,
        ports: [
          { name: 'ipfix-udp', port: 4739, protocol: 'UDP', targetPort: 'ipfix-udp' },
          { name: 'ipfix-tcp', port: 4739, protocol: 'TCP', targetPort: 'ipfix-tcp' },
          { name: 'grpc', port: 14739, protocol: 'TCP', targetPort: 'grpc' },
        ],
      },
    },
    flowAggregatorDeployment(r),
  ];
}
