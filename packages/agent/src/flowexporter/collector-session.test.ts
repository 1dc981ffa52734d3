import { ANTREA_AGENT_IPV4_ELEMENTS } from '@antrea-ts/ipfix';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { collectorServerName, namedRecord, openCollectorSession } from './collector-session.js';

describe('collector session', () => {
  it('checks the aggregator by the Service’s DNS name, or by the address given', () => {
    expect(collectorServerName('flow-aggregator/flow-aggregator')).toBe(
      'flow-aggregator.flow-aggregator.svc',
    );
    expect(collectorServerName('flows/fa')).toBe('fa.flows.svc');
    expect(collectorServerName('198.19.45.1')).toBe('198.19.45.1');
    expect(collectorServerName('fa.example.com')).toBe('fa.example.com');
  });

  it('names a template-ordered record’s values by the agent template’s elements', () => {
    const values = ANTREA_AGENT_IPV4_ELEMENTS.map((_, i) => i);
    const named = namedRecord(values);
    expect(Object.keys(named)).toEqual([...ANTREA_AGENT_IPV4_ELEMENTS]);
    expect([named.flowStartSeconds, named.destinationServiceIPv4]).toEqual([
      0,
      ANTREA_AGENT_IPV4_ELEMENTS.length - 1,
    ]);
  });

  it('needs the aggregator’s certificates for grpc and tls, and says so', async () => {
    for (const transport of ['grpc', 'tls'] as const) {
      const err = await openCollectorSession({
        host: '127.0.0.1',
        port: 1,
        transport,
        serverName: 'flow-aggregator.flow-aggregator.svc',
        domainId: 1,
        logger: pino({ level: 'silent' }),
        now: Date.now,
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'AGENT_FLOW_EXPORTER_TLS' });
      expect(String((err as Error).message)).toContain(transport);
    }
  });
});
