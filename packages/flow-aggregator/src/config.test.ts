import { describe, expect, it } from 'vitest';
import { parseCollectorAddress, parseConfig, parseDuration } from './config.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

describe('flow-aggregator.conf', () => {
  it('has Antrea’s defaults, apart from the IPFIX transport (tcp, not tls, unless asked for)', () => {
    expect(parseConfig('aggregatorTransportProtocol: tls\n').aggregatorTransportProtocol).toBe('tls');
    const c = parseConfig('');
    expect(c).toMatchObject({
      activeFlowRecordTimeoutMs: 60_000,
      inactiveFlowRecordTimeoutMs: 90_000,
      aggregatorTransportProtocol: 'tcp',
      recordContents: { podLabels: false },
      apiServer: { apiPort: 10348 },
      flowCollector: { enable: false, templateRefreshTimeoutMs: 600_000 },
      flowLogger: {
        enable: false,
        path: '/tmp/antrea-flows.log',
        maxSize: 100,
        maxBackups: 3,
        compress: true,
        prettyPrint: true,
        filters: [],
      },
    });
    expect(Object.isFrozen(c.flowLogger)).toBe(true);
  });

  it('reads Antrea’s keys', () => {
    const c = parseConfig(
      [
        'activeFlowRecordTimeout: 5s',
        'inactiveFlowRecordTimeout: 1m30s',
        'aggregatorTransportProtocol: UDP',
        'flowCollector:',
        '  enable: true',
        '  address: "[fd00::1]:4739:udp"',
        '  observationDomainID: 42',
        'flowLogger:',
        '  enable: true',
        '  path: /var/log/flows.csv',
        '  prettyPrint: false',
        '  filters:',
        '    - ingressNetworkPolicyRuleActions: [Drop, Reject]',
        '    - egressNetworkPolicyRuleActions: [Drop]',
      ].join('\n'),
    );
    expect(c).toMatchObject({
      activeFlowRecordTimeoutMs: 5000,
      inactiveFlowRecordTimeoutMs: 90_000,
      aggregatorTransportProtocol: 'udp',
      flowCollector: { enable: true, host: 'fd00::1', port: 4739, transport: 'udp', observationDomainID: 42 },
      flowLogger: {
        enable: true,
        path: '/var/log/flows.csv',
        prettyPrint: false,
        filters: [
          { ingressNetworkPolicyRuleActions: ['Drop', 'Reject'] },
          { egressNetworkPolicyRuleActions: ['Drop'] },
        ],
      },
    });
  });

  it('refuses what it cannot do and what Antrea would refuse', () => {
    const tcp = 'aggregatorTransportProtocol: tcp\n';
    expect(codeOf(() => parseConfig(`${tcp}clickHouse:\n  enable: true\n`))).toBe('FA_UNSUPPORTED');
    expect(codeOf(() => parseConfig(`${tcp}s3Uploader:\n  enable: true\n`))).toBe('FA_UNSUPPORTED');
    expect(codeOf(() => parseConfig(`${tcp}mode: Proxy\n`))).toBe('FA_UNSUPPORTED');
    expect(codeOf(() => parseConfig(`${tcp}flowCollector:\n  enable: true\n`))).toBe('FA_CONFIG');
    expect(codeOf(() => parseConfig('aggregatorTransportProtocol: sctp\n'))).toBe('FA_CONFIG');
    expect(codeOf(() => parseConfig(`${tcp}activeFlowRecordTimeout: soon\n`))).toBe('FA_CONFIG');
    expect(
      codeOf(() =>
        parseConfig(`${tcp}flowLogger:\n  filters: [{ingressNetworkPolicyRuleActions: [Deny]}]\n`),
      ),
    ).toBe('FA_CONFIG');
    expect(codeOf(() => parseConfig('{'))).toBe('FA_CONFIG');
  });

  it('parses Go durations and rounds timeouts under 1 s up to 1 s', () => {
    expect(parseDuration('x', '1h2m3s')).toBe(3_723_000);
    expect(parseDuration('x', '250ms')).toBe(250);
    expect(
      parseConfig('aggregatorTransportProtocol: tcp\nactiveFlowRecordTimeout: 10ms\n')
        .activeFlowRecordTimeoutMs,
    ).toBe(1000);
    expect(parseCollectorAddress('10.0.0.1:4739')).toEqual({
      host: '10.0.0.1',
      port: 4739,
      transport: 'tcp',
    });
    expect(codeOf(() => parseCollectorAddress('10.0.0.1:4739:tls'))).toBe('FA_UNSUPPORTED');
  });
});
