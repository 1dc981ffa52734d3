// Where a change's time went, from the agent's own log: each realization logs
// `{"time":<ms at the end>,"ms":<its duration>,"msg":"policies realized"}` (pino), so between the
// API write and the first probe that saw the new behaviour there are three phases:
//   to-agent    write -> the agent starts realizing (kube-apiserver, controller informer and
//               compute, the protobuf watch to the agent); `afterWrite` is the part after the
//               API write returned (the controller and the watch, without the write itself)
//   agent       the agent's realizations in the window (rule cache, flow computation, bundle)
//   to-packets  the last realization's end -> the first attempt with the new behaviour (the
//               datapath revalidating its caches, plus up to one probe interval)

export interface Realization {
  /** Wall-clock ms when the realization ended (its log line's time). */
  end: number;
  ms: number;
}

export interface Phases {
  toAgent: number;
  afterWrite: number;
  agent: number;
  toPackets: number;
  realizations: number;
}

/** Every `policies realized` line of an agent log (pino JSON lines), in log order. */
export function parseRealizations(log: string): Realization[] {
  const out: Realization[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes('"policies realized"')) continue;
    try {
      const o = JSON.parse(line) as { time?: number; ms?: number };
      if (typeof o.time === 'number' && typeof o.ms === 'number') out.push({ end: o.time, ms: o.ms });
    } catch {
      // a torn last line while the agent writes
    }
  }
  return out;
}

/**
 * The phases of one change on one Node: the realizations that started after the write and ended
 * by the time the new behaviour was seen (log times are whole ms: 1 ms of slack each side).
 * Undefined when the log shows none (the change was enforced by a realization we cannot see).
 */
export function changePhases(
  realizations: readonly Realization[],
  writeStart: number,
  writeReturn: number,
  enforcedAt: number,
): Phases | undefined {
  const inWindow = realizations.filter((r) => r.end - r.ms >= writeStart - 1 && r.end <= enforcedAt + 1);
  const first = inWindow[0];
  const last = inWindow.at(-1);
  if (!first || !last) return undefined;
  const firstStart = first.end - first.ms;
  return {
    toAgent: firstStart - writeStart,
    afterWrite: firstStart - writeReturn,
    agent: last.end - firstStart,
    toPackets: enforcedAt - last.end,
    realizations: inWindow.length,
  };
}
