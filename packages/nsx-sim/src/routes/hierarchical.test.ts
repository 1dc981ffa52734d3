import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { G, P, SP, startTestSim, type TestSim } from '../test-support.js';

const group = (id: string, value: string) => ({
  resource_type: 'ChildGroup',
  Group: {
    id,
    resource_type: 'Group',
    group_type: ['ANTREA'],
    expression: [{ resource_type: 'Condition', member_type: 'Pod', key: 'Tag', operator: 'EQUALS', value }],
  },
});

describe('hierarchical API', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.app.close();
  });

  it('PATCH /infra creates a domain, groups, a policy with rules and a service in one call', async () => {
    const res = await sim.call('PATCH', `${P}/infra`, {
      resource_type: 'Infra',
      children: [
        {
          resource_type: 'ChildService',
          Service: {
            id: 'web-8080',
            service_entries: [
              {
                id: 'e',
                resource_type: 'L4PortSetServiceEntry',
                l4_protocol: 'TCP',
                destination_ports: ['8080'],
              },
            ],
          },
        },
        {
          resource_type: 'ChildDomain',
          Domain: {
            id: 'tenant',
            resource_type: 'Domain',
            children: [
              group('web', 'dis:k8s:app|web'),
              {
                resource_type: 'ChildSecurityPolicy',
                SecurityPolicy: {
                  id: 'p',
                  category: 'Application',
                  children: [
                    {
                      resource_type: 'ChildRule',
                      Rule: {
                        id: 'r',
                        source_groups: ['/infra/domains/tenant/groups/web'],
                        services: ['/infra/services/web-8080'],
                      },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    const policy = (await sim.call('GET', `${P}/infra/domains/tenant/security-policies/p`)).body;
    expect(policy.rules).toEqual([
      expect.objectContaining({ id: 'r', source_groups: ['/infra/domains/tenant/groups/web'] }),
    ]);
    const full = (await sim.call('GET', `${P}/infra`)).body;
    const tenantOf = (t: {
      children: { Domain?: { id: string; children: { resource_type: string }[] } }[];
    }) => t.children.find((c) => c.Domain?.id === 'tenant')?.Domain?.children.map((c) => c.resource_type);
    expect(tenantOf(full)).toEqual(['ChildGroup', 'ChildSecurityPolicy']);
    expect(full.children.some((c: { resource_type: string }) => c.resource_type === 'ChildService')).toBe(
      true,
    );
    const filtered = (await sim.call('GET', `${P}/infra?filter=Type-Domain|Group`)).body;
    expect(tenantOf(filtered)).toEqual(['ChildGroup']);
    expect(filtered.children.some((c: { resource_type: string }) => c.resource_type === 'ChildService')).toBe(
      false,
    );
  });

  it('is all or nothing: one invalid child leaves no trace', async () => {
    const generation = sim.store.generation;
    const res = await sim.call('PATCH', `${P}/infra`, {
      children: [
        {
          resource_type: 'ChildDomain',
          Domain: { id: 'default', children: [group('ok', 'a|b'), group('bad', 'a|b|c')] },
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error_message).toContain('scope|tag');
    expect((await sim.call('GET', `${G}/ok`)).status).toBe(404);
    expect(sim.store.generation).toBe(generation);
    const wrongParent = await sim.call('PATCH', `${P}/infra`, { children: [group('x', 'a|b')] });
    expect(wrongParent.status).toBe(400);
    expect(wrongParent.body.error_message).toContain('cannot be a child of Infra');
  });

  it('JUMP_TO_APPLICATION rules are checked against the policy the same PATCH writes', async () => {
    const env = (extra: object) => ({
      resource_type: 'ChildDomain',
      Domain: {
        id: 'default',
        children: [{ resource_type: 'ChildSecurityPolicy', SecurityPolicy: { id: 'env', ...extra } }],
      },
    });
    const jump = { id: 'j', action: 'JUMP_TO_APPLICATION' };
    const childRule = (rule: object) => ({ resource_type: 'ChildRule', Rule: rule });
    // Rules embedded in the SecurityPolicy and nested as ChildRule.
    const embedded = await sim.call('PATCH', `${P}/infra`, {
      children: [env({ category: 'Environment', rules: [jump] })],
    });
    expect(embedded.status, embedded.raw).toBe(200);
    const nested = await sim.call('PATCH', `${P}/infra`, {
      children: [env({ category: 'Environment', children: [childRule({ ...jump, id: 'k' })] })],
    });
    expect(nested.status, nested.raw).toBe(200);
    expect((await sim.call('GET', `${SP}/env`)).body.rules.map((r: { id: string }) => r.id)).toEqual([
      'j',
      'k',
    ]);
    // Leaving Environment: fine when the same PATCH changes the rules, refused (and nothing kept) otherwise.
    const leaving = await sim.call('PATCH', `${P}/infra`, {
      children: [env({ category: 'Application', children: [childRule({ id: 'j', action: 'ALLOW' })] })],
    });
    expect(leaving.status).toBe(400);
    expect(leaving.body.error_message).toContain('rule k: action JUMP_TO_APPLICATION');
    expect((await sim.call('GET', `${SP}/env`)).body.category).toBe('Environment');
    const left = await sim.call('PATCH', `${P}/infra`, {
      children: [
        env({
          category: 'Application',
          children: [
            childRule({ id: 'j', action: 'ALLOW' }),
            { resource_type: 'ChildRule', Rule: { id: 'k' }, marked_for_delete: true },
          ],
        }),
      ],
    });
    expect(left.status, left.raw).toBe(200);
    expect((await sim.call('GET', `${SP}/env`)).body).toMatchObject({
      category: 'Application',
      rules: [expect.objectContaining({ id: 'j', action: 'ALLOW' })],
    });
    const embeddedInApp = await sim.call('PATCH', `${P}/infra`, {
      children: [env({ rules: [jump] })],
    });
    expect(embeddedInApp.status).toBe(400);
  });

  it('marked_for_delete deletes, in an order that satisfies references', async () => {
    await sim.call('PATCH', `${G}/web`, group('web', 'a|b').Group);
    await sim.call('PATCH', `${SP}/p`, {
      rules: [{ id: 'r', source_groups: ['/infra/domains/default/groups/web'] }],
    });
    const res = await sim.call('PATCH', `${P}/infra`, {
      children: [
        {
          resource_type: 'ChildDomain',
          Domain: {
            id: 'default',
            children: [
              { ...group('web', 'a|b'), marked_for_delete: true },
              { resource_type: 'ChildSecurityPolicy', SecurityPolicy: { id: 'p' }, marked_for_delete: true },
            ],
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect((await sim.call('GET', `${G}/web`)).status).toBe(404);
    expect((await sim.call('GET', `${SP}/p`)).status).toBe(404);
  });
});
