import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CniConflist } from '@antrea-ts/apis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CniRuntime, cniAdd, cniDel } from './cni-chain.js';

// Fake plugins: each appends "<type> <command> <env> <stdin>" to a journal and answers with a result
// naming itself, so the test sees what libcni semantics the chain runner follows.
let dir: string;
const journal = () =>
  readFileSync(join(dir, 'journal'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; cmd: string; args: string; conf: Record<string, unknown> });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab-cni-chain-'));
  for (const type of ['first', 'second', 'failing']) {
    const script = `#!/bin/sh
conf=$(cat)
printf '{"type":"%s","cmd":"%s","args":"%s","conf":%s}\\n' ${type} "$CNI_COMMAND" "$CNI_ARGS" "$conf" >> ${dir}/journal
${type === 'failing' ? 'echo \'{"code":11,"msg":"try again"}\'; exit 1' : `echo '{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.${type === 'first' ? 1 : 2}/24"}]}'`}
`;
    writeFileSync(join(dir, type), script);
    chmodSync(join(dir, type), 0o755);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rt = (): CniRuntime => ({
  containerId: 'c1',
  netnsPath: '/var/run/netns/x',
  ifName: 'eth0',
  args: [
    ['IgnoreUnknown', '1'],
    ['K8S_POD_NAME', 'p'],
  ],
  capabilityArgs: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
  binDirs: [dir],
});

const list: CniConflist = {
  cniVersion: '1.0.0',
  name: 'net',
  plugins: [
    { type: 'first', ipam: { type: 'host-local' } },
    { type: 'second', capabilities: { portMappings: true, bandwidth: true } },
  ],
};

describe('CNI chain (libcni semantics)', () => {
  it('ADD runs the plugins in order, passing name, version, prevResult and declared capabilities', async () => {
    rmSync(join(dir, 'journal'), { force: true });
    const result = (await cniAdd(list, rt())) as { ips: Array<{ address: string }> };
    expect(result.ips[0]!.address).toBe('10.0.0.2/24');
    const [a, b] = journal();
    expect([a!.type, a!.cmd, b!.type, b!.cmd]).toEqual(['first', 'ADD', 'second', 'ADD']);
    expect(a!.args).toBe('IgnoreUnknown=1;K8S_POD_NAME=p');
    expect(a!.conf).toEqual({
      type: 'first',
      ipam: { type: 'host-local' },
      name: 'net',
      cniVersion: '1.0.0',
    });
    expect(b!.conf['prevResult']).toEqual({ cniVersion: '1.0.0', ips: [{ address: '10.0.0.1/24' }] });
    // Only the capabilities the runtime has arguments for; "capabilities" itself is not passed.
    expect(b!.conf['runtimeConfig']).toEqual({ portMappings: rt().capabilityArgs!['portMappings'] });
    expect(b!.conf['capabilities']).toBeUndefined();
  });

  it('DEL runs them in reverse with the cached result as prevResult', async () => {
    rmSync(join(dir, 'journal'), { force: true });
    await cniDel(list, rt(), { cached: true });
    const [a, b] = journal();
    expect([a!.type, a!.cmd, b!.type, b!.cmd]).toEqual(['second', 'DEL', 'first', 'DEL']);
    expect(b!.conf['prevResult']).toEqual({ cached: true });
  });

  it('stops at a failing plugin with LAB_CNI_FAILED and its error JSON', async () => {
    const failing: CniConflist = {
      ...list,
      plugins: [list.plugins[0]!, { type: 'failing' }, list.plugins[1]!],
    };
    await expect(cniAdd(failing, rt())).rejects.toMatchObject({
      code: 'LAB_CNI_FAILED',
      message: expect.stringContaining('try again'),
    });
    await expect(cniAdd({ ...list, plugins: [{ type: 'missing' }] }, rt())).rejects.toMatchObject({
      code: 'LAB_CNI_FAILED',
    });
  });
});
