import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { ANTREA_NAMESPACE_NAME, CONTROLLER_SERVICE } from './names.js';

/**
 * The Kubernetes objects the lab installs besides the CRDs: the deployment's service accounts and
 * RBAC, and the Service + Endpoints and EndpointSlice in front of the controller that the
 * APIServices name: the controller runs on the host, so the endpoints point at the underlay host
 * address.
 */
type Obj = Record<string, unknown>;

const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const WEBHOOK_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

/**
 * Every object of the deployment manifest (build/yamls/antrea.yml, generated from
 * build/manifests/source.mjs). Parsing it takes a few hundred ms (the CRDs are most of it): parse
 * once and pick with `rbacObjects` and `webhookObjects`.
 */
export function manifestObjects(manifest: string): Obj[] {
  return parseAllDocuments(readFileSync(manifest, 'utf8'))
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/**
 * The service accounts and RBAC of the deployment manifest, so the lab runs the agent and
 * controller with exactly the permissions a cluster gives them: a missing rule shows up in the lab
 * first.
 */
export function rbacObjects(objects: readonly Obj[]): Obj[] {
  return objects.filter((o) => RBAC_KINDS.has(String(o['kind'])));
}

/**
 * The admission webhook configurations of the deployment manifest (crdvalidator/crdmutator.antrea.io):
 * antrea-controller injects its CA bundle into them, as it publishes it into the APIServices.
 */
export function webhookObjects(objects: readonly Obj[]): Obj[] {
  return objects.filter((o) => WEBHOOK_KINDS.has(String(o['kind'])));
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
