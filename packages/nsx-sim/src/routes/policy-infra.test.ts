import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { G, P, SP, startTestSim, type TestSim } from '../test-support.js';

const webGroup = {
  display_name: 'web',
  group_type: ['ANTREA'],
  expression: [
    {
      resource_type: 'Condition',
      member_type: 'Pod',
      key: 'Tag',
      operator: 'EQUALS',
      value: 'dis:k8s:app|web',
    },
  ],
};

describe('Policy API CRUD', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.app.close();
  });

  it('PATCH creates a group with the common envelope and answers 200 with no body', async () => {
    const res = await sim.call('PATCH', `${G}/web`, webGroup);
    expect(res.status).toBe(200);
    expect(res.raw).toBe('');
    const got = await sim.call('GET', `${G}/web`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: 'web',
      display_name: 'web',
      resource_type: 'Group',
      path: '/infra/domains/default/groups/web',
      parent_path: '/infra/domains/default',
      relative_path: 'web',
      marked_for_delete: false,
      _revision: 0,
      _create_user: 'admin',
      _create_time: sim.clock.now(),
      _last_modified_time: sim.clock.now(),
      _protection: 'NOT_PROTECTED',
      _system_owned: false,
    });
    expect(got.body.unique_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(got.body.expression).toEqual(webGroup.expression);
  });

  it('PATCH merges top-level fields and bumps _revision', async () => {
    await sim.call('PATCH', `${G}/web`, webGroup);
    sim.clock.advance(5000);
    await sim.call('PATCH', `${G}/web`, { description: 'web pods' });
    const got = (await sim.call('GET', `${G}/web`)).body;
    expect(got._revision).toBe(1);
    expect(got.description).toBe('web pods');
    expect(got.expression).toEqual(webGroup.expression);
    expect(got._last_modified_time - got._create_time).toBe(5000);
  });

  it('PUT replaces the object, needs the current _revision, and returns the object', async () => {
    await sim.call('PATCH', `${G}/web`, { ...webGroup, description: 'old' });
    const missing = await sim.call('PUT', `${G}/web`, webGroup);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ httpStatus: 'BAD_REQUEST', error_code: 500127 });

    const stale = await sim.call('PUT', `${G}/web`, { ...webGroup, _revision: 7 });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({
      httpStatus: 'PRECONDITION_FAILED',
      error_code: 604,
      module_name: 'common-services',
      related_errors: [],
    });
    expect(stale.body.error_message).toContain('modified by somebody else');

    const ok = await sim.call('PUT', `${G}/web`, { ...webGroup, _revision: 0 });
    expect(ok.status).toBe(200);
    expect(ok.body._revision).toBe(1);
    expect(ok.body.description).toBeUndefined();
    expect(ok.body.unique_id).toBeDefined();
  });

  it('PATCH with a stale _revision is rejected with 412; PUT creates without one', async () => {
    const created = await sim.call('PUT', `${G}/db`, webGroup);
    expect(created.status).toBe(200);
    expect(created.body._revision).toBe(0);
    const stale = await sim.call('PATCH', `${G}/db`, { description: 'x', _revision: 3 });
    expect(stale.status).toBe(412);
    expect((await sim.call('GET', `${G}/db`)).body.description).toBeUndefined();
  });

  it('DELETE removes the object, is idempotent, and GET then answers 404 with an NSX error body', async () => {
    await sim.call('PATCH', `${G}/web`, webGroup);
    expect((await sim.call('DELETE', `${G}/web`)).status).toBe(200);
    expect((await sim.call('DELETE', `${G}/web`)).status).toBe(200);
    const got = await sim.call('GET', `${G}/web`);
    expect(got.status).toBe(404);
    expect(got.body).toMatchObject({ httpStatus: 'NOT_FOUND', module_name: 'common-services' });
    expect(got.body.error_message).toContain('/infra/domains/default/groups/web');
  });

  it('rejects objects under a missing parent and ids that disagree with the URL', async () => {
    const noDomain = await sim.call('PATCH', `${P}/infra/domains/nope/groups/web`, webGroup);
    expect(noDomain.status).toBe(404);
    const badId = await sim.call('PATCH', `${G}/web`, { ...webGroup, id: 'other' });
    expect(badId.status).toBe(400);
    expect(badId.body.error_message).toContain('does not match');
    const badType = await sim.call('PATCH', `${G}/web`, { ...webGroup, resource_type: 'SecurityPolicy' });
    expect(badType.status).toBe(400);
  });

  it('schema violations get a 400 NSX body naming the field', async () => {
    const res = await sim.call('PATCH', `${SP}/p1`, { category: 'Bogus', sequence_number: -1 });
    expect(res.status).toBe(400);
    expect(res.body.httpStatus).toBe('BAD_REQUEST');
    expect(res.body.error_message).toMatch(/Field level validation errors/);
    expect(res.body.error_message).toContain('/category');
    expect(res.body.related_errors.length).toBeGreaterThanOrEqual(2);
    const badJson = await sim.app.inject({
      method: 'PATCH',
      url: `${SP}/p1`,
      payload: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.statusCode).toBe(400);
    expect(JSON.parse(badJson.body)).toMatchObject({ httpStatus: 'BAD_REQUEST', error_code: 255 });
    expect(JSON.parse(badJson.body).error_message).toContain('Malformed JSON');
    const emptyDelete = await sim.app.inject({
      method: 'DELETE',
      url: `${SP}/p1`,
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(emptyDelete.statusCode).toBe(200);
  });

  it('unknown URLs answer 404 with an NSX body', async () => {
    const res = await sim.call('GET', `${P}/infra/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ httpStatus: 'NOT_FOUND', error_code: 600 });
  });

  it('has the default domain and predefined services', async () => {
    const d = await sim.call('GET', `${P}/infra/domains/default`);
    expect(d.body._system_owned).toBe(true);
    const dns = await sim.call('GET', `${P}/infra/services/DNS-UDP`);
    expect(dns.body.service_entries).toEqual([
      expect.objectContaining({
        resource_type: 'L4PortSetServiceEntry',
        l4_protocol: 'UDP',
        destination_ports: ['53'],
      }),
    ]);
    expect((await sim.call('DELETE', `${P}/infra/domains/default`)).status).toBe(400);
  });
});

describe('security policies and rules', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
    await sim.call('PATCH', `${G}/web`, webGroup);
    await sim.call('PATCH', `${G}/db`, { ...webGroup, display_name: 'db' });
  });
  afterEach(async () => {
    await sim.app.close();
  });

  const policy = (rules: unknown[]) => ({
    display_name: 'web-db',
    category: 'Application',
    sequence_number: 5,
    rules,
  });
  const rule = (id: string, seq: number, extra: object = {}) => ({
    id,
    sequence_number: seq,
    source_groups: ['/infra/domains/default/groups/web'],
    destination_groups: ['/infra/domains/default/groups/db'],
    services: ['/infra/services/HTTP'],
    action: 'ALLOW',
    ...extra,
  });

  it('embeds rules sorted by sequence_number, assigns unique rule_ids >= 1000 and defaults', async () => {
    const res = await sim.call(
      'PATCH',
      `${SP}/p1`,
      policy([rule('b', 20), rule('a', 10, { action: 'DROP' })]),
    );
    expect(res.status).toBe(200);
    const got = (await sim.call('GET', `${SP}/p1`)).body;
    expect(got.rule_count).toBe(2);
    expect(got.rules.map((r: { id: string }) => r.id)).toEqual(['a', 'b']);
    expect(got.rules[0]).toMatchObject({
      resource_type: 'Rule',
      path: '/infra/domains/default/security-policies/p1/rules/a',
      direction: 'IN_OUT',
      ip_protocol: 'IPV4_IPV6',
      logged: false,
      disabled: false,
      scope: ['ANY'],
      action: 'DROP',
    });
    const ids = got.rules.map((r: { rule_id: number }) => r.rule_id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toBeGreaterThanOrEqual(1000);
    const single = await sim.call('GET', `${SP}/p1/rules/b`);
    expect(single.body.rule_id).toBe(got.rules[1].rule_id);
  });

  it('PATCH with rules replaces the whole rule set; without rules keeps it; rule_id is stable', async () => {
    await sim.call('PATCH', `${SP}/p1`, policy([rule('a', 10), rule('b', 20)]));
    const before = (await sim.call('GET', `${SP}/p1/rules/a`)).body.rule_id;
    await sim.call('PATCH', `${SP}/p1`, { description: 'x' });
    expect((await sim.call('GET', `${SP}/p1`)).body.rule_count).toBe(2);
    await sim.call('PATCH', `${SP}/p1`, { rules: [rule('a', 30, { logged: true })] });
    const got = (await sim.call('GET', `${SP}/p1`)).body;
    expect(got.rules).toHaveLength(1);
    expect(got.rules[0]).toMatchObject({ id: 'a', rule_id: before, logged: true, _revision: 1 });
  });

  it('PUT of a policy checks the embedded rules _revision too', async () => {
    await sim.call('PATCH', `${SP}/p1`, policy([rule('a', 10)]));
    const cur = (await sim.call('GET', `${SP}/p1`)).body;
    const noRuleRev = await sim.call('PUT', `${SP}/p1`, {
      ...policy([rule('a', 10)]),
      _revision: cur._revision,
    });
    expect(noRuleRev.status).toBe(400);
    expect(noRuleRev.body.error_code).toBe(500127);
    const staleRule = await sim.call('PUT', `${SP}/p1`, {
      ...policy([{ ...rule('a', 10), _revision: 9 }]),
      _revision: cur._revision,
    });
    expect(staleRule.status).toBe(412);
    const ok = await sim.call('PUT', `${SP}/p1`, {
      ...policy([{ ...rule('a', 10), _revision: 0 }, rule('new', 20)]),
      _revision: cur._revision,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.rules.map((r: { id: string }) => r.id)).toEqual(['a', 'new']);
  });

  it('a failed write changes nothing (rules validated before applying)', async () => {
    await sim.call('PATCH', `${SP}/p1`, policy([rule('a', 10)]));
    const bad = await sim.call('PATCH', `${SP}/p1`, {
      description: 'changed',
      rules: [rule('a', 10), rule('b', 20, { source_groups: ['/infra/domains/default/groups/missing'] })],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe(500012);
    expect(bad.body.error_message).toContain('/infra/domains/default/groups/missing');
    const got = (await sim.call('GET', `${SP}/p1`)).body;
    expect(got.description).toBeUndefined();
    expect(got.rules.map((r: { id: string }) => r.id)).toEqual(['a']);
  });

  it('validates rule endpoints and actions', async () => {
    const anyMixed = await sim.call(
      'PATCH',
      `${SP}/p1`,
      policy([rule('a', 1, { source_groups: ['ANY', '10.0.0.0/8'] })]),
    );
    expect(anyMixed.status).toBe(400);
    expect(anyMixed.body.error_message).toContain('"ANY" must be the only entry');
    const badIp = await sim.call(
      'PATCH',
      `${SP}/p1`,
      policy([rule('a', 1, { destination_groups: ['10.0.0.300'] })]),
    );
    expect(badIp.status).toBe(400);
    const ipOk = await sim.call(
      'PATCH',
      `${SP}/p1`,
      policy([rule('a', 1, { destination_groups: ['10.0.0.0/8', '10.1.1.1-10.1.1.9'] })]),
    );
    expect(ipOk.status).toBe(200);
    const jump = await sim.call(
      'PATCH',
      `${SP}/p2`,
      policy([rule('a', 1, { action: 'JUMP_TO_APPLICATION' })]),
    );
    expect(jump.status).toBe(400);
    const badDir = await sim.call('PATCH', `${SP}/p2`, policy([rule('a', 1, { direction: 'SIDEWAYS' })]));
    expect(badDir.status).toBe(400);
    expect(badDir.body.error_message).toContain('direction');
  });

  it('JUMP_TO_APPLICATION is checked against the policy as the same write leaves it', async () => {
    const jump = (id: string, seq: number) => rule(id, seq, { action: 'JUMP_TO_APPLICATION' });
    // Created together with its Environment policy.
    const created = await sim.call('PATCH', `${SP}/env`, {
      ...policy([jump('j', 1)]),
      category: 'Environment',
    });
    expect(created.status, created.raw).toBe(200);
    expect((await sim.call('GET', `${SP}/env`)).body.rules[0].action).toBe('JUMP_TO_APPLICATION');
    // An Application policy turned into Environment in the PATCH that adds the rule.
    await sim.call('PATCH', `${SP}/app`, policy([rule('a', 1)]));
    const switched = await sim.call('PUT', `${SP}/app`, {
      ...policy([{ ...jump('a', 1), _revision: 0 }]),
      category: 'Environment',
      _revision: 0,
    });
    expect(switched.status, switched.raw).toBe(200);
    // The other way round: leaving Environment with the rule in the body, or with it kept from before.
    const leaving = await sim.call('PATCH', `${SP}/env`, { category: 'Application', rules: [jump('j', 1)] });
    expect(leaving.status).toBe(400);
    expect(leaving.body.error_message).toContain('only allowed in category Environment');
    const keeping = await sim.call('PATCH', `${SP}/env`, { category: 'Application' });
    expect(keeping.status).toBe(400);
    expect(keeping.body.error_message).toContain('rule j: action JUMP_TO_APPLICATION');
    expect((await sim.call('GET', `${SP}/env`)).body.category).toBe('Environment');
    // Leaving Environment while replacing the rule in the same write is fine.
    const replaced = await sim.call('PATCH', `${SP}/env`, { category: 'Application', rules: [rule('j', 1)] });
    expect(replaced.status, replaced.raw).toBe(200);
    // A rule written on its own still sees the stored policy.
    expect((await sim.call('PATCH', `${SP}/env/rules/j`, { action: 'JUMP_TO_APPLICATION' })).status).toBe(
      400,
    );
    expect((await sim.call('PATCH', `${SP}/app/rules/b`, { action: 'JUMP_TO_APPLICATION' })).status).toBe(
      200,
    );
  });

  it('refuses to delete a group or service still referenced by a rule (500030)', async () => {
    await sim.call('PATCH', `${SP}/p1`, policy([rule('a', 10)]));
    const del = await sim.call('DELETE', `${G}/web`);
    expect(del.status).toBe(400);
    expect(del.body.error_code).toBe(500030);
    expect(del.body.error_message).toContain('/infra/domains/default/security-policies/p1/rules/a');
    expect((await sim.call('DELETE', `${P}/infra/services/HTTP`)).body.error_code).toBe(500030);
    expect((await sim.call('DELETE', `${SP}/p1`)).status).toBe(200);
    expect((await sim.call('GET', `${SP}/p1/rules/a`)).status).toBe(404);
    expect((await sim.call('DELETE', `${G}/web`)).status).toBe(200);
  });

  it('rules can be managed through their own collection', async () => {
    await sim.call('PATCH', `${SP}/p1`, policy([]));
    expect((await sim.call('PATCH', `${SP}/p1/rules/r1`, rule('r1', 1))).status).toBe(200);
    const list = await sim.call('GET', `${SP}/p1/rules`);
    expect(list.body.result_count).toBe(1);
    expect((await sim.call('GET', `${SP}/p1`)).body.rule_count).toBe(1);
    expect((await sim.call('PATCH', `${SP}/nope/rules/r1`, rule('r1', 1))).status).toBe(404);
  });

  it('services carry service entries with validated ports', async () => {
    const ok = await sim.call('PATCH', `${P}/infra/services/web-8080`, {
      service_entries: [
        {
          id: 'e1',
          resource_type: 'L4PortSetServiceEntry',
          l4_protocol: 'TCP',
          destination_ports: ['8080', '9000-9010'],
        },
      ],
    });
    expect(ok.status).toBe(200);
    const got = (await sim.call('GET', `${P}/infra/services/web-8080/service-entries/e1`)).body;
    expect(got.path).toBe('/infra/services/web-8080/service-entries/e1');
    const bad = await sim.call('PATCH', `${P}/infra/services/bad`, {
      service_entries: [
        {
          id: 'e1',
          resource_type: 'L4PortSetServiceEntry',
          l4_protocol: 'TCP',
          destination_ports: ['9010-9000'],
        },
      ],
    });
    expect(bad.status).toBe(400);
    const proto = await sim.call('PATCH', `${P}/infra/services/bad`, {
      service_entries: [{ id: 'e1', resource_type: 'L4PortSetServiceEntry', l4_protocol: 'SCTP' }],
    });
    expect(proto.status).toBe(400);
  });
});
