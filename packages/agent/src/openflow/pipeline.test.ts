import { describe, expect, it } from 'vitest';
import { CookieAllocator, CookieCategory, categoryOf, roundOf } from './cookie.js';
import { ALL_FIELDS, FromPodRegMark, matchMarks, overlappingFields, RewriteMACRegMark } from './fields.js';
import { DEFAULT_FEATURES, Pipeline, TABLES } from './pipeline.js';

describe('pipeline', () => {
  it('numbers the connectivity tables in Antrea order, policy tables reserved between', () => {
    const p = new Pipeline(DEFAULT_FEATURES);
    expect(p.tables.map((t) => `${t.id}:${t.name}`)).toEqual([
      '0:PipelineRootClassifier',
      '1:ARPSpoofGuard',
      '2:ARPResponder',
      '3:Classifier',
      '4:SpoofGuard',
      '5:UnSNAT',
      '6:ConntrackZone',
      '7:ConntrackState',
      '8:PreRoutingClassifier',
      '9:NodePortMark',
      '10:SessionAffinity',
      '11:ServiceLB',
      '12:EndpointDNAT',
      '13:AntreaPolicyEgressRule',
      '14:EgressRule',
      '15:EgressDefaultRule',
      '16:EgressMetric',
      '17:L3Forwarding',
      '18:L3DecTTL',
      '19:SNATMark',
      '20:SNAT',
      '21:L2ForwardingCalc',
      '22:IngressSecurityClassifier',
      '23:AntreaPolicyIngressRule',
      '24:IngressRule',
      '25:IngressDefaultRule',
      '26:IngressMetric',
      '27:ConntrackCommit',
      '28:Output',
    ]);
  });

  it('resolves miss targets within a pipeline and never backwards', () => {
    const p = new Pipeline(DEFAULT_FEATURES);
    for (const t of p.tables) {
      if (t.missTarget !== undefined) {
        expect(t.missTarget).toBeGreaterThan(t.id);
        expect(p.tables[t.missTarget]!.pipeline).toBe(t.pipeline);
      }
    }
    expect(p.table('L3Forwarding').missTarget).toBe(p.id('L2ForwardingCalc'));
    expect(p.table('Classifier').missTarget).toBeUndefined();
    expect(p.next('ARPSpoofGuard')).toBe(p.id('ARPResponder'));
  });

  it('gives ids only to tables of enabled features', () => {
    const p = new Pipeline(new Set(['podConnectivity']));
    expect(p.has('EgressRule')).toBe(false);
    expect(p.next('ConntrackState')).toBe(p.id('L3Forwarding'));
    expect(() => p.id('EgressRule')).toThrow(expect.objectContaining({ code: 'AGENT_PIPELINE_INVALID' }));
    const withServices = new Pipeline(new Set(['podConnectivity', 'service']));
    expect(withServices.id('UnSNAT')).toBe(withServices.id('SpoofGuard') + 1);
  });

  it('declares every table once', () => {
    expect(new Set(TABLES.map((t) => t.name)).size).toBe(TABLES.length);
  });
});

describe('register allocations and cookies', () => {
  it('no two fields share bits', () => {
    expect(overlappingFields()).toEqual([]);
    expect(overlappingFields([...ALL_FIELDS, { name: 'x', field: 'reg0', start: 3, end: 4 }])).toContainEqual(
      ['PktSource', 'x'],
    );
  });

  it('merges marks on one register into one masked match', () => {
    expect(matchMarks(FromPodRegMark, RewriteMACRegMark)).toEqual({ reg0: { value: 0x203n, mask: 0x20fn } });
  });

  it('packs round and category into cookies', () => {
    const c = new CookieAllocator(7).cookie(CookieCategory.NetworkPolicy, 5n);
    expect(roundOf(c)).toBe(7);
    expect(categoryOf(c)).toBe(2);
    expect(c & 0xffffffffffn).toBe(5n);
  });
});
