// `antctl traceflow`: creates a Traceflow CR through the Kubernetes API, polls it until the
// controller marks it Succeeded or Failed, prints the result, and deletes it (Antrea's
// pkg/antctl/raw/traceflow, same flags and output shape).
import { isIP } from 'node:net';
import type { Traceflow, TraceflowPacket, TraceflowSpec } from '@antrea-ts/apis';
import { type Command, Option } from 'commander';
import { send } from '../client/connections.js';
import { type AntctlDeps, type RunContext, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { toJson, toYaml } from '../output/format.js';
import { formatTable } from '../output/table.js';
import { CRD, kubeJson } from './common.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 12 * 3_600_000;
const POLL_MS = 1_000;
const PROTOCOLS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17 };

export interface TraceflowOptions {
  source?: string;
  destination?: string;
  flow?: string;
  liveTraffic?: boolean;
  droppedOnly?: boolean;
  nowait?: boolean;
  keep?: boolean;
  output: 'yaml' | 'json' | 'table';
}

/** The flow string's fields (`tcp,tcp_dst=80`): bare words map to 0. */
export function parseFlowFields(flow: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const v of flow.replaceAll(' ', '').split(',')) {
    if (v === '') continue;
    const kv = v.split('=');
    if (kv.length === 1) fields.set(v, 0);
    else if (kv.length === 2 && kv[0] !== '' && kv[1] !== '') {
      const n = Number(kv[1]);
      if (!Number.isInteger(n))
        throw new AntctlError('ANTCTL_USAGE', `invalid flow field "${v}": the value must be an integer`);
      fields.set(kv[0] as string, n);
    } else throw new AntctlError('ANTCTL_USAGE', `${v} is not valid in flow`);
  }
  return fields;
}

/** Antrea's parseFlow: protocol, ports and TCP flags of the crafted packet. */
export function packetFromFlow(flow: string): TraceflowPacket {
  const fields = parseFlowFields(flow);
  const pkt: TraceflowPacket = {};
  const ipv6 = fields.has('ipv6');
  let protocol: number | undefined;
  for (const [name, num] of Object.entries(PROTOCOLS)) if (fields.has(name)) protocol = num;
  if (ipv6) pkt.ipv6Header = protocol === undefined ? {} : { nextHeader: protocol };
  else pkt.ipHeader = protocol === undefined ? {} : { protocol };
  const tcp: { srcPort?: number; dstPort?: number; flags?: number } = {};
  const udp: { srcPort?: number; dstPort?: number } = {};
  if (fields.has('tcp_src')) tcp.srcPort = fields.get('tcp_src');
  if (fields.has('tcp_dst')) tcp.dstPort = fields.get('tcp_dst');
  if (fields.has('tcp_flags')) tcp.flags = fields.get('tcp_flags');
  if (fields.has('udp_src')) udp.srcPort = fields.get('udp_src');
  if (fields.has('udp_dst')) udp.dstPort = fields.get('udp_dst');
  const th: NonNullable<TraceflowPacket['transportHeader']> = {};
  if (Object.keys(tcp).length > 0) th.tcp = tcp;
  if (Object.keys(udp).length > 0) th.udp = udp;
  pkt.transportHeader = th;
  return pkt;
}

/** Splits "ns/name" or "name" (Namespace default); undefined when malformed. */
function nsName(v: string): { namespace: string; name: string; label: string } | undefined {
  const parts = v.split('/');
  if (parts.length === 1 && parts[0] !== '') return { namespace: 'default', name: v, label: v };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') {
    return { namespace: parts[0] as string, name: parts[1] as string, label: `${parts[0]}-${parts[1]}` };
  }
  return undefined;
}

/** Traceflow names are DNS subdomains: lowercase, at most 253 characters. */
function tfName(prefix: string, suffix: string | undefined): string {
  const clean = prefix.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const base = clean.slice(0, 253 - (suffix === undefined ? 0 : suffix.length + 1));
  return suffix === undefined ? base : `${base}-${suffix}`;
}

/** Builds the Traceflow object; `isPod` tells a destination Pod from a Service. */
export async function buildTraceflow(
  o: TraceflowOptions,
  timeoutMs: number,
  isPod: (ns: string, name: string) => Promise<boolean>,
  randomSuffix: () => string,
): Promise<Traceflow> {
  if (!o.liveTraffic && !o.source)
    throw new AntctlError('ANTCTL_USAGE', 'Please provide source (-S <Namespace>/<Pod>)');
  if (!o.liveTraffic && !o.destination) {
    throw new AntctlError(
      'ANTCTL_USAGE',
      'Please provide destination (-D <Namespace>/<Pod>, <Namespace>/<Service> or an IP)',
    );
  }
  if (!o.liveTraffic && o.droppedOnly)
    throw new AntctlError('ANTCTL_USAGE', '--dropped-only works only with live-traffic Traceflow (-L)');
  const spec: TraceflowSpec = {};
  let srcName = 'any';
  if (o.source) {
    if (isIP(o.source)) {
      if (!o.liveTraffic)
        throw new AntctlError('ANTCTL_USAGE', 'source must be a Pod if not a live-traffic Traceflow');
      spec.source = { ip: o.source };
      srcName = o.source;
    } else {
      const s = nsName(o.source);
      if (!s)
        throw new AntctlError(
          'ANTCTL_USAGE',
          'source should be in the format of Namespace/Pod or Pod, or an IP address',
        );
      spec.source = { namespace: s.namespace, pod: s.name };
      srcName = s.label;
    }
  }
  let dstName = 'any';
  if (o.destination) {
    if (isIP(o.destination)) {
      spec.destination = { ip: o.destination };
      dstName = o.destination;
    } else {
      const d = nsName(o.destination);
      if (!d) {
        throw new AntctlError(
          'ANTCTL_USAGE',
          'destination should be in the format of Namespace/Pod, Pod, Namespace/Service, Service or an IP address',
        );
      }
      spec.destination = (await isPod(d.namespace, d.name))
        ? { namespace: d.namespace, pod: d.name }
        : { namespace: d.namespace, service: d.name };
      dstName = d.label;
    }
  }
  if (!spec.source?.pod && !spec.destination?.pod) {
    throw new AntctlError('ANTCTL_USAGE', 'one of source and destination must be a Pod');
  }
  spec.packet = packetFromFlow(o.flow ?? '');
  if (o.liveTraffic) spec.liveTraffic = true;
  if (o.droppedOnly) spec.droppedOnly = true;
  spec.timeout = Math.max(1, Math.trunc(timeoutMs / 1000));
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Traceflow',
    metadata: { name: tfName(`${srcName}-to-${dstName}`, o.nowait ? undefined : randomSuffix()) },
    spec,
  } as Traceflow;
}

/** Antrea's traceflow Response: what the command prints. */
export function traceflowResponse(tf: Traceflow): Record<string, unknown> {
  const spec = tf.spec ?? {};
  const dst = spec.destination ?? {};
  const r: Record<string, unknown> = { name: tf.metadata.name };
  if (tf.status?.phase) r['phase'] = tf.status.phase;
  if (tf.status?.reason) r['reason'] = tf.status.reason;
  r['source'] = spec.source?.ip ?? `${spec.source?.namespace ?? ''}/${spec.source?.pod ?? ''}`;
  const d =
    dst.ip ??
    (dst.pod ? `${dst.namespace}/${dst.pod}` : dst.service ? `${dst.namespace}/${dst.service}` : '');
  if (d !== '') r['destination'] = d;
  if (tf.status?.results?.length) r['results'] = tf.status.results;
  if (tf.status?.capturedPacket) r['capturedPacket'] = tf.status.capturedPacket;
  return r;
}

/** A readable path: one line per observation, in the order the Nodes reported them. */
export function formatTraceflowTable(tf: Traceflow): string {
  const r = traceflowResponse(tf);
  let out = `Traceflow ${tf.metadata.name}: ${tf.status?.phase ?? 'Running'}${tf.status?.reason ? ` (${tf.status.reason})` : ''}\n`;
  out += `From ${String(r['source'])} to ${String(r['destination'] ?? 'any')}\n`;
  const rows: string[][] = [];
  for (const nr of tf.status?.results ?? []) {
    for (const ob of nr.observations ?? []) {
      const details: string[] = [];
      if (ob.networkPolicy)
        details.push(
          `policy ${ob.networkPolicy}${ob.networkPolicyRule ? ` rule ${ob.networkPolicyRule}` : ''}`,
        );
      if (ob.componentInfo) details.push(ob.componentInfo);
      if (ob.pod) details.push(`pod ${ob.pod}`);
      if (ob.tunnelDstIP) details.push(`tunnel to ${ob.tunnelDstIP}`);
      if (ob.translatedDstIP) details.push(`DNAT to ${ob.translatedDstIP}`);
      if (ob.translatedSrcIP) details.push(`SNAT to ${ob.translatedSrcIP}`);
      if (ob.egressIP) details.push(`egress IP ${ob.egressIP}`);
      rows.push([nr.node ?? '', nr.role ?? '', ob.component ?? '', ob.action ?? '', details.join('; ')]);
    }
  }
  if (rows.length > 0) {
    // Antrea's tables pad the last column too; a path meant for reading does without.
    const table = formatTable({
      header: ['NODE', 'ROLE', 'COMPONENT', 'ACTION', 'DETAILS'],
      rows,
      sortRows: false,
    });
    out += table.replace(/ +$/gm, '');
  }
  return out;
}

async function runTraceflow(ctx: RunContext, o: TraceflowOptions): Promise<void> {
  const timeoutMs = ctx.globals.timeout || DEFAULT_TIMEOUT_MS;
  if (timeoutMs > MAX_TIMEOUT_MS)
    throw new AntctlError('ANTCTL_USAGE', 'Timeout cannot be longer than 12 hours');
  const kube = await ctx.conn.kube();
  const isPod = async (ns: string, name: string) => {
    try {
      await kubeJson(
        ctx,
        { path: `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(name)}` },
        `pod ${ns}/${name}`,
        name,
      );
      return true;
    } catch (err) {
      if (AntctlError.is(err) && err.status === 404) return false;
      throw err;
    }
  };
  const tf = await buildTraceflow(o, timeoutMs, isPod, () => ctx.deps.randomSuffix(8));
  const name = tf.metadata.name;
  const path = `${CRD}/traceflows`;
  try {
    await send(
      kube,
      { method: 'POST', path, body: tf },
      { route: { kind: 'kube' }, target: kube.target, subject: 'traceflows' },
    );
  } catch (err) {
    if (AntctlError.is(err) && err.status === 404) {
      throw new AntctlError(
        'ANTCTL_SERVER_ERROR',
        'error when creating Traceflow: the Kubernetes API does not serve traceflows.crd.antrea.io: is Antrea installed with its CRDs? ("kubectl get crd traceflows.crd.antrea.io")',
        { cause: err, status: 404 },
      );
    }
    throw new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `error when creating Traceflow, is Traceflow feature gate enabled? ${(err as Error).message}`,
      {
        cause: err,
        ...(AntctlError.is(err) && err.status !== undefined ? { status: err.status } : {}),
      },
    );
  }
  if (o.nowait) {
    ctx.out(`Traceflow ${name} created; get it with "kubectl get traceflow ${name} -o yaml"\n`);
    return;
  }
  let result: Traceflow | undefined;
  let timedOut = false;
  try {
    const deadline = ctx.deps.now().getTime() + timeoutMs;
    for (;;) {
      await ctx.deps.sleep(POLL_MS);
      result = await kubeJson<Traceflow>(ctx, { path: `${path}/${name}` }, `traceflow "${name}"`, name);
      const phase = result.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') break;
      if (ctx.deps.now().getTime() >= deadline) {
        timedOut = true;
        break;
      }
    }
  } finally {
    if (!o.keep) {
      await send(
        kube,
        { method: 'DELETE', path: `${path}/${name}` },
        {
          route: { kind: 'kube' },
          target: kube.target,
          subject: `traceflow "${name}"`,
          name,
        },
      ).catch((err: unknown) =>
        ctx.deps.stderr.write(`error when deleting Traceflow ${name}: ${(err as Error).message}\n`),
      );
    }
  }
  if (result !== undefined) {
    const r = traceflowResponse(result);
    ctx.out(
      o.output === 'json' ? toJson(r) : o.output === 'table' ? formatTraceflowTable(result) : toYaml(r),
    );
  }
  if (timedOut) {
    throw new AntctlError(
      'ANTCTL_TIMEOUT',
      `timeout waiting for Traceflow ${name} done (${timeoutMs / 1000}s): is the Traceflow feature gate enabled and are the agents on the path running? Raise -t/--timeout for live traffic`,
    );
  }
}

export function addTraceflowCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('traceflow')
    .aliases(['tf', 'traceflows'])
    .summary('Start a Traceflows')
    .description('Start a Traceflows from one Pod to another Pod/Service/IP.')
    .option('-S, --source <source>', 'source of the Traceflow: Namespace/Pod, Pod, or IP')
    .option(
      '-D, --destination <destination>',
      'destination of the Traceflow: Namespace/Pod, Pod, Namespace/Service, Service or IP',
    )
    .addOption(
      new Option(
        '-o, --output <type>',
        'output type: yaml (default), json, or table (one line per observation)',
      )
        .choices(['yaml', 'json', 'table'])
        .default('yaml'),
    )
    .option(
      '-f, --flow <flow>',
      'specify the flow (packet headers) of the Traceflow packet, including tcp_src, tcp_dst, tcp_flags, udp_src, udp_dst, ipv6',
    )
    .option(
      '-L, --live-traffic',
      'if set, the Traceflow will trace the first packet of the matched live traffic flow',
    )
    .option('--dropped-only', 'if set, capture only the dropped packet in a live-traffic Traceflow')
    .option('--nowait', 'if set, command returns without retrieving results (the Traceflow is kept)')
    .option('--keep', 'keep the Traceflow object after printing its result')
    .addHelpText(
      'after',
      `
Examples:
  Start a Traceflow from pod1 to pod2, both Pods are in Namespace default
  $ antctl traceflow -S pod1 -D pod2
  Start a Traceflow from pod1 in Namespace ns1 to a destination IP
  $ antctl traceflow -S ns1/pod1 -D 123.123.123.123
  Start a Traceflow from pod1 to Service svc1 in Namespace ns1
  $ antctl traceflow -S pod1 -D ns1/svc1 -f tcp,tcp_dst=80
  Start a Traceflow for live TCP traffic from pod1 to svc1, with 1 minute timeout
  $ antctl traceflow -S pod1 -D svc1 -f tcp --live-traffic -t 1m
  Capture the first dropped TCP packet to pod1 on port 80, within 10 minutes
  $ antctl traceflow -D pod1 -f tcp,tcp_dst=80 --live-traffic --dropped-only -t 10m`,
    )
    .action(async (opts: TraceflowOptions, cmd: Command) => {
      await runTraceflow(runContext(deps, cmd), opts);
    });
}
