import { run } from '@antrea-ts/harness';

export interface ProbeTarget {
  ip: string;
  port: number;
  protocol: 'TCP' | 'UDP';
}

/** allow / drop / reject / error, as agent-tools/probe.mjs classifies them. */
export type ProbeVerdict = 'allow' | 'drop' | 'reject' | 'error';

export interface ProbeResult {
  target: ProbeTarget;
  result: ProbeVerdict;
  ms: number;
  detail?: string;
}

export function targetArg(t: ProbeTarget): string {
  const host = t.ip.includes(':') ? `[${t.ip}]` : t.ip;
  return `${t.protocol.toLowerCase()}:${host}:${t.port}`;
}

/** Runs probe.mjs once in `netns` with every target; one result per target, in order. */
export async function runProbes(
  netns: string,
  probeScript: string,
  targets: readonly ProbeTarget[],
  timeoutMs: number,
): Promise<ProbeResult[]> {
  if (targets.length === 0) return [];
  const out = await run(
    [process.execPath, probeScript, '--timeout-ms', String(timeoutMs), ...targets.map(targetArg)],
    { netns, timeoutMs: timeoutMs + 15_000 },
  );
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { result: ProbeVerdict; ms: number; detail?: string });
  return targets.map((target, i) => {
    const line = lines[i];
    if (!line) return { target, result: 'error', ms: 0, detail: 'no output from probe.mjs' };
    return { target, result: line.result, ms: line.ms, ...(line.detail ? { detail: line.detail } : {}) };
  });
}
