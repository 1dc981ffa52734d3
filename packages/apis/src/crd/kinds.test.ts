import { describe, expect, it } from 'vitest';
import { CRD_KINDS, crdResourcePath } from './kinds.js';

describe('CRD_KINDS', () => {
  it('uses the versions Antrea serves today', () => {
    const versions = Object.fromEntries(Object.values(CRD_KINDS).map((k) => [k.kind, k.apiVersion]));
    expect(versions).toEqual({
      ClusterNetworkPolicy: 'crd.antrea.io/v1beta1',
      NetworkPolicy: 'crd.antrea.io/v1beta1',
      Tier: 'crd.antrea.io/v1beta1',
      ClusterGroup: 'crd.antrea.io/v1beta1',
      Group: 'crd.antrea.io/v1beta1',
      ExternalEntity: 'crd.antrea.io/v1alpha2',
      Traceflow: 'crd.antrea.io/v1beta1',
      SupportBundleCollection: 'crd.antrea.io/v1alpha1',
      AntreaControllerInfo: 'crd.antrea.io/v1beta1',
      AntreaAgentInfo: 'crd.antrea.io/v1beta1',
      Egress: 'crd.antrea.io/v1beta1',
      ExternalIPPool: 'crd.antrea.io/v1beta1',
      PacketCapture: 'crd.antrea.io/v1alpha1',
      TrafficControl: 'crd.antrea.io/v1alpha2',
    });
  });

  it('keys each entry by its kind, with unique plurals and short names', () => {
    for (const [key, info] of Object.entries(CRD_KINDS)) expect(info.kind).toBe(key);
    const plurals = Object.values(CRD_KINDS).map((k) => k.plural);
    const shortNames = Object.values(CRD_KINDS).flatMap((k) => k.shortNames);
    expect(new Set(plurals).size).toBe(plurals.length);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    expect(
      Object.values(CRD_KINDS)
        .filter((k) => k.namespaced)
        .map((k) => k.kind),
    ).toEqual(['NetworkPolicy', 'Group', 'ExternalEntity']);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(CRD_KINDS)).toBe(true);
    expect(Object.isFrozen(CRD_KINDS.Tier)).toBe(true);
    expect(Object.isFrozen(CRD_KINDS.Tier.shortNames)).toBe(true);
  });
});

describe('crdResourcePath', () => {
  it('builds cluster-scoped paths', () => {
    expect(crdResourcePath('ClusterNetworkPolicy')).toBe(
      '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies',
    );
    expect(crdResourcePath('SupportBundleCollection', { name: 'b' })).toBe(
      '/apis/crd.antrea.io/v1alpha1/supportbundlecollections/b',
    );
  });

  it('builds namespaced and all-namespace paths', () => {
    expect(crdResourcePath('NetworkPolicy', { namespace: 'ns', name: 'p' })).toBe(
      '/apis/crd.antrea.io/v1beta1/namespaces/ns/networkpolicies/p',
    );
    expect(crdResourcePath('ExternalEntity')).toBe('/apis/crd.antrea.io/v1alpha2/externalentities');
  });

  it('escapes names', () => {
    expect(crdResourcePath('Tier', { name: 'a/b' })).toBe('/apis/crd.antrea.io/v1beta1/tiers/a%2Fb');
  });

  it('refuses a namespace for a cluster-scoped kind and a name without namespace for a namespaced one', () => {
    expect(() => crdResourcePath('Tier', { namespace: 'ns' })).toThrow(/cluster-scoped/);
    expect(() => crdResourcePath('Group', { name: 'g' })).toThrow(/namespaced/);
  });
});
