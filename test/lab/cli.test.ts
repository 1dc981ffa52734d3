// The lab CLI as a user runs it (`npm run lab -- ...` runs dist/cmd/lab/main.js): up with the demo
// and its matrix, kubectl with the printed kubeconfig, Pods made and probed from the command line,
// status, down. Instance 9 (lab9-*, lb9*, 198.19.9.0/24) keeps it apart from a developer's lab.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cachedBinDir, run } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STATE_DIR = '/var/run/antrea-ts-lab-test-9';
const exec = promisify(execFile);

async function lab(...args: string[]): Promise<string> {
  const { stdout } = await exec(
    process.execPath,
    [`${ROOT}dist/cmd/lab/main.js`, `--state-dir=${STATE_DIR}`, '--instance=9', ...args],
    { cwd: ROOT, timeout: 240_000 },
  );
  return stdout;
}

describe('lab CLI', () => {
  let upOutput: string;

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/lab'],
      { cwd: ROOT },
    );
    await lab('down');
    upOutput = await lab('up', '--nodes', '2');
  });

  afterAll(async () => {
    await lab('down');
  });

  it('up starts the Nodes, deploys the demo and prints its matrix of real probes', () => {
    expect(upOutput).toMatch(/Lab up in [\d.]+ s: 2 Nodes/);
    expect(upOutput).toContain('lab9-node-1  198.19.9.11');
    expect(upOutput).toContain('lab9-node-2  198.19.9.12');
    // Seven probed cells, each marked against what the policies say; the cells no policy
    // touches are allowed whatever the agent enforces.
    expect(upOutput.match(/(allow|drop|reject|error) [✓✗]/g)).toHaveLength(7);
    expect(upOutput).toMatch(/prod\/tester \(lab9-node-1\)\s+allow ✓/);
    expect(upOutput).toMatch(/\d\/7 probes as the policies say|All 7 probes as the policies say/);
  });

  it('prints a kubeconfig that kubectl uses', async () => {
    const kubeconfig = (await lab('kubeconfig')).trim();
    expect(existsSync(kubeconfig)).toBe(true);
    const pods = await run([
      `${cachedBinDir()}/kubectl`,
      `--kubeconfig=${kubeconfig}`,
      'get',
      'pods',
      '-A',
      '--no-headers',
    ]);
    const lines = pods.trim().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).toMatch(/\s1\/1\s+Running\s/);
  });

  it('creates a Pod, runs commands in it, probes it from another Pod, deletes it', async () => {
    const created = await lab(
      'pod',
      'create',
      't/p',
      '--node',
      'lab9-node-2',
      '--ports',
      '8080/TCP',
      '--labels',
      'app=p',
    );
    const ip = /: (10\.244\.\d+\.\d+)/.exec(created)?.[1];
    expect(ip).toBeDefined();
    expect(await lab('exec', 't/p', '--', 'ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0')).toContain(
      `${ip}/24`,
    );
    const probe = await lab(
      'exec',
      'prod/web',
      '--',
      process.execPath,
      `${ROOT}e2e/framework/agent-tools/probe.mjs`,
      `tcp:${ip}:8080`,
    );
    expect(JSON.parse(probe)).toMatchObject({ result: 'allow' });
    expect(await lab('pod', 'list')).toContain('t/p');
    await lab('pod', 'delete', 't/p');
    expect(await lab('pod', 'list')).not.toContain('t/p');
  });

  it('reports status as JSON: every component running, agents ready, log dir, the dashboard', async () => {
    const status = JSON.parse(await lab('status', '--json')) as {
      phase: string;
      logDir: string;
      controller: { dashboard: string };
      components: Array<{ name: string; running: boolean }>;
      nodes: Array<{ agentReady: boolean }>;
      versions: Record<string, string>;
    };
    expect(status.phase).toBe('up');
    expect(status.logDir).toBe(`${STATE_DIR}/logs`);
    expect(status.components.filter((c) => !c.running)).toEqual([]);
    expect(status.nodes.every((n) => n.agentReady)).toBe(true);
    expect(Object.keys(status.versions)).toEqual(expect.arrayContaining(['kube-apiserver', 'openvswitch']));
    const page = await fetch(status.controller.dashboard);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Cluster health</h1>');
  });

  it('down removes the lab, and reading commands then say there is none', async () => {
    expect(await lab('down')).toContain('Lab removed.');
    expect(existsSync(STATE_DIR)).toBe(false);
    expect((await run(['ip', 'netns', 'list'])).split('\n').filter((l) => l.startsWith('lab9-'))).toEqual([]);
    await expect(lab('status')).rejects.toMatchObject({ stderr: expect.stringContaining('LAB_NOT_UP') });
    expect(existsSync(STATE_DIR)).toBe(false);
  });
});
