import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../k8s/types.js';
import { buildInventory, diffInventory, type InventorySnapshot, labelsToTags } from './inventory.js';

const ns = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, uid: `ns-${name}`, labels },
});
const pod = (
  name: string,
  namespace: string,
  labels: Record<string, string>,
  extra: Partial<KubeObject> = {},
): KubeObject => ({
  metadata: { name, namespace, uid: `pod-${name}`, labels },
  spec: { nodeName: 'n1' },
  status: { phase: 'Running', podIPs: [{ ip: '10.10.0.5' }, { ip: 'fd00::5' }] },
  ...extra,
});
const svc = (name: string, namespace: string, selector: Record<string, string>): KubeObject => ({
  metadata: { name, namespace, uid: `svc-${name}` },
  spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], selector },
});

function snap(extra: Partial<InventorySnapshot> = {}): InventorySnapshot {
  return {
    Namespace: [ns('shop', { team: 'a' })],
    Pod: [
      pod('web-1', 'shop', { app: 'web' }),
      pod('db-1', 'shop', { app: 'db' }, { status: { phase: 'Pending' } }),
    ],
    Service: [svc('web', 'shop', { app: 'web' }), svc('headless', 'shop', {})],
    Node: [
      {
        metadata: { name: 'n1', uid: 'node-n1', labels: { 'kubernetes.io/os': 'linux' } },
        status: {
          addresses: [
            { type: 'InternalIP', address: '192.168.0.2' },
            { type: 'Hostname', address: 'n1' },
          ],
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      },
    ],
    NetworkPolicy: [
      { metadata: { name: 'deny', namespace: 'shop', uid: 'np-deny' }, spec: { podSelector: {} } },
    ],
    Ingress: [
      {
        metadata: { name: 'ing', namespace: 'shop', uid: 'ing-1' },
        spec: {
          rules: [
            {
              http: {
                paths: [
                  { backend: { service: { name: 'web' } } },
                  { backend: { service: { name: 'gone' } } },
                ],
              },
            },
          ],
        },
      },
    ],
    ...extra,
  };
}

describe('inventory translation', () => {
  it('labels become dis:k8s: tags, sorted, capped at 20, long scopes hashed', () => {
    expect(labelsToTags({ b: '2', a: '1' })).toEqual([
      { scope: 'dis:k8s:a', tag: '1' },
      { scope: 'dis:k8s:b', tag: '2' },
    ]);
    const many = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v']),
    );
    expect(labelsToTags(many)).toHaveLength(20);
    const long = labelsToTags({
      [`example.com/${'x'.repeat(150)}`]: 'v',
      [`example.com/${'x'.repeat(149)}`]: 'v',
    });
    expect(long.every((t) => (t.scope ?? '').length <= 128)).toBe(true);
    expect(new Set(long.map((t) => t.scope)).size).toBe(2);
  });

  it('builds every container object type with cross references by UID', () => {
    const inv = buildInventory(snap(), { uuid: 'c-uuid', name: 'kind-a' });
    expect([...inv.keys()].sort()).toEqual([
      'ContainerApplication/svc-headless',
      'ContainerApplication/svc-web',
      'ContainerApplicationInstance/pod-db-1',
      'ContainerApplicationInstance/pod-web-1',
      'ContainerCluster/c-uuid',
      'ContainerClusterNode/node-n1',
      'ContainerIngressPolicy/ing-1',
      'ContainerNetworkPolicy/np-deny',
      'ContainerProject/ns-shop',
    ]);
    expect(inv.get('ContainerCluster/c-uuid')).toEqual({
      resource_type: 'ContainerCluster',
      external_id: 'c-uuid',
      display_name: 'kind-a',
      cluster_type: 'Kubernetes',
      cni_type: 'Antrea',
    });
    expect(inv.get('ContainerApplicationInstance/pod-web-1')).toEqual({
      resource_type: 'ContainerApplicationInstance',
      external_id: 'pod-web-1',
      display_name: 'web-1',
      tags: [{ scope: 'dis:k8s:app', tag: 'web' }],
      container_cluster_id: 'c-uuid',
      container_project_id: 'ns-shop',
      cluster_node_id: 'node-n1',
      container_application_ids: ['svc-web'],
      status: 'UP',
      origin_properties: [{ key: 'ip', value: '10.10.0.5,fd00::5' }],
    });
    expect(inv.get('ContainerApplicationInstance/pod-db-1')).toMatchObject({
      status: 'UNKNOWN',
      container_application_ids: [],
      origin_properties: [{ key: 'ip', value: '' }],
    });
    expect(inv.get('ContainerApplication/svc-web')).toMatchObject({
      container_project_id: 'ns-shop',
      origin_properties: [
        { key: 'type', value: 'ClusterIP' },
        { key: 'ip', value: '10.96.0.10' },
      ],
    });
    expect(inv.get('ContainerClusterNode/node-n1')).toMatchObject({
      ip_addresses: ['192.168.0.2'],
      cni_agent_status: 'UP',
      tags: [{ scope: 'dis:k8s:kubernetes.io/os', tag: 'linux' }],
    });
    expect(inv.get('ContainerProject/ns-shop')).toMatchObject({
      display_name: 'shop',
      tags: [{ scope: 'dis:k8s:team', tag: 'a' }],
    });
    expect(inv.get('ContainerNetworkPolicy/np-deny')).toMatchObject({
      policy_type: 'NETWORK_POLICY',
      spec: '{"podSelector":{}}',
      container_project_id: 'ns-shop',
    });
    expect(inv.get('ContainerIngressPolicy/ing-1')).toMatchObject({ container_application_ids: ['svc-web'] });
  });

  it('diffs against what NSX has: creates parents first, deletes children first, ignores NSX-only fields', () => {
    const desired = buildInventory(snap(), { uuid: 'c', name: 'kind-a' });
    const reported = new Map<string, Record<string, unknown>>();
    for (const [k, v] of desired) reported.set(k, { ...v, _last_sync_time: 1 });
    expect(diffInventory(desired, reported)).toEqual({ creates: [], updates: [], deletes: [] });

    const changed = buildInventory(
      snap({
        Pod: [pod('web-1', 'shop', { app: 'web', v: '2' }), pod('new', 'shop', {})],
        Namespace: [ns('shop', { team: 'a' }), ns('other')],
      }),
      { uuid: 'c', name: 'kind-a' },
    );
    const d = diffInventory(changed, reported);
    expect(d.creates.map((o) => `${o.resource_type}/${o.external_id}`)).toEqual([
      'ContainerProject/ns-other',
      'ContainerApplicationInstance/pod-new',
    ]);
    expect(d.updates.map((o) => o.external_id)).toEqual(['pod-web-1']);
    expect(d.deletes).toEqual([{ resource_type: 'ContainerApplicationInstance', external_id: 'pod-db-1' }]);

    const empty = buildInventory(
      { Namespace: [], Pod: [], Service: [], Node: [], NetworkPolicy: [], Ingress: [] },
      { uuid: 'c', name: 'kind-a' },
    );
    const order = diffInventory(empty, reported).deletes.map((o) => o.resource_type);
    expect(order.indexOf('ContainerApplicationInstance')).toBeLessThan(order.indexOf('ContainerProject'));
    expect(order).not.toContain('ContainerCluster');
  });
});
