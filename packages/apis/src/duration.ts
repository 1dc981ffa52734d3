const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration string as Antrea's config files and flags take them (`5s`, `1m30s`, `500ms`,
 * `1.5h`; units ns, us, µs, ms, s, m, h) in milliseconds, or undefined when `text` is not one.
 * No sign and no bare number: callers that take a bare number (antctl's seconds) check for it
 * first, and each turns undefined into its own error code.
 */
export function parseGoDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    if (re.lastIndex === text.length) return total;
  }
  return undefined;
}
