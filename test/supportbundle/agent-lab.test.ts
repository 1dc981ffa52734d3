// antctl in agent mode against a real antrea-agent (the built binary, on a lab Node with
// userspace OVS, connected to a real antrea-controller that computed a real K8s NetworkPolicy):
// every endpoint antctl's agent mode reads, then support bundles, in agent mode and from outside
// through the controller, with secrets planted where they would leak and searched for in every
// byte of every archive; SupportBundleCollections uploaded by HTTP PUT and over SFTP to a real
// sshd. Lab instance 21 (lab21-*).
import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { run, startSshd } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antctlIn, extract, findSecrets, LAB_OPTIONS, N1, ROOT } from './lab-support.js';

const exec = promisify(execFile);
let lab: Lab;
let agentAddress: string;
let outDir: string;

/** A private key, an opaque bearer token and a Secret value: none may reach a bundle. */
const PRIVATE_KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7PlantedKeyMaterial';
const PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END PRIVATE KEY-----`;
const BEARER = 'opaque-bearer-f1-7c1d2e3f4a5b6c7d';
const SECRET_VALUE = 'planted-secret-value-f1-93ab71';
const TOKEN_FILE_VALUE = 'planted-token-file-f1-5e6f7a8b9c';

/** antctl as in the agent Pod: the Node's netns, the agent's loopback token. */
const agentCtl = (args: string[]) =>
  antctlIn(lab.node(N1).netns, ['--mode', 'agent', '--agent-address', agentAddress, ...args], {
    ANTCTL_AGENT_TOKEN_FILE: lab.node(N1).apiTokenFile,
  });

/** br-int's flow lines as ovs-ofctl prints them on the Node: the reference antctl is checked against. */
async function ofctlFlows(): Promise<string[]> {
  const { netns, ovsDir } = lab.node(N1);
  const mgmt = `unix:${join(ovsDir, 'br-int.mgmt')}`;
  const text = await run([
    'ip',
    'netns',
    'exec',
    netns,
    'ovs-ofctl',
    '--no-stats',
    '-O',
    'OpenFlow15',
    'dump-flows',
    mgmt,
  ]);
  return text.split('\n').filter((line) => line.includes('cookie='));
}

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('antctl agent mode and support bundles on a real agent', () => {
  let agentToken: string;
  let policyUid: string;

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      { cwd: ROOT },
    );
    await Lab.down(LAB_OPTIONS);
    lab = await Lab.up({ ...LAB_OPTIONS, nodes: 1 });
    const node = lab.node(N1);
    agentAddress = `https://127.0.0.1:${node.apiPort}`;
    outDir = await mkdtemp(join(tmpdir(), 'antrea-ts-f1-bundles-'));

    // Secrets where they would leak: key material in the agent's configuration file, credentials
    // in log lines of a bundled log directory, a token file there, a Secret in the cluster.
    const nodeDir = join(LAB_OPTIONS.stateDir, 'nodes', N1);
    agentToken = /token: (\S+)/.exec(await readFile(join(nodeDir, 'kubeconfig'), 'utf8'))?.[1] ?? '';
    await appendFile(
      join(nodeDir, 'antrea-agent.conf'),
      `\n# TLS material for a future option, kept as a comment by the operator:\n# tlsPrivateKey: |\n${PRIVATE_KEY.split(
        '\n',
      )
        .map((l) => `#   ${l}`)
        .join('\n')}\n`,
    );
    await mkdir(join(nodeDir, 'networkpolicy'), { recursive: true });
    await writeFile(
      join(nodeDir, 'networkpolicy', 'debug.log'),
      [
        `I1121 12:00:00 client.go:1] request headers: Authorization: Bearer ${BEARER}`,
        `I1121 12:00:01 client.go:2] loaded key ${PRIVATE_KEY.replaceAll('\n', '\\n')}`,
        `I1121 12:00:02 client.go:3] rotated credentials, new token=${agentToken}`,
        `I1121 12:00:03 client.go:4] ${agentToken}`,
        '',
      ].join('\n'),
    );
    await writeFile(join(nodeDir, 'networkpolicy', 'token'), agentToken);
    await lab.kubectl([
      'create',
      'secret',
      'generic',
      'f1-planted',
      '-n',
      'kube-system',
      `--from-literal=password=${SECRET_VALUE}`,
      `--from-literal=token=${TOKEN_FILE_VALUE}`,
    ]);
    await lab.restart(`antrea-agent@${N1}`);

    const ports = [{ port: 80, protocol: 'TCP' as const }];
    await Promise.all([
      lab.createPod({ namespace: 'sb', name: 'client', node: N1, labels: { app: 'client' }, ports }),
      lab.createPod({ namespace: 'sb', name: 'server', node: N1, labels: { app: 'server' }, ports }),
    ]);
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'server-ingress', namespace: 'sb' },
        spec: {
          podSelector: { matchLabels: { app: 'server' } },
          policyTypes: ['Ingress'],
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 80 }] }],
        },
      }),
    });
    policyUid = JSON.parse(
      await lab.kubectl(['get', 'networkpolicy', '-n', 'sb', 'server-ingress', '-o', 'json']),
    ).metadata.uid;
    // Realized: the conjunction's action flow is on the bridge.
    const realized = await waitFor(async () =>
      (await ofctlFlows()).some((l) => l.includes('conj_id=')) ? true : undefined,
    );
    expect(realized).toBe(true);
  }, 600_000);

  afterAll(async () => {
    await lab?.down();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  }, 300_000);

  it('get agentinfo and podinterface', async () => {
    const ai = await agentCtl(['get', 'agentinfo', '-o', 'json']);
    expect(ai.code).toBe(0);
    expect(JSON.parse(ai.out)).toMatchObject({ nodeRef: { name: N1 }, localPodNum: 2 });
    const pi = await agentCtl(['get', 'podinterface', 'server', '-n', 'sb', '-o', 'json']);
    const [server] = JSON.parse(pi.out) as { name: string; ips: string[]; ofPort: number }[];
    expect(server).toMatchObject({ name: 'server', ips: lab.pod('sb', 'server').ips });
    expect(server?.ofPort).toBeGreaterThan(0);
  });

  it('get networkpolicy with name, source, type and Pod filters', async () => {
    const all = await agentCtl(['get', 'netpol']);
    expect(all.code).toBe(0);
    expect(all.out.split('\n')[0]).toMatch(/^NAME +APPLIED-TO +RULES +SOURCE/);
    expect(all.out).toContain(`${policyUid}`);
    expect(all.out).toContain('K8sNetworkPolicy:sb/server-ingress');
    const one = JSON.parse((await agentCtl(['get', 'netpol', policyUid, '-o', 'json'])).out);
    expect(one).toMatchObject([{ metadata: { name: policyUid }, sourceRef: { name: 'server-ingress' } }]);
    const onServer = JSON.parse((await agentCtl(['get', 'netpol', '-p', 'sb/server', '-o', 'json'])).out);
    expect(onServer.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual([policyUid]);
    expect(JSON.parse((await agentCtl(['get', 'netpol', '-p', 'sb/client', '-o', 'json'])).out)).toEqual([]);
    expect(
      JSON.parse((await agentCtl(['get', 'netpol', '-S', 'server-ingress', '-n', 'sb', '-o', 'json'])).out),
    ).toHaveLength(1);
    expect(JSON.parse((await agentCtl(['get', 'netpol', '-T', 'ACNP', '-o', 'json'])).out)).toEqual([]);
    const missing = await agentCtl(['get', 'netpol', 'no-such-policy']);
    expect(missing.code).toBe(1);
  });

  it('get appliedtogroup and addressgroup show the Pods with their IPs', async () => {
    const atg = await agentCtl(['get', 'atg']);
    expect(atg.code).toBe(0);
    expect(atg.out).toContain('sb/server');
    expect(atg.out).not.toContain('sb/client');
    const ag = await agentCtl(['get', 'ag', '-o', 'json']);
    const groups = JSON.parse(ag.out) as { pods?: { pod: { name: string }; ip: string }[] }[];
    expect(groups.flatMap((g) => g.pods ?? []).map((p) => [p.pod.name, p.ip])).toEqual([
      ['client', lab.pod('sb', 'client').ips[0]],
    ]);
  });

  it('get featuregates reports what this agent runs', async () => {
    const fg = await agentCtl(['get', 'featuregates']);
    expect(fg.code).toBe(0);
    expect(fg.out.split('\n')[0]).toBe('Antrea Agent Feature Gates');
    expect(fg.out).toMatch(/AntreaPolicy +Enabled +BETA/);
    expect(fg.out).toMatch(/AntreaProxy +Enabled +GA/);
  });

  it('log-level shows and sets the verbosity, and debug lines appear once raised', async () => {
    expect((await agentCtl(['log-level'])).out).toBe('0\n');
    expect((await agentCtl(['log-level', '4'])).out).toBe('4\n');
    expect((await agentCtl(['log-level'])).out).toBe('4\n');
    // A Pod ADD at trace level logs below info; the lab keeps the agent's stdout in its log file.
    await lab.createPod({ namespace: 'sb', name: 'late', node: N1, labels: { app: 'late' }, ports: [] });
    const log = join(LAB_OPTIONS.stateDir, 'logs', `${N1}-antrea-agent.log`);
    const debug = await waitFor(async () =>
      (await readFile(log, 'utf8')).split('\n').some((l) => /"level":(10|20),/.test(l)) ? true : undefined,
    );
    expect(debug).toBe(true);
    expect((await agentCtl(['log-level', '0'])).out).toBe('0\n');
    expect((await agentCtl(['log-level', 'x'])).code).toBe(2);
  });

  it('get ovsflows by table, by Pod and by NetworkPolicy', async () => {
    const flows = await ofctlFlows();
    const byTable = await agentCtl(['get', 'of', '-T', 'IngressRule']);
    expect(byTable.code).toBe(0);
    const tableLines = byTable.out.split('\n').filter((l) => l.includes('table='));
    expect(tableLines.length).toBeGreaterThan(0);
    expect(new Set(tableLines.map((l) => /table=(\d+)/.exec(l)?.[1])).size).toBe(1);

    // The Pod's own flows (spoof guard, L2/L3 forwarding, output): each names its ofport, IP or
    // MAC, and none is another Pod's.
    const [pi] = JSON.parse((await agentCtl(['get', 'pi', 'server', '-n', 'sb', '-o', 'json'])).out) as {
      ofPort: number;
      mac: string;
      ips: string[];
    }[];
    const podLines = (await agentCtl(['get', 'of', '-p', 'server', '-n', 'sb'])).out
      .split('\n')
      .filter((l) => l.includes('table='));
    expect(podLines.length).toBeGreaterThan(2);
    const own = [pi!.ips[0]!, pi!.mac, `in_port=${pi!.ofPort}`, `0x${pi!.ofPort.toString(16)}`];
    for (const l of podLines)
      expect(
        own.some((x) => l.includes(x)),
        l,
      ).toBe(true);
    expect(podLines.some((l) => l.includes(lab.pod('sb', 'client').ips[0]!))).toBe(false);

    const policyLines = (
      await agentCtl(['get', 'of', '-N', 'server-ingress', '-n', 'sb', '--type', 'K8sNP'])
    ).out
      .split('\n')
      .filter((l) => l.includes('table='));
    // Every conjunction flow on the bridge belongs to the one policy: same count as ovs-ofctl.
    const conjOnBridge = flows.filter((l) => /conjunction\(|conj_id=/.test(l)).length;
    expect(conjOnBridge).toBeGreaterThan(0);
    expect(policyLines).toHaveLength(conjOnBridge);
    expect((await agentCtl(['get', 'of', '-N', 'nope', '-n', 'sb'])).code).toBe(1);
    expect((await agentCtl(['get', 'of', '-T', 'NoSuchTable'])).err).toContain('unknown table NoSuchTable');
  });

  it('supportbundle in agent mode writes the agent archive with the agent state, and no secret', async () => {
    const dir = join(outDir, 'agent-mode');
    const r = await agentCtl(['supportbundle', '-d', dir]);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^Collected .*agent\.tar\.gz\nExpire time: \d{4}-\d\d-\d\dT/);
    const archive = join(dir, 'agent.tar.gz');
    const files = await extract(archive);
    const text = (name: string) => files.get(name)?.toString('utf8') ?? '';
    for (const name of [
      'logs/agent.log',
      'logs/networkpolicy/debug.log',
      'ovs/flows.txt',
      'ovs/ovsdb-dump.json',
      'ovs/ovs-vsctl-show.txt',
      'host-network/addresses.txt',
      'host-network/routes.txt',
      'host-network/iptables-save.txt',
      'agent/agentinfo.json',
      'agent/podinterfaces.json',
      'agent/config.json',
      'agent/antrea-agent.conf',
      'agent/process-report.json',
      'networkpolicy/networkpolicies.json',
      'networkpolicy/realized-rules.json',
    ]) {
      expect(files.has(name), name).toBe(true);
    }
    expect(text('ovs/flows.txt')).toMatch(/conj_id=\d+/);
    expect(text('ovs/ovs-vsctl-show.txt')).toMatch(
      /Bridge br-int\n[\s\S]*Port antrea-gw0\n\s+Interface antrea-gw0\n\s+type: internal/,
    );
    expect(text('host-network/addresses.txt')).toContain('antrea-gw0');
    expect(text('host-network/iptables-save.txt')).toContain('ANTREA-POSTROUTING');
    expect(text('networkpolicy/networkpolicies.json')).toContain(policyUid);
    expect(
      JSON.parse(text('agent/podinterfaces.json'))
        .map((p: { podName: string }) => p.podName)
        .sort(),
    ).toEqual(['client', 'late', 'server']);
    expect(text('logs/agent.log')).toContain('agent ready');
    expect(text('agent/antrea-agent.conf')).toContain('<redacted>');
    expect(text('logs/networkpolicy/debug.log')).toContain('Authorization: Bearer <redacted>');
    expect(
      await findSecrets(archive, [agentToken, PRIVATE_KEY_BODY, BEARER, SECRET_VALUE, TOKEN_FILE_VALUE]),
    ).toEqual([]);
  });

  it('supportbundle from outside: the controller archive through the aggregator, and no secret', async () => {
    const dir = join(outDir, 'controller-mode');
    const kubeconfig = join(LAB_OPTIONS.stateDir, 'kubeconfig');
    const r = await antctlIn(undefined, ['supportbundle', '--controller-only', '-d', dir], {
      KUBECONFIG: kubeconfig,
    });
    expect(r.err).toBe('');
    expect(r.out).toContain(`Collected ${join(dir, 'controller.tar.gz')}`);
    const archive = join(dir, 'controller.tar.gz');
    const files = await extract(archive);
    const text = (name: string) => files.get(name)?.toString('utf8') ?? '';
    expect(text('logs/controller.log')).toContain('antrea-controller started');
    expect(JSON.parse(text('controller/controllerinfo.json'))).toMatchObject({
      metadata: { name: 'antrea-controller' },
    });
    expect(JSON.parse(text('controller/connected-agents.json'))).toEqual([N1]);
    expect(text('networkpolicy/networkpolicies.json')).toContain(policyUid);
    expect(files.has('controller/process-report.json')).toBe(true);
    // clusterinfo (antctl's own file) lists Pods and Nodes, never Secrets.
    const clusterinfo = await readFile(join(dir, 'clusterinfo'), 'utf8');
    expect(clusterinfo).toContain('#pods');
    const controllerToken =
      /token: (\S+)/.exec(
        await readFile(join(LAB_OPTIONS.stateDir, 'antrea-controller.kubeconfig'), 'utf8'),
      )?.[1] ?? '';
    const admin = await readFile(kubeconfig, 'utf8');
    const adminKey = /client-key-data: (\S+)/.exec(admin)?.[1] ?? /token: (\S+)/.exec(admin)?.[1] ?? '';
    expect(controllerToken.length).toBeGreaterThan(16);
    expect(adminKey.length).toBeGreaterThan(16);
    const secrets = [
      controllerToken,
      adminKey,
      agentToken,
      PRIVATE_KEY_BODY,
      BEARER,
      SECRET_VALUE,
      TOKEN_FILE_VALUE,
    ];
    expect(await findSecrets(archive, secrets)).toEqual([]);
    expect(Buffer.from(clusterinfo).includes(Buffer.from(SECRET_VALUE))).toBe(false);
  });

  it("supportbundle from outside collects the agent's archive over HTTPS: apiCABundle verified, antctl's ServiceAccount authorized", async () => {
    const dir = join(outDir, 'controller-mode-agent');
    const kubeconfig = join(LAB_OPTIONS.stateDir, 'kubeconfig');
    // No --insecure: antctl dials the Node IP and verifies the agent against AntreaAgentInfo.apiCABundle.
    const r = await antctlIn(undefined, ['supportbundle', N1, '-d', dir], { KUBECONFIG: kubeconfig });
    expect(r.err).toBe('');
    const archive = join(dir, `agent_${N1}.tar.gz`);
    expect(r.out).toContain(`Collected ${archive}`);
    const files = await extract(archive);
    expect(files.get('ovs/flows.txt')?.toString()).toMatch(/conj_id=\d+/);
    expect(JSON.parse(files.get('agent/agentinfo.json')?.toString() ?? '{}')).toMatchObject({
      metadata: { name: N1 },
    });
    expect(
      await findSecrets(archive, [agentToken, PRIVATE_KEY_BODY, BEARER, SECRET_VALUE, TOKEN_FILE_VALUE]),
    ).toEqual([]);

    // Without the antctl ServiceAccount's grant the agent refuses the same token (SubjectAccessReview).
    await lab.kubectl(['delete', 'clusterrolebinding', 'antctl']);
    // The agent keeps a grant for 10 s (kube's webhook authorizer default): wait it out.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    try {
      const denied = await antctlIn(undefined, ['supportbundle', N1, '-d', join(outDir, 'denied')], {
        KUBECONFIG: kubeconfig,
      });
      expect(denied.code).not.toBe(0);
      expect(denied.err).toMatch(/403|[Ff]orbidden/);
    } finally {
      await lab.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'antctl', labels: { app: 'antrea' } },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'antctl' },
          subjects: [{ kind: 'ServiceAccount', name: 'antctl', namespace: 'kube-system' }],
        }),
      });
    }
  });

  it('SupportBundleCollection: the controller picks the Node, the agent uploads by HTTP PUT with the token of the Secret and over SFTP to a real sshd with the pinned host key and password, status completes', async () => {
    const uploads: { url: string; auth: string; body: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        uploads.push({
          url: req.url ?? '',
          auth: req.headers.authorization ?? '',
          body: Buffer.concat(chunks),
        });
        res.end();
      });
    });
    const host = lab.node(N1).nodeIp.replace(/\.\d+$/, '.1');
    await new Promise<void>((r) => server.listen(0, host, r));
    const port = (server.address() as AddressInfo).port;
    const uploadToken = 'upload-token-f1-0f9e8d7c6b5a';
    // The SFTP server where the Node reaches the host, as a file server outside the cluster.
    const sshd = await startSshd({ host });
    const sftpDir = sshd.userDir('upload');
    try {
      await lab.kubectl([
        'create',
        'secret',
        'generic',
        'f1-upload',
        '-n',
        'kube-system',
        `--from-literal=token=${uploadToken}`,
      ]);
      await lab.kubectl([
        'create',
        'secret',
        'generic',
        'f1-sftp-login',
        '-n',
        'kube-system',
        `--from-literal=username=${sshd.user}`,
        `--from-literal=password=${sshd.password}`,
      ]);
      const collection = (name: string, url: string, sftp = false) => ({
        apiVersion: 'crd.antrea.io/v1alpha1',
        kind: 'SupportBundleCollection',
        metadata: { name },
        spec: {
          nodes: { nodeNames: [N1] },
          expirationMinutes: 10,
          sinceTime: '1h',
          fileServer: { url, ...(sftp ? { hostPublicKey: sshd.hostPublicKey } : {}) },
          authentication: sftp
            ? {
                authType: 'BasicAuthentication',
                authSecret: { name: 'f1-sftp-login', namespace: 'kube-system' },
              }
            : {
                authType: 'BearerToken',
                authSecret: { name: 'f1-upload', namespace: 'kube-system' },
              },
        },
      });
      await lab.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            collection('f1-http', `http://${host}:${port}/bundles`),
            collection('f1-sftp', `sftp://${host}:${sshd.port}${sftpDir}`, true),
          ],
        }),
      });
      const status = async (name: string) =>
        JSON.parse(await lab.kubectl(['get', 'supportbundlecollection', name, '-o', 'json'])).status as
          | {
              collectedNodes?: number;
              desiredNodes?: number;
              conditions?: { type: string; status: string; message?: string }[];
            }
          | undefined;
      const isDone = (s: Awaited<ReturnType<typeof status>>) =>
        s?.conditions?.some((c) => c.type === 'Completed' && c.status === 'True') ? s : undefined;
      const http = await waitFor(async () => isDone(await status('f1-http')), 60_000);
      expect(http).toMatchObject({ collectedNodes: 1, desiredNodes: 1 });
      expect(http?.conditions?.find((c) => c.type === 'CollectionFailure')?.status).toBe('False');
      const sftp = await waitFor(async () => isDone(await status('f1-sftp')), 60_000);
      expect(sftp).toMatchObject({ collectedNodes: 1, desiredNodes: 1 });
      expect(sftp?.conditions?.find((c) => c.type === 'CollectionFailure')?.status).toBe('False');

      expect(uploads.map((u) => [u.url, u.auth])).toEqual([
        [`/bundles/${N1}_f1-http.tar.gz`, `Bearer ${uploadToken}`],
      ]);
      const archive = join(outDir, 'collection.tar.gz');
      await writeFile(archive, uploads[0]!.body);
      const files = await extract(archive);
      expect(files.get('ovs/flows.txt')?.toString()).toMatch(/conj_id=\d+/);
      const secrets = [uploadToken, agentToken, PRIVATE_KEY_BODY, BEARER, SECRET_VALUE, TOKEN_FILE_VALUE];
      expect(await findSecrets(archive, secrets)).toEqual([]);
      // The SFTP upload: the whole bundle, written by the agent process in the Node's netns.
      const sftpArchive = join(sftpDir, `${N1}_f1-sftp.tar.gz`);
      expect((await extract(sftpArchive)).get('ovs/flows.txt')?.toString()).toMatch(/conj_id=\d+/);
      expect(await findSecrets(sftpArchive, [...secrets, sshd.password])).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
      await sshd.stop();
    }
  });
});
