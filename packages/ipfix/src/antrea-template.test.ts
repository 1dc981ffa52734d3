import { describe, expect, it } from 'vitest';
import {
  ANTREA_AGENT_IPV4_ELEMENTS,
  ANTREA_AGENT_IPV4_TEMPLATE,
  ANTREA_IPV4_TEMPLATE_ID,
  templateOf,
} from './antrea-template.js';
import { IpfixError } from './errors.js';
import {
  ANTREA_ENTERPRISE_ID,
  elementNamed,
  IANA_ENTERPRISE_ID,
  IANA_REVERSE_ENTERPRISE_ID,
} from './registry.js';

describe("antrea-agent's IPv4 template", () => {
  it('has IANA elements, then their reverse counters, then Antrea ones, in Antrea order', () => {
    const t = ANTREA_AGENT_IPV4_TEMPLATE;
    expect(t.templateId).toBe(ANTREA_IPV4_TEMPLATE_ID);
    expect(t.elements.map((e) => e.name)).toEqual(ANTREA_AGENT_IPV4_ELEMENTS);
    expect(t.elements.map((e) => e.enterprise)).toEqual([
      ...Array(12).fill(IANA_ENTERPRISE_ID),
      ...Array(4).fill(IANA_REVERSE_ENTERPRISE_ID),
      ...Array(27).fill(ANTREA_ENTERPRISE_ID),
    ]);
    expect(elementNamed('octetDeltaCount')).toMatchObject({ id: 1, enterprise: 0 });
    expect(elementNamed('reverseOctetDeltaCount')).toMatchObject({ id: 1, enterprise: 29305 });
    expect(elementNamed('destinationServiceIPv4')).toMatchObject({ id: 168, enterprise: 56506 });
  });

  it('refuses an element no registry defines', () => {
    let code: string | undefined;
    try {
      templateOf(300, ['octetDeltaCount', 'noSuchElement']);
    } catch (err) {
      code = IpfixError.is(err) ? err.code : undefined;
    }
    expect(code).toBe('IPFIX_UNKNOWN_ELEMENT');
  });
});
