import { describe, expect, it } from 'vitest';
import { benchArgs } from './args.js';

describe('benchArgs', () => {
  it('reads --json and --name value options, with defaults', () => {
    const a = benchArgs(['--json', '--policies', '20', '--cases', 'ccp']);
    expect([a.json, a.number('policies', 500), a.number('rules', 10), a.string('cases', 'all')]).toEqual([
      true,
      20,
      10,
      'ccp',
    ]);
    expect(benchArgs([]).json).toBe(false);
  });
});
