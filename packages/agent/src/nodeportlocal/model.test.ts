import { describe, expect, it } from 'vitest';
import {
  formatNplAnnotation,
  nplPod,
  nplService,
  parseNplAnnotation,
  parsePortRange,
  selects,
} from './model.js';

const svc = (
  extra: { type?: string; annotations?: Record<string, string>; selector?: Record<string, string> } = {},
) =>
  nplService({
    metadata: {
      namespace: 'ns',
      name: 'web',
      annotations: extra.annotations ?? { 'nodeportlocal.antrea.io/enabled': 'true' },
    },
    spec: {
      type: extra.type ?? 'ClusterIP',
      selector: extra.selector ?? { app: 'web' },
      ports: [
        { port: 80, targetPort: 8080 as never, protocol: 'TCP' },
        { port: 81, targetPort: 'http' as never },
        { port: 53, protocol: 'UDP' },
        { port: 99, targetPort: '9999' as never, protocol: 'SCTP' },
      ],
    },
  });

describe('NodePortLocal model', () => {
  it('reads a Service: targets (number, name, defaulted to the port), SCTP left out, enabled only as Antrea allows', () => {
    const s = svc();
    expect(s).toMatchObject({ key: 'ns/web', enabled: true, selector: { app: 'web' } });
    expect(s.ports).toEqual([
      { target: 8080, protocol: 'tcp' },
      { target: 'http', protocol: 'tcp' },
      { target: 53, protocol: 'udp' },
    ]);
    expect(svc({ type: 'NodePort' }).enabled).toBe(false);
    expect(svc({ type: 'ExternalName' }).enabled).toBe(false);
    expect(svc({ type: 'LoadBalancer' }).enabled).toBe(true);
    expect(svc({ selector: {} }).enabled).toBe(false);
    expect(svc({ annotations: { 'nodeportlocal.antrea.io/enabled': 'True' } }).enabled).toBe(false);
  });

  it('reads a Pod: IPv4, container ports with names and hostPorts, the annotation, terminated phases', () => {
    const p = nplPod({
      metadata: {
        namespace: 'ns',
        name: 'a',
        labels: { app: 'web' },
        annotations: { 'nodeportlocal.antrea.io': '[]' },
      },
      spec: {
        containers: [
          {
            name: 'c',
            ports: [
              { name: 'http', containerPort: 8080 },
              { containerPort: 53, protocol: 'UDP', hostPort: 5353 },
            ],
          },
        ],
      },
      status: { phase: 'Running', podIPs: [{ ip: 'fd00::1' }, { ip: '10.0.0.5' }] },
    });
    expect(p).toEqual({
      key: 'ns/a',
      namespace: 'ns',
      name: 'a',
      labels: { app: 'web' },
      ip: '10.0.0.5',
      terminated: false,
      ports: [
        { name: 'http', containerPort: 8080, protocol: 'tcp', hostPort: undefined },
        { name: undefined, containerPort: 53, protocol: 'udp', hostPort: 5353 },
      ],
      annotation: '[]',
    });
    expect(selects(svc(), p)).toBe(true);
    expect(selects(svc({ selector: { app: 'other' } }), p)).toBe(false);
    expect(nplPod({ metadata: { namespace: 'ns', name: 'b' }, status: { phase: 'Failed' } }).terminated).toBe(
      true,
    );
  });

  it("writes Antrea's annotation JSON sorted by nodePort and reads it back, skipping incomplete and IPv6 members", () => {
    const text = formatNplAnnotation([
      { podPort: 53, nodeIP: '192.0.2.1', nodePort: 61001, protocol: 'udp', ipFamily: 'IPv4' },
      { podPort: 80, nodeIP: '192.0.2.1', nodePort: 61000, protocol: 'tcp', ipFamily: 'IPv4' },
    ]);
    expect(text).toBe(
      '[{"podPort":80,"nodeIP":"192.0.2.1","nodePort":61000,"protocol":"tcp","ipFamily":"IPv4"},' +
        '{"podPort":53,"nodeIP":"192.0.2.1","nodePort":61001,"protocol":"udp","ipFamily":"IPv4"}]',
    );
    expect(parseNplAnnotation(text)?.map((m) => m.nodePort)).toEqual([61000, 61001]);
    // Before v2.6 there was no ipFamily: IPv4.
    expect(
      parseNplAnnotation('[{"podPort":80,"nodeIP":"x","nodePort":61000,"protocol":"tcp"}]'),
    ).toHaveLength(1);
    expect(
      parseNplAnnotation(
        '[{"podPort":80,"nodePort":0,"protocol":"tcp"},{"podPort":80,"nodePort":61000,"protocol":"tcp","ipFamily":"IPv6"},{"podPort":80,"nodePort":61000}]',
      ),
    ).toEqual([]);
    expect(parseNplAnnotation('not json')).toBeUndefined();
    expect(parseNplAnnotation('{"podPort":1}')).toBeUndefined();
  });

  it('parses portRange start-end', () => {
    expect(parsePortRange('61000-62000')).toEqual({ start: 61000, end: 62000 });
    expect(parsePortRange(' 1 - 2 ')).toEqual({ start: 1, end: 2 });
    for (const bad of ['62000-61000', '0-10', '1-65536', '61000', 'a-b', '5-5'])
      expect(parsePortRange(bad)).toBeUndefined();
  });
});
