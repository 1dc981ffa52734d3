/**
 * A relative duration as antctl's --since and SupportBundleCollection's sinceTime give it ("30s",
 * "5m", "3h", "1h30m", "2.5h"), in milliseconds; undefined when it is not one.
 */
export function parseSince(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(value); m !== null; m = re.exec(value)) {
    total += Number(m[1]) * (unit[m[2] as string] as number);
    end = re.lastIndex;
  }
  return end === value.length && end > 0 ? total : undefined;
}

/** The epoch milliseconds `since` reaches back to from `now`; undefined for all of it. */
export function sinceCutoff(since: string | undefined, now: Date): number | undefined {
  const ms = parseSince(since);
  return ms === undefined ? undefined : now.getTime() - ms;
}
