import { describe, expect, it } from 'vitest';
import { traceflowFromForm } from './traceflow-form.js';

describe('traceflowFromForm', () => {
  it('builds a Pod-to-Pod ICMP Traceflow with a generated name', () => {
    expect(
      traceflowFromForm({ srcNamespace: 'x', srcPod: 'a1', dstType: 'pod', dstName: 'b1', protocol: 'ICMP' }),
    ).toEqual({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { generateName: 'a1-to-b1-' },
      spec: {
        source: { namespace: 'x', pod: 'a1' },
        destination: { namespace: 'x', pod: 'b1' },
        packet: { ipHeader: { protocol: 1 } },
      },
    });
  });

  it('builds TCP to a Service port, and UDP to an IP with live traffic, dropped only and a timeout', () => {
    const tcp = traceflowFromForm({
      srcNamespace: 'x',
      srcPod: 'a1',
      dstType: 'service',
      dstNamespace: 'y',
      dstName: 'web',
      protocol: 'TCP',
      dstPort: '8080',
    });
    expect(tcp.spec.destination).toEqual({ namespace: 'y', service: 'web' });
    expect(tcp.spec.packet).toEqual({
      ipHeader: { protocol: 6 },
      transportHeader: { tcp: { dstPort: 8080, flags: 2 } },
    });
    const udp = traceflowFromForm({
      srcNamespace: 'x',
      srcPod: 'a1',
      dstType: 'ip',
      dstIP: 'fd00::1',
      protocol: 'udp',
      timeout: '30',
      liveTraffic: 'on',
      droppedOnly: 'on',
    });
    expect(udp.metadata.generateName).toBe('a1-to-fd00--1-');
    expect(udp.spec).toMatchObject({
      destination: { ip: 'fd00::1' },
      packet: { ipHeader: { protocol: 17 }, transportHeader: { udp: { dstPort: 53 } } },
      timeout: 30,
      liveTraffic: true,
      droppedOnly: true,
    });
  });

  it.each([
    [{ srcPod: 'a1' }, /source namespace/],
    [{ srcNamespace: 'x', srcPod: 'A_1', dstName: 'b' }, /source Pod/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstType: 'ip', dstIP: '10.0.0.300' }, /not an IP address/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstName: 'b', protocol: 'SCTP' }, /protocol/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstName: 'b', protocol: 'ICMP', dstPort: '80' }, /ICMP has no ports/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstName: 'b', protocol: 'TCP', dstPort: '70000' }, /1-65535/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstName: 'b', timeout: '301' }, /timeout/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstName: 'b', droppedOnly: 'on' }, /live traffic only/],
    [{ srcNamespace: 'x', srcPod: 'a1', dstType: 'node', dstName: 'b' }, /destination type/],
  ])('refuses %j with a DASHBOARD_INVALID_TRACEFLOW_FORM error', (form, message) => {
    expect(() => traceflowFromForm(form)).toThrow(message);
    try {
      traceflowFromForm(form);
    } catch (err) {
      expect((err as { code: string }).code).toBe('DASHBOARD_INVALID_TRACEFLOW_FORM');
    }
  });
});
