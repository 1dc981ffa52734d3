import { describe, expect, it } from 'vitest';
import { G, startTestSim } from '../test-support.js';
import { type InventoryView, podMatches } from './membership.js';

const pod = (
  id: string,
  ns: string,
  labels: Record<string, string>,
  ip: string,
  services: string[] = [],
) => ({
  resource_type: 'ContainerApplicationInstance',
  external_id: id,
  display_name: id,
  container_project_id: ns,
  container_application_ids: services,
  tags: Object.entries(labels).map(([k, v]) => ({ scope: `dis:k8s:${k}`, tag: v })),
  origin_properties: [{ key: 'ip', value: ip }],
});
const inv: InventoryView = {
  pods: [],
  projects: new Map([
    [
      'ns-f',
      { external_id: 'ns-f', display_name: 'frontend', tags: [{ scope: 'dis:k8s:env', tag: 'prod' }] },
    ],
    ['ns-b', { external_id: 'ns-b', display_name: 'backend', tags: [] }],
  ]),
  services: new Map([['svc-1', { external_id: 'svc-1', display_name: 'web-svc' }]]),
};
const webF = pod('web-f', 'ns-f', { app: 'web' }, '10.0.1.5', ['svc-1']);
const webB = pod('web-b', 'ns-b', { app: 'web' }, '10.0.2.5');
const db = pod('db-1', 'ns-b', { app: 'db', tier: 'data' }, '10.0.2.9,fd00::9');
const cond = (member_type: string, key: string, value: string, operator = 'EQUALS', extra: object = {}) => ({
  resource_type: 'Condition',
  member_type,
  key,
  operator,
  value,
  ...extra,
});
const and = { resource_type: 'ConjunctionOperator', conjunction_operator: 'AND' };
const or = { resource_type: 'ConjunctionOperator', conjunction_operator: 'OR' };
const members = (expr: unknown[]) =>
  [webF, webB, db].filter((p) => podMatches(expr, p, inv)).map((p) => p.external_id);

describe('podMatches', () => {
  it('matches pod tags by scope|tag, |tag and NOTEQUALS', () => {
    expect(members([cond('Pod', 'Tag', 'dis:k8s:app|web')])).toEqual(['web-f', 'web-b']);
    expect(members([cond('Pod', 'Tag', '|data')])).toEqual(['db-1']);
    expect(members([cond('Pod', 'Tag', 'dis:k8s:app|web', 'NOTEQUALS')])).toEqual(['db-1']);
    expect(members([cond('Pod', 'Tag', 'dis:k8s:app|', 'EQUALS')])).toEqual(['web-f', 'web-b', 'db-1']);
  });

  it('matches namespaces by name or tag, services by name, names by operator', () => {
    expect(members([cond('Namespace', 'Name', 'backend')])).toEqual(['web-b', 'db-1']);
    expect(members([cond('Namespace', 'Tag', 'dis:k8s:env|prod')])).toEqual(['web-f']);
    expect(members([cond('Service', 'Name', 'web-svc')])).toEqual(['web-f']);
    expect(members([cond('Pod', 'Name', 'web-', 'STARTSWITH')])).toEqual(['web-f', 'web-b']);
    expect(members([cond('Pod', 'Name', 'db-1,web-b', 'IN')])).toEqual(['web-b', 'db-1']);
  });

  it('combines criteria: nested AND, top-level AND/OR, IP blocks', () => {
    const nested = {
      resource_type: 'NestedExpression',
      expressions: [cond('Namespace', 'Name', 'backend'), and, cond('Pod', 'Tag', 'dis:k8s:app|web')],
    };
    expect(members([nested])).toEqual(['web-b']);
    expect(
      members([cond('Pod', 'Tag', 'dis:k8s:app|db'), or, cond('Namespace', 'Name', 'frontend')]),
    ).toEqual(['web-f', 'db-1']);
    expect(
      members([cond('Pod', 'Tag', 'dis:k8s:app|web'), and, cond('Pod', 'Name', 'b', 'ENDSWITH')]),
    ).toEqual(['web-b']);
    expect(members([{ resource_type: 'IPAddressExpression', ip_addresses: ['10.0.2.0/24'] }])).toEqual([
      'web-b',
      'db-1',
    ]);
    expect(members([{ resource_type: 'IPAddressExpression', ip_addresses: ['fd00::1-fd00::ff'] }])).toEqual([
      'db-1',
    ]);
    expect(members([])).toEqual([]);
  });
});

describe('GET .../groups/{g}/members/pods', () => {
  it('lists inventory pods the group selects, per cluster', async () => {
    const sim = await startTestSim();
    for (const c of ['c1', 'c2']) {
      await sim.call('POST', '/api/v1/fabric/container-clusters', {
        resource_type: 'ContainerCluster',
        external_id: c,
      });
      await sim.call('POST', `/api/v1/inventory/container/${c}?action=updates`, {
        container_inventory_objects: [
          {
            object_update_type: 'CREATE',
            container_object: {
              resource_type: 'ContainerProject',
              external_id: `${c}-ns`,
              display_name: 'frontend',
            },
          },
          {
            object_update_type: 'CREATE',
            container_object: { ...pod(`${c}-web`, `${c}-ns`, { app: 'web' }, '10.0.0.1') },
          },
          {
            object_update_type: 'CREATE',
            container_object: { ...pod(`${c}-db`, `${c}-ns`, { app: 'db' }, '10.0.0.2') },
          },
        ],
      });
    }
    await sim.call('PATCH', `${G}/web`, {
      group_type: ['ANTREA'],
      expression: [cond('Pod', 'Tag', 'dis:k8s:app|web')],
    });
    const all = (await sim.call('GET', `${G}/web/members/pods`)).body;
    expect(all.results.map((p: { external_id: string }) => p.external_id)).toEqual(['c1-web', 'c2-web']);
    expect(all.results[0].ip_addresses).toEqual(['10.0.0.1']);
    const one = (await sim.call('GET', `${G}/web/members/pods?cluster_id=c2`)).body;
    expect(one.results.map((p: { external_id: string }) => p.external_id)).toEqual(['c2-web']);
    expect((await sim.call('GET', `${G}/nope/members/pods`)).status).toBe(404);
    await sim.app.close();
  });
});
