import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrd, renderCrdFiles } from '../crd/render.js';
import { adminNetworkPolicyCrd, baselineAdminNetworkPolicyCrd, policyApiCrds } from './crds.js';

describe('policy.networking.k8s.io CRDs', () => {
  it('are cluster-scoped v1alpha1 kinds with a status subresource, generated into build/crds', () => {
    const names = renderCrdFiles().map((f) => f.name);
    for (const crd of policyApiCrds()) {
      expect(crd.spec.group).toBe('policy.networking.k8s.io');
      expect(crd.spec.scope).toBe('Cluster');
      expect(crd.spec.versions.map((v) => [v.name, v.storage, v.subresources])).toEqual([
        ['v1alpha1', true, { status: {} }],
      ]);
      expect(names).toContain(`crd-${crd.spec.names.singular}.yaml`);
    }
    expect(adminNetworkPolicyCrd().spec.names.shortNames).toEqual(['anp']);
    expect(baselineAdminNetworkPolicyCrd().spec.names.shortNames).toEqual(['banp']);
  });

  it('print Priority and Age for ANPs, Age for the BANP, as upstream', () => {
    const columns = (c: ReturnType<typeof adminNetworkPolicyCrd>) =>
      c.spec.versions[0]!.additionalPrinterColumns!.map((p) => `${p.name}:${p.type}:${p.jsonPath}`);
    expect(columns(adminNetworkPolicyCrd())).toEqual([
      'Priority:string:.spec.priority',
      'Age:date:.metadata.creationTimestamp',
    ]);
    expect(columns(baselineAdminNetworkPolicyCrd())).toEqual(['Age:date:.metadata.creationTimestamp']);
  });

  it('limit ANP actions to Allow/Deny/Pass and BANP actions to Allow/Deny', () => {
    const action = (c: ReturnType<typeof adminNetworkPolicyCrd>, dir: 'ingress' | 'egress') =>
      c.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties![dir]!.items!.properties!
        .action!.enum;
    expect(action(adminNetworkPolicyCrd(), 'ingress')).toEqual(['Allow', 'Deny', 'Pass']);
    expect(action(baselineAdminNetworkPolicyCrd(), 'egress')).toEqual(['Allow', 'Deny']);
  });

  it('take exactly one member per subject, peer and port, and priorities 0..1000', () => {
    const spec = adminNetworkPolicyCrd().spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;
    const p = spec.properties!;
    const one = (s: { minProperties?: number; maxProperties?: number } | undefined) => [
      s?.minProperties,
      s?.maxProperties,
    ];
    expect([p.priority!.minimum, p.priority!.maximum]).toEqual([0, 1000]);
    expect(one(p.subject)).toEqual([1, 1]);
    for (const [dir, peers] of [
      ['ingress', 'from'],
      ['egress', 'to'],
    ] as const) {
      const rule = p[dir]!.items!.properties!;
      expect(one(rule[peers]!.items)).toEqual([1, 1]);
      expect(one(rule.ports!.items)).toEqual([1, 1]);
    }
    const banp = baselineAdminNetworkPolicyCrd().spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;
    expect(one(banp.properties!.subject)).toEqual([1, 1]);
  });

  it.each(['1.1', '1.2'] as const)('round-trip through YAML %s', (version) => {
    for (const crd of policyApiCrds())
      expect(parse(renderCrd(crd), { version })).toEqual(JSON.parse(JSON.stringify(crd)));
  });
});
