import { execFileSync } from 'node:child_process';
import { LogRing, SupportBundleState } from '@antrea-ts/apis';
import { ApiError, type ApiRequest, RawResponse, ResourceRegistry } from '@antrea-ts/apiserver';
import { describe, expect, it } from 'vitest';
import { controllerBundleCollector } from './controller-collectors.js';
import { registerSupportBundleResource } from './supportbundle-resource.js';

const TOKEN = 'controller-token-value-0123456789';

function setup() {
  const logs = new LogRing();
  logs.write(`{"level":30,"time":1000,"msg":"old line"}\n`);
  logs.write(`{"level":30,"time":${Date.UTC(2026, 0, 1)},"msg":"using token ${TOKEN}"}\n`);
  const state = new SupportBundleState(
    'controller',
    controllerBundleCollector({
      logs,
      controllerInfo: () => ({ metadata: { name: 'antrea-controller' } }),
      config: () => ({ apiPort: 10349 }),
      connectedAgents: () => ['node-b', 'node-a'],
      networkPolicies: () => [{ name: 'np1', span: new Set(['node-a']) }],
      appliedToGroups: () => [],
      addressGroups: () => [],
      secrets: async () => [TOKEN],
      now: () => new Date(Date.UTC(2026, 0, 1, 0, 30)),
    }),
  );
  const registry = new ResourceRegistry();
  registerSupportBundleResource(registry, state);
  const def = registry.lookup('system.antrea.io', 'v1beta1', 'supportbundles')!;
  const req = (name: string, body?: unknown) => ({ info: { name }, body }) as unknown as ApiRequest;
  return { state, def, req };
}

describe('controller supportbundles resource', () => {
  it('create, get, then download a tar.gz holding the state, with --since and no secret', async () => {
    const { state, def, req } = setup();
    expect(() => def.handler.create!(req('', { metadata: { name: 'agent' } }))).toThrow(ApiError);
    expect(def.handler.create!(req('', { metadata: { name: 'controller' }, since: '1h' }))).toMatchObject({
      status: 'Collecting',
    });
    await state.settled();
    expect(await def.handler.get!(req('controller'))).toMatchObject({ status: 'Collected' });
    await expect(async () => def.handler.get!(req('agent'))).rejects.toThrow(ApiError);
    const download = await def.subresources![0]!.handler.get!(req('controller'));
    expect(download).toBeInstanceOf(RawResponse);
    const raw = download as RawResponse;
    expect(raw.contentType).toBe('application/tar+gz');
    const listing = execFileSync('tar', ['tzf', '-'], { input: raw.body, encoding: 'utf8' });
    expect(listing.split('\n')).toEqual(
      expect.arrayContaining([
        'logs/controller.log',
        'controller/controllerinfo.json',
        'controller/connected-agents.json',
        'controller/process-report.json',
        'networkpolicy/networkpolicies.json',
      ]),
    );
    const log = execFileSync('tar', ['xzOf', '-', 'logs/controller.log'], {
      input: raw.body,
      encoding: 'utf8',
    });
    expect(log).not.toContain('old line');
    expect(log).toContain('using token <redacted>');
    const nps = execFileSync('tar', ['xzOf', '-', 'networkpolicy/networkpolicies.json'], {
      input: raw.body,
      encoding: 'utf8',
    });
    expect(JSON.parse(nps)).toEqual([{ name: 'np1', span: ['node-a'] }]);
    expect(Buffer.from(execFileSync('gzip', ['-dc'], { input: raw.body })).includes(TOKEN)).toBe(false);
  });
});
