import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CERT_VALIDITY_MS,
  createFlowAggregatorCa,
  issueLeaf,
  isUsable,
  MIN_VALID_MS,
} from './certificates.js';

const NOW = Date.UTC(2026, 10, 22);

describe('flow aggregator certificates', () => {
  const ca = createFlowAggregatorCa(NOW);

  it('makes a CA and leaves as Antrea names and scopes them', () => {
    const caCert = new X509Certificate(ca.certPem);
    expect(caCert.subject).toContain(`CN=flow-aggregator-ca@${Math.floor(NOW / 1000)}`);
    expect(caCert.ca).toBe(true);
    const server = new X509Certificate(
      issueLeaf(ca, 'server', NOW, ['flow-aggregator.flow-aggregator.svc', '198.19.45.1']).certPem,
    );
    expect(server.subjectAltName).toBe('DNS:flow-aggregator.flow-aggregator.svc, IP Address:198.19.45.1');
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(server.checkIssued(caCert)).toBe(true);
    const client = new X509Certificate(issueLeaf(ca, 'client', NOW).certPem);
    expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']); // clientAuth
    expect(client.subject).toContain('CN=flow-aggregator-client-certificate@');
    // Valid from an hour back, for a year.
    expect(Date.parse(client.validFrom)).toBe(Math.floor((NOW - 3_600_000) / 1000) * 1000);
    expect(Date.parse(client.validTo) - Date.parse(client.validFrom)).toBe(CERT_VALIDITY_MS);
  });

  it('keeps a stored pair only while it is whole, signed by the CA and far from expiry', () => {
    const client = issueLeaf(ca, 'client', NOW);
    expect(isUsable(ca, NOW)).toBe(true);
    expect(isUsable(client, NOW, ca)).toBe(true);
    expect(isUsable(undefined, NOW)).toBe(false);
    expect(isUsable({ certPem: 'not a certificate', keyPem: client.keyPem }, NOW)).toBe(false);
    // Another pair's key, another CA's signature.
    expect(isUsable({ certPem: client.certPem, keyPem: ca.keyPem }, NOW)).toBe(false);
    expect(isUsable(client, NOW, createFlowAggregatorCa(NOW))).toBe(false);
    // Rotated once less than 90 days are left.
    const nearEnd = NOW - 3_600_000 + CERT_VALIDITY_MS - MIN_VALID_MS;
    expect(isUsable(client, nearEnd - 60_000, ca)).toBe(true);
    expect(isUsable(client, nearEnd + 60_000, ca)).toBe(false);
  });
});
