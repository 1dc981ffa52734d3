/** A benchmark's command line: `--json` and `--<name> <value>` options. */
export interface BenchArgs {
  readonly json: boolean;
  number(name: string, dflt: number): number;
  string(name: string, dflt: string): string;
}

export function benchArgs(argv: readonly string[]): BenchArgs {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    json: argv.includes('--json'),
    number: (name, dflt) => {
      const v = value(name);
      return v === undefined ? dflt : Number(v);
    },
    string: (name, dflt) => value(name) ?? dflt,
  };
}
