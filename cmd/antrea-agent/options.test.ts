import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withConf(yaml: string) {
  const path = join(dir, `conf-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadOptions(['node', 'antrea-agent', '--config', path], { NODE_NAME: 'n1' });
}

describe('antrea-agent options: antreaProxy', () => {
  it('is on with Antrea defaults when the file says nothing', () => {
    expect(withConf('ovsBridge: br-int\n').agent.antreaProxy).toEqual({
      enable: true,
      skipServices: [],
      proxyAll: false,
      serviceProxyName: '',
    });
  });

  it("reads Antrea's antreaProxy keys", () => {
    const o = withConf(
      'antreaProxy:\n  enable: false\n  skipServices: [kube-system/kube-dns, 10.96.0.10]\n  serviceProxyName: mine\n',
    );
    expect(o.agent.antreaProxy).toEqual({
      enable: false,
      skipServices: ['kube-system/kube-dns', '10.96.0.10'],
      proxyAll: false,
      serviceProxyName: 'mine',
    });
  });

  it('refuses proxyAll: true', () => {
    expect(() => withConf('antreaProxy:\n  proxyAll: true\n')).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG_INVALID' }),
    );
  });
});

describe('antrea-agent options: FQDN policies', () => {
  it("reads Antrea's dnsServerOverride and fqdnCacheMinTTL, defaulting to none and 0", () => {
    expect(withConf('ovsBridge: br-int\n').agent).toMatchObject({
      dnsServerOverride: '',
      fqdnCacheMinTTL: 0,
    });
    const o = withConf('dnsServerOverride: 10.96.0.10:53\nfqdnCacheMinTTL: 30\n');
    expect(o.agent).toMatchObject({ dnsServerOverride: '10.96.0.10:53', fqdnCacheMinTTL: 30 });
  });
});
