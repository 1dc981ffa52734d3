import { describe, expect, it } from 'vitest';
import { serviceDestination } from './destination.js';

const web = {
  clusterIps: ['10.96.0.10'],
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 80, protocol: 'TCP' },
    { port: 8080, protocol: 'TCP' },
  ],
};

describe('Traceflow Service destination', () => {
  it('is the IPv4 ClusterIP, with the first Service port of the packet’s protocol', () => {
    const d = serviceDestination('x/web', web, true);
    expect(d.ip).toBe('10.96.0.10');
    expect([d.dstPort(6), d.dstPort(17), d.dstPort(1)]).toEqual([80, 53, undefined]);
    expect(serviceDestination('x/web', { ...web, clusterIps: ['fd00::10', '10.96.0.11'] }, true).ip).toBe(
      '10.96.0.11',
    );
  });

  it('refuses without AntreaProxy, an unknown or headless Service, and an IPv6-only one', () => {
    const reason = (...args: Parameters<typeof serviceDestination>) => {
      try {
        serviceDestination(...args);
        return 'resolved';
      } catch (err) {
        return `${(err as { code?: string }).code}: ${(err as Error).message}`;
      }
    };
    expect(reason('x/web', web, false)).toBe(
      'AGENT_TRACEFLOW_INVALID: using Service destination requires AntreaProxy enabled',
    );
    expect(reason('x/nope', undefined, true)).toBe(
      'AGENT_TRACEFLOW_INVALID: failed to get the destination Service x/nope: not found',
    );
    expect(reason('x/h', { clusterIps: ['None'], ports: [] }, true)).toBe(
      'AGENT_TRACEFLOW_INVALID: destination Service does not have a ClusterIP',
    );
    expect(reason('x/v6', { clusterIps: ['fd00::10'], ports: [] }, true)).toBe(
      'AGENT_TRACEFLOW_INVALID: destination Service does not have an IPv4 ClusterIP',
    );
  });
});
