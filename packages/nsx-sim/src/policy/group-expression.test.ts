import { describe, expect, it } from 'vitest';
import { G, startTestSim } from '../test-support.js';
import { ipFamily, validateGroupExpression } from './group-expression.js';

const cond = (member_type: string, key: string, value: string, operator = 'EQUALS') => ({
  resource_type: 'Condition',
  member_type,
  key,
  operator,
  value,
});
const and = { resource_type: 'ConjunctionOperator', conjunction_operator: 'AND' };
const or = { resource_type: 'ConjunctionOperator', conjunction_operator: 'OR' };
const nested = (...expressions: unknown[]) => ({ resource_type: 'NestedExpression', expressions });
const ips = (...ip_addresses: string[]) => ({ resource_type: 'IPAddressExpression', ip_addresses });

describe('validateGroupExpression', () => {
  it('accepts the documented Antrea group shapes', () => {
    expect(
      validateGroupExpression(
        [nested(cond('Namespace', 'Name', 'avimart'), and, cond('Pod', 'Tag', 'dis:k8s:tier|app'))],
        ['ANTREA'],
      ),
    ).toEqual([]);
    expect(
      validateGroupExpression([cond('Pod', 'Tag', 'dis:k8s:app|web'), or, ips('10.0.0.0/8')], ['ANTREA']),
    ).toEqual([]);
    expect(
      validateGroupExpression([cond('Pod', 'Tag', '|web'), and, cond('Pod', 'Name', 'x')], ['ANTREA']),
    ).toEqual([]);
  });

  it('requires criteria and conjunctions to alternate', () => {
    expect(validateGroupExpression([cond('Pod', 'Tag', 'a|b'), cond('Pod', 'Tag', 'c|d')], [])).toEqual(
      expect.arrayContaining([
        expect.stringContaining('odd number'),
        expect.stringContaining('expected a ConjunctionOperator'),
      ]),
    );
    expect(validateGroupExpression([and], []).join()).toContain('even position');
  });

  it('limits criteria to five', () => {
    const six = [1, 2, 3, 4, 5, 6].flatMap((i) =>
      i === 1 ? [cond('Pod', 'Name', `p${i}`)] : [or, cond('Pod', 'Name', `p${i}`)],
    );
    expect(validateGroupExpression(six, []).join()).toContain('at most 5');
    expect(validateGroupExpression(six.slice(0, 9), [])).toEqual([]);
    const wide = (n: number) => ({
      resource_type: 'NestedExpression',
      expressions: Array.from({ length: n }, (_, i) => cond('Pod', 'Name', `p${i}`)).flatMap((c, i) =>
        i === 0 ? [c] : [and, c],
      ),
    });
    expect(validateGroupExpression([wide(12), or, wide(12), or, wide(11)], [])).toEqual([]);
    expect(validateGroupExpression([wide(12), or, wide(12), or, wide(12)], []).join()).toContain(
      'at most 35 conditions',
    );
  });

  it('refuses AND between conditions of different member types at top level', () => {
    const errs = validateGroupExpression(
      [cond('Namespace', 'Name', 'a'), and, cond('Pod', 'Tag', 'x|y')],
      [],
    );
    expect(errs.join()).toContain('use a NestedExpression');
  });

  it('only allows OR next to IP/path expressions and one IP family per expression', () => {
    expect(validateGroupExpression([cond('Pod', 'Tag', 'a|b'), and, ips('10.0.0.1')], []).join()).toContain(
      'only be combined with OR',
    );
    expect(validateGroupExpression([ips('10.0.0.1', 'fd00::1')], []).join()).toContain('cannot be mixed');
    expect(validateGroupExpression([ips('10.0.0.0/33')], []).join()).toContain('not an IP address');
  });

  it('checks nested expressions: only conditions, AND only, no nesting', () => {
    expect(
      validateGroupExpression([nested(cond('Pod', 'Name', 'a'), or, cond('Pod', 'Name', 'b'))], []).join(),
    ).toContain('only AND');
    expect(validateGroupExpression([nested(nested(cond('Pod', 'Name', 'a')))], []).join()).toContain(
      'may only contain Condition',
    );
    expect(validateGroupExpression([nested()], []).join()).toContain('must not be empty');
  });

  it('applies ANTREA group restrictions', () => {
    expect(validateGroupExpression([cond('VirtualMachine', 'Name', 'vm')], ['ANTREA']).join()).toContain(
      'not allowed in an ANTREA group',
    );
    expect(validateGroupExpression([cond('Pod', 'OSName', 'x')], ['ANTREA']).join()).toContain('key OSName');
    expect(
      validateGroupExpression(
        [nested(cond('Service', 'Name', 's'), and, cond('Pod', 'Tag', 'a|b'))],
        ['ANTREA'],
      ).join(),
    ).toContain('Service and Pod');
    expect(
      validateGroupExpression(
        [cond('Service', 'Name', 's'), or, cond('Pod', 'Tag', 'a|b')],
        ['ANTREA'],
      ).join(),
    ).toContain('Service condition cannot be combined');
    expect(
      validateGroupExpression(
        [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/x'] }],
        ['ANTREA'],
      ).join(),
    ).toContain('not supported in an ANTREA group');
    expect(validateGroupExpression([cond('Service', 'Name', 's')], ['ANTREA'])).toEqual([]);
  });

  it('applies generic-group Kubernetes member type rules', () => {
    expect(validateGroupExpression([cond('KubernetesCluster', 'Name', 'c1')], []).join()).toContain(
      'cannot be used alone',
    );
    expect(
      validateGroupExpression(
        [nested(cond('KubernetesCluster', 'Name', 'c1'), and, cond('KubernetesNamespace', 'Name', 'ns'))],
        [],
      ).join(),
    ).toContain('need a resource member type');
    expect(
      validateGroupExpression(
        [nested(cond('KubernetesCluster', 'Name', 'c1'), and, cond('KubernetesService', 'Name', 'svc'))],
        [],
      ),
    ).toEqual([]);
    expect(validateGroupExpression([cond('KubernetesNode', 'IPAddress', '*')], []).join()).toContain(
      'MATCHES',
    );
    expect(validateGroupExpression([cond('KubernetesNode', 'IPAddress', '*', 'MATCHES')], [])).toEqual([]);
  });

  it('group_type IPAddress allows only IP expressions', () => {
    expect(validateGroupExpression([cond('Pod', 'Name', 'x')], ['IPAddress']).join()).toContain(
      'only IPAddressExpression',
    );
  });
});

describe('ipFamily', () => {
  it('classifies addresses, CIDRs and ranges', () => {
    expect(ipFamily('10.1.2.3')).toBe(4);
    expect(ipFamily('10.0.0.0/8')).toBe(4);
    expect(ipFamily('fd00::/64')).toBe(6);
    expect(ipFamily('10.0.0.1-10.0.0.9')).toBe(4);
    expect(ipFamily('10.0.0.1-fd00::1')).toBe(0);
    expect(ipFamily('10.0.0.0/x')).toBe(0);
    expect(ipFamily('web')).toBe(0);
  });
});

describe('group validation over HTTP', () => {
  it('answers 400 with one related error per violation and stores nothing', async () => {
    const sim = await startTestSim();
    const res = await sim.call('PATCH', `${G}/bad`, {
      group_type: ['ANTREA'],
      expression: [cond('Namespace', 'Name', 'a'), and, cond('Pod', 'Tag', 'x|y'), and],
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(500090);
    expect(res.body.related_errors.length).toBeGreaterThanOrEqual(2);
    for (const r of res.body.related_errors)
      expect(r).toMatchObject({ httpStatus: 'BAD_REQUEST', error_code: 500090 });
    expect((await sim.call('GET', `${G}/bad`)).status).toBe(404);

    const schema = await sim.call('PATCH', `${G}/bad`, {
      expression: [{ resource_type: 'Condition', member_type: 'Pod', key: 'Tag' }],
    });
    expect(schema.status).toBe(400);
    expect(schema.body.error_message).toContain("must have required property 'operator'");
    const badOp = await sim.call('PATCH', `${G}/bad`, { expression: [cond('Pod', 'Tag', 'a|b', 'LIKE')] });
    expect(badOp.status).toBe(400);
    expect(badOp.body.error_message).toContain('/expression/0/operator');
    await sim.app.close();
  });

  it('PathExpression must point at existing groups, which then cannot be deleted', async () => {
    const sim = await startTestSim();
    const missing = await sim.call('PATCH', `${G}/parent`, {
      expression: [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/child'] }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error_code).toBe(500012);
    await sim.call('PATCH', `${G}/child`, { expression: [ips('10.0.0.0/24')] });
    expect(
      (
        await sim.call('PATCH', `${G}/parent`, {
          expression: [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/child'] }],
        })
      ).status,
    ).toBe(200);
    expect((await sim.call('DELETE', `${G}/child`)).body.error_code).toBe(500030);
    await sim.app.close();
  });
});
