// `antctl supportbundle` (Antrea's pkg/antctl/raw/supportbundle): asks the controller and the
// agents to collect a bundle through system.antrea.io/v1beta1 supportbundles, waits until each is
// "Collected", and downloads each as a tar.gz into one directory, next to a "clusterinfo" file of
// cluster objects. Secrets are never fetched: clusterinfo reads only the kinds listed below.
import { join } from 'node:path';
import type { AntreaAgentInfo } from '@antrea-ts/apis';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { type ApiClient, HttpApiClient } from '../client/api-client.js';
import { getJson, send } from '../client/connections.js';
import type { Route } from '../client/failures.js';
import { type AntctlDeps, type RunContext, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { SYSTEM } from './common.js';

const POLL_MS = 500;
const BUNDLE_TIMEOUT_MS = 5 * 60_000;

/** The only objects clusterinfo holds (Antrea's list); no Secrets, ever. */
export const CLUSTERINFO_SOURCES: readonly { comment: string; path: string }[] = [
  { comment: 'pods', path: '/api/v1/pods' },
  { comment: 'nodes', path: '/api/v1/nodes' },
  { comment: 'deployments', path: '/apis/apps/v1/deployments' },
  { comment: 'replicas', path: '/apis/apps/v1/replicasets' },
  { comment: 'daemonsets', path: '/apis/apps/v1/daemonsets' },
];
export const CLUSTERINFO_CONFIGMAPS = [
  'antrea-config',
  'antrea-ca',
  'antrea-ipsec-ca',
  'antrea-cluster-identity',
];

interface SupportBundleOpts {
  dir?: string;
  labelSelector?: string;
  controllerOnly?: boolean;
  nodeListFile?: string;
  since?: string;
  insecure?: boolean;
}

/** Antrea's timeFormat 20060102T150405Z0700, in UTC. */
function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** Shell-style * and ? wildcards on Node names (filepath.Match without classes). */
export function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
  return re.test(name);
}

interface Target {
  /** "" for the controller. */
  readonly node: string;
  readonly component: 'controller' | 'agent';
  readonly client: ApiClient;
  readonly route: Route;
}

/** Requests, waits for and downloads one bundle; returns the file written and when the server forgets it. */
async function collect(
  ctx: RunContext,
  t: Target,
  dir: string,
  since: string | undefined,
): Promise<{ file: string; expires: string }> {
  const base = `${SYSTEM}/supportbundles`;
  const fctx = (subject: string) => ({ route: t.route, target: t.client.target, subject });
  await send(
    t.client,
    {
      method: 'POST',
      path: base,
      body: {
        apiVersion: 'system.antrea.io/v1beta1',
        kind: 'SupportBundle',
        metadata: { name: t.component },
        ...(since ? { since } : {}),
      },
    },
    fctx(`supportbundle "${t.component}"`),
  );
  const deadline = ctx.deps.now().getTime() + BUNDLE_TIMEOUT_MS;
  let expires = '';
  for (;;) {
    await ctx.deps.sleep(POLL_MS);
    const sb = await getJson<{ status?: string; metadata?: { deletionTimestamp?: string } }>(
      t.client,
      { path: `${base}/${t.component}` },
      fctx(`supportbundle "${t.component}"`),
    );
    if (sb.status === 'Collected') {
      expires = sb.metadata?.deletionTimestamp ?? '';
      break;
    }
    if (ctx.deps.now().getTime() > deadline) {
      throw new AntctlError(
        'ANTCTL_TIMEOUT',
        `the ${t.component} bundle${t.node ? ` of Node ${t.node}` : ''} was not collected within 5 minutes`,
      );
    }
  }
  const res = await send(
    t.client,
    { path: `${base}/${t.component}/download`, accept: 'application/tar+gzip, */*' },
    fctx(`supportbundle "${t.component}" download`),
  );
  const file = join(dir, t.node ? `${t.component}_${t.node}.tar.gz` : `${t.component}.tar.gz`);
  try {
    ctx.deps.writeFile(file, res.body);
  } catch (err) {
    throw new AntctlError('ANTCTL_LOCAL_IO', `cannot write ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { file, expires };
}

async function clusterInfo(kube: ApiClient): Promise<string> {
  const route: Route = { kind: 'kube' };
  let out = '';
  const dump = (comment: string, objects: unknown[]) => {
    out += `#${comment}\n`;
    for (const o of objects) out += `${stringify(o, { lineWidth: 0 })}---\n`;
  };
  for (const s of CLUSTERINFO_SOURCES) {
    const list = await getJson<{ items?: unknown[] }>(
      kube,
      { path: s.path, query: { resourceVersion: '0' } },
      { route, target: kube.target, subject: s.comment },
    );
    dump(s.comment, list.items ?? []);
  }
  const cms: unknown[] = [];
  for (const name of CLUSTERINFO_CONFIGMAPS) {
    try {
      cms.push(
        await getJson(
          kube,
          { path: `/api/v1/namespaces/kube-system/configmaps/${name}` },
          { route, target: kube.target, subject: `configmap ${name}`, name },
        ),
      );
    } catch (err) {
      if (!(AntctlError.is(err) && err.status === 404)) throw err;
    }
  }
  dump('configs', cms);
  return out;
}

/**
 * A client for one agent's API at its Node IP and the port it reports, authenticated with a
 * short-lived token of the "antctl" ServiceAccount rather than the caller's credentials (the
 * endpoint is self-reported by the agent, as Antrea reasons).
 */
async function agentTarget(
  ctx: RunContext,
  node: { metadata: { name: string }; status?: { addresses?: { type: string; address: string }[] } },
  info: AntreaAgentInfo,
  token: string,
  insecure: boolean,
): Promise<Target> {
  const addrs = node.status?.addresses ?? [];
  const ip =
    addrs.find((a) => a.type === 'ExternalIP')?.address ??
    addrs.find((a) => a.type === 'InternalIP')?.address;
  if (!ip) throw new AntctlError('ANTCTL_BAD_RESPONSE', `Node ${node.metadata.name} has no IP address`);
  const tls: { ca?: string; rejectUnauthorized: boolean; servername?: string } = {
    rejectUnauthorized: !insecure,
  };
  if (!insecure) {
    if (!info.apiCABundle) {
      throw new AntctlError(
        'ANTCTL_BAD_RESPONSE',
        `the agent on Node ${node.metadata.name} publishes no API certificate (AntreaAgentInfo.apiCABundle): run the command again with --insecure`,
      );
    }
    tls.ca = Buffer.from(info.apiCABundle, 'base64').toString('utf8');
    // The agent's self-signed certificate is only valid for localhost / 127.0.0.1.
    tls.servername = 'localhost';
  }
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return {
    node: node.metadata.name,
    component: 'agent',
    client: new HttpApiClient({
      baseUrl: `https://${host}:${info.apiPort ?? 10350}`,
      tls,
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: ctx.globals.timeout ?? 0,
    }),
    route: { kind: 'agent' },
  };
}

async function remote(ctx: RunContext, nodeArgs: string[], o: SupportBundleOpts): Promise<void> {
  const dir = o.dir ?? `support-bundles_${stamp(ctx.deps.now())}`;
  const kube = await ctx.conn.kube();
  ctx.deps.writeFile(join(dir, 'clusterinfo'), await clusterInfo(kube));

  const jobs: { node: string; run: () => Promise<string> }[] = [];
  const wantController = (nodeArgs.length === 0 && !o.nodeListFile && !o.labelSelector) || !!o.controllerOnly;
  if (wantController) {
    const { client, route } = await ctx.conn.controller();
    const t: Target = {
      node: '',
      component: 'controller',
      client,
      route:
        route.kind === 'aggregated' ? { kind: 'aggregated', apiService: 'v1beta1.system.antrea.io' } : route,
    };
    jobs.push({ node: '', run: async () => (await collect(ctx, t, dir, o.since)).file });
  }
  if (!o.controllerOnly) {
    let names: string[] | undefined;
    let filter = '*';
    if (nodeArgs.length === 1) filter = nodeArgs[0] as string;
    else if (nodeArgs.length > 1) names = nodeArgs;
    else if (o.nodeListFile) {
      names = ctx.deps
        .readFile(o.nodeListFile)
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
    }
    const infos = await getJson<{ items?: AntreaAgentInfo[] }>(
      kube,
      { path: '/apis/crd.antrea.io/v1beta1/antreaagentinfos' },
      { route: { kind: 'kube' }, target: kube.target, subject: 'antreaagentinfos' },
    );
    const nodes = await getJson<{
      items?: { metadata: { name: string }; status?: { addresses?: { type: string; address: string }[] } }[];
    }>(
      kube,
      { path: '/api/v1/nodes', query: { labelSelector: o.labelSelector } },
      { route: { kind: 'kube' }, target: kube.target, subject: 'nodes' },
    );
    const byNode = new Map((infos.items ?? []).map((i) => [i.nodeRef?.name ?? i.metadata.name, i]));
    const picked = (nodes.items ?? []).filter(
      (n) =>
        byNode.has(n.metadata.name) &&
        (names ? names.includes(n.metadata.name) : globMatch(filter, n.metadata.name)),
    );
    // One token for all agents, asked for once and only if some agent is picked; a failure
    // fails those agents' bundles, not the controller's.
    let token: Promise<string> | undefined;
    const getToken = () => {
      token ??= getJson<{ status?: { token?: string } }>(
        kube,
        {
          method: 'POST',
          path: '/api/v1/namespaces/kube-system/serviceaccounts/antctl/token',
          body: {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: { expirationSeconds: 600 },
          },
        },
        {
          route: { kind: 'kube' },
          target: kube.target,
          subject: 'a token for ServiceAccount kube-system/antctl',
        },
      ).then((t) => t.status?.token ?? '');
      return token;
    };
    for (const n of picked) {
      jobs.push({
        node: n.metadata.name,
        run: async () => {
          const target = await agentTarget(
            ctx,
            n,
            byNode.get(n.metadata.name) as AntreaAgentInfo,
            await getToken(),
            !!o.insecure,
          );
          return (await collect(ctx, target, dir, o.since)).file;
        },
      });
    }
  }
  if (jobs.length === 0)
    throw new AntctlError('ANTCTL_USAGE', 'no matched Nodes found to collect agent bundles');

  const results = await Promise.allSettled(jobs.map((j) => j.run()));
  const failed: string[] = [];
  results.forEach((r, i) => {
    const t = jobs[i] as { node: string };
    if (r.status === 'fulfilled') ctx.out(`Collected ${r.value}\n`);
    else {
      const who = t.node === '' ? 'controller' : `agent on Node ${t.node}`;
      ctx.deps.stderr.write(`Failed to collect the bundle of the ${who}: ${(r.reason as Error).message}\n`);
      if (t.node !== '') failed.push(t.node);
    }
  });
  if (failed.length > 0) ctx.deps.writeFile(join(dir, 'failed_nodes'), `${failed.join('\n')}\n`);
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  if (ok === 0)
    throw new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `no support bundle could be collected (see the messages above); partial output is in ${dir}`,
    );
  ctx.out(`Support bundles written to ${dir}\n`);
}

/**
 * In an Antrea Pod: the local API server collects its own bundle, which is downloaded into the
 * directory (Antrea leaves it in the Pod's temp dir; fetching it saves a `kubectl cp`).
 */
async function local(ctx: RunContext, o: SupportBundleOpts): Promise<void> {
  const component = ctx.mode.mode;
  const target: Target =
    component === 'agent'
      ? { node: '', component, client: await ctx.conn.agent(), route: { kind: 'agent' } }
      : { node: '', component, client: await ctx.conn.controllerDirect(), route: { kind: 'controller' } };
  const dir = o.dir ?? `support-bundles_${stamp(ctx.deps.now())}`;
  const { file, expires } = await collect(ctx, target, dir, o.since);
  ctx.out(`Collected ${file}\nExpire time: ${expires}\n`);
}

export function addSupportBundleCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('supportbundle')
    .summary('Generate support bundle')
    .description(
      'Generate support bundles for the cluster, which include: information about each Antrea agent, information about the Antrea controller and general information about the cluster. Inside an Antrea Pod: the bundle of that component only.',
    )
    .argument(
      '[nodeName...]',
      'Nodes whose agent bundles to collect (one name with * wildcards, or several exact names)',
    )
    .option('-d, --dir <dir>', "support bundles output dir, the path will be created if it doesn't exist")
    .option('-l, --label-selector <selector>', 'selector (label query) to filter Nodes for agent bundles')
    .option('--controller-only', 'only collect the support bundle of Antrea controller')
    .option(
      '-f, --node-list-file <file>',
      'only collect the support bundle of specific nodes filtered by names in a file (one node name per line)',
    )
    .option(
      '--since <duration>',
      'only return logs newer than a relative duration like 5s, 2m or 3h. Defaults to all logs',
    )
    .option('--insecure', 'Skip TLS verification when connecting to Antrea API.')
    .action(async (nodes: string[], opts: SupportBundleOpts, cmd: Command) => {
      const ctx = runContext(deps, cmd, { insecure: opts.insecure });
      if (ctx.mode.inPod) await local(ctx, opts);
      else await remote(ctx, nodes, opts);
    });
}
