// The TypeScript side of agent-tools/*.mjs: where the programs are, their arguments, and reading
// the probe helper's output. A provider supplies an `exec` that runs argv inside a Pod (lab:
// netns.exec, i.e. `ip netns exec`; kind: `kubectl exec ns/pod --`) and gets probe outcomes back.
import { fileURLToPath } from 'node:url';
import type { Protocol } from './case-types.js';
import { E2eError } from './errors.js';
import type { PodSpec, ProbeOutcome } from './provider.js';

/** Absolute paths of the standalone programs (the same files in src and in dist). */
export const PROBE_TOOL = fileURLToPath(new URL('./agent-tools/probe.mjs', import.meta.url));
export const SERVE_TOOL = fileURLToPath(new URL('./agent-tools/serve.mjs', import.meta.url));

export interface ProbeToolTarget {
  ip: string;
  port: number;
  /** TCP or UDP; the helper has no SCTP. */
  protocol: Protocol;
}

function targetText(t: ProbeToolTarget): string {
  if (t.protocol === 'SCTP') throw new E2eError('E2E_UNSUPPORTED', 'the probe helper has no SCTP');
  const host = t.ip.includes(':') ? `[${t.ip}]` : t.ip;
  return `${t.protocol.toLowerCase()}:${host}:${t.port}`;
}

/** Arguments after `node probe.mjs`. */
export function probeArgs(targets: readonly ProbeToolTarget[], timeoutMs: number): string[] {
  return ['--timeout-ms', String(Math.max(1, Math.round(timeoutMs))), ...targets.map(targetText)];
}

const OUTCOMES = new Set<ProbeOutcome>(['allow', 'drop', 'reject', 'error']);

/** One outcome per target, in order; E2E_PROBE_TOOL if the output does not say that. */
export function parseProbeOutput(stdout: string, targets: readonly ProbeToolTarget[]): ProbeOutcome[] {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== targets.length)
    throw new E2eError(
      'E2E_PROBE_TOOL',
      `probe helper printed ${lines.length} lines for ${targets.length} targets`,
    );
  return lines.map((line, i) => {
    let v: { target?: unknown; result?: unknown };
    try {
      v = JSON.parse(line) as typeof v;
    } catch (cause) {
      throw new E2eError('E2E_PROBE_TOOL', `probe helper printed ${JSON.stringify(line)}`, { cause });
    }
    const want = targetText(targets[i]!);
    if (v.target !== want || !OUTCOMES.has(v.result as ProbeOutcome))
      throw new E2eError(
        'E2E_PROBE_TOOL',
        `probe helper line ${i + 1} is ${line}, expected a result for ${want}`,
      );
    return v.result as ProbeOutcome;
  });
}

/**
 * Probes from inside a Pod with `exec` (argv -> stdout). The exec runs `node <PROBE_TOOL> ...`
 * as given, or a provider may swap argv[1] for a path inside its image.
 */
export async function runProbeTool(
  exec: (argv: string[]) => Promise<string>,
  targets: readonly ProbeToolTarget[],
  timeoutMs: number,
  node = 'node',
): Promise<ProbeOutcome[]> {
  if (targets.length === 0) return [];
  const out = await exec([node, PROBE_TOOL, ...probeArgs(targets, timeoutMs)]);
  return parseProbeOutput(out, targets);
}

/**
 * Arguments after `node serve.mjs` for a Pod: TCP and UDP servers on every port number its spec
 * declares (whatever protocol the entry names; the brief asks for both on each fixture port), for
 * the protocols the provider can probe. SCTP entries stay on the Pod object for named ports.
 */
export function serveArgs(spec: PodSpec, supports: (p: Protocol) => boolean = (p) => p !== 'SCTP'): string[] {
  const ports = [...new Set(spec.ports.map((p) => p.port))].sort((a, b) => a - b).join(',');
  const args = ['--id', `${spec.namespace}/${spec.name}`];
  if (ports && supports('TCP')) args.push('--tcp', ports);
  if (ports && supports('UDP')) args.push('--udp', ports);
  return args;
}
