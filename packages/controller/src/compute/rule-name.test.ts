import { describe, expect, it } from 'vitest';
import { marshalRule } from './go-json.js';
import { defaultRuleName, effectiveRuleNames } from './rule-name.js';

describe('default rule names', () => {
  // Expected values from Antrea pkg/controller/networkpolicy/mutate_test.go.
  it('hashes the Go JSON encoding of the rule', () => {
    expect(
      defaultRuleName('ingress', {
        action: 'Allow',
        from: [{ podSelector: { matchLabels: { foo1: 'bar1' } } }],
      }),
    ).toBe('ingress-allow-c4f16d3');
    expect(
      defaultRuleName('ingress', {
        action: 'Allow',
        from: [{ podSelector: { matchLabels: { foo2: 'bar2' } } }],
      }),
    ).toBe('ingress-allow-be87b58');
    expect(
      defaultRuleName('egress', {
        action: 'Allow',
        to: [{ podSelector: { matchLabels: { foo2: 'bar2' } } }],
      }),
    ).toBe('egress-allow-44b2575');
  });

  it('encodes fields in Go struct order with omitempty and HTML-safe escapes', () => {
    expect(
      marshalRule({
        name: '',
        enableLogging: false,
        action: 'Drop',
        ports: [{ protocol: 'TCP', port: 'http', endPort: 0 }],
        to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }],
        logLabel: 'a<b',
      }),
    ).toBe(
      '{"action":"Drop","ports":[{"protocol":"TCP","port":"http","endPort":0}],"to":[{"ipBlock":{"cidr":"10.0.0.0/8"},"podSelector":{}}],"enableLogging":false,"logLabel":"a\\u003cb"}',
    );
    expect(marshalRule({})).toBe('{"action":null,"enableLogging":false}');
  });

  it('keeps given names', () => {
    expect(effectiveRuleNames('egress', [{ name: 'mine', action: 'Pass' }, { action: 'Pass' }])[0]).toBe(
      'mine',
    );
  });
});
