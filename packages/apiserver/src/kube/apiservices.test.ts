import type { V1APIService } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CertificateSource, ServingCertificate } from '../certs/cert-manager.js';
import { ANTREA_API_GROUP_VERSIONS, buildApiServices, CaBundlePublisher } from './apiservices.js';
import type { APIServiceClient, ConfigMapClient } from './kube-clients.js';

const logger = pino({ level: 'silent' });

class FakeConfigMaps implements ConfigMapClient {
  data = new Map<string, Record<string, string>>();
  failures = 0;
  async get(namespace: string, name: string) {
    return this.data.get(`${namespace}/${name}`);
  }
  async put(namespace: string, name: string, data: Record<string, string>) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('conflict');
    }
    this.data.set(`${namespace}/${name}`, data);
  }
}

class FakeApiServices implements APIServiceClient {
  objects = new Map<string, V1APIService>();
  async get(name: string) {
    return this.objects.get(name);
  }
  async put(apiService: V1APIService) {
    this.objects.set(apiService.metadata!.name!, apiService);
  }
}

class FakeSource implements CertificateSource {
  listeners: ((c: ServingCertificate) => void)[] = [];
  constructor(public cert: ServingCertificate) {}
  current() {
    return this.cert;
  }
  onChange(l: (c: ServingCertificate) => void) {
    this.listeners.push(l);
    return () => {};
  }
  rotate(bundle: string) {
    this.cert = { ...this.cert, caBundlePem: bundle };
    for (const l of this.listeners) l(this.cert);
  }
}

const cert = (caBundlePem: string): ServingCertificate => ({
  certPem: '',
  keyPem: '',
  caBundlePem,
  notBefore: 0,
  notAfter: 0,
});

describe('APIService registration', () => {
  it('builds the three Antrea APIServices pointing at the Service with the bundle', () => {
    const objects = buildApiServices({ name: 'antrea', namespace: 'kube-system' }, 'PEM');
    expect(objects.map((o) => o.metadata?.name)).toEqual([
      'v1beta2.controlplane.antrea.io',
      'v1beta1.system.antrea.io',
      'v1alpha1.stats.antrea.io',
    ]);
    expect(objects[0]!.spec).toEqual({
      group: 'controlplane.antrea.io',
      version: 'v1beta2',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      service: { name: 'antrea', namespace: 'kube-system', port: 443 },
      caBundle: Buffer.from('PEM').toString('base64'),
    });
    expect(ANTREA_API_GROUP_VERSIONS).toHaveLength(3);
  });

  it('publishes at start, retries failures, and republishes after rotation', async () => {
    const configMaps = new FakeConfigMaps();
    const apiServices = new FakeApiServices();
    const source = new FakeSource(cert('CA1'));
    configMaps.failures = 2;
    const publisher = new CaBundlePublisher({
      logger,
      configMaps,
      apiServices,
      service: { name: 'antrea', namespace: 'kube-system' },
      retryMs: 1,
    });
    await publisher.start(source);
    expect(configMaps.data.get('kube-system/antrea-ca')).toEqual({ 'ca.crt': 'CA1' });
    expect(publisher.published).toBe('CA1');
    source.rotate('CA2');
    await publisher.idle();
    expect(configMaps.data.get('kube-system/antrea-ca')).toEqual({ 'ca.crt': 'CA2' });
    const caBundle = apiServices.objects.get('v1alpha1.stats.antrea.io')!.spec!.caBundle!;
    expect(Buffer.from(caBundle, 'base64').toString()).toBe('CA2');
    publisher.stop();
  });
});
