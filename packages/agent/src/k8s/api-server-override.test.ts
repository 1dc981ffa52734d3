import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { overrideServer } from './api-server-override.js';

describe('overrideServer', () => {
  it("changes only the current cluster's address, keeping its CA and the user", () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'in', server: 'https://10.96.0.1:443', caData: 'Q0E=', skipTLSVerify: false },
        { name: 'other', server: 'https://other:6443', skipTLSVerify: false },
      ],
      users: [{ name: 'agent', token: 't0ken' }],
      contexts: [{ name: 'ctx', cluster: 'in', user: 'agent' }],
      currentContext: 'ctx',
    });
    overrideServer(kc, 'https://192.0.2.10:6443');
    expect(kc.getCurrentCluster()).toMatchObject({
      name: 'in',
      server: 'https://192.0.2.10:6443',
      caData: 'Q0E=',
    });
    expect(kc.getCluster('other')?.server).toBe('https://other:6443');
    expect(kc.getCurrentUser()?.token).toBe('t0ken');
  });
});
