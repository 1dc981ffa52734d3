import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@antrea-ts/harness';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCaseFiles, loadCase } from './case-loader.js';

const fixture = {
  schema: 'netpol-oracle/v1',
  kind: 'Fixture',
  id: 'two',
  namespaces: [
    { name: 'x', labels: { ns: 'x' } },
    { name: 'y', labels: { ns: 'y' } },
  ],
  pods: [
    {
      namespace: 'x',
      name: 'a',
      labels: { pod: 'a' },
      ips: ['10.244.0.10'],
      ports: [{ port: 80, protocol: 'TCP' }],
    },
    { namespace: 'y', name: 'b', labels: { pod: 'b' }, ips: ['10.244.1.11'], node: 'n2', ports: [] },
    { namespace: 'y', name: 'c', labels: {}, ips: ['10.244.1.12'], ports: [] },
  ],
  podOrder: ['ignored'],
};

function baseCase(over: Record<string, unknown> = {}) {
  return {
    schema: 'netpol-oracle/v1',
    id: 'c1',
    title: 't',
    source: { suite: 's', ref: 'r' },
    fixture: 'two',
    derivation: 'extra fields are ignored',
    steps: [
      {
        actions: [],
        expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: { 'x/a': '-..', 'y/b': 'X-.' } }],
      },
    ],
    ...over,
  };
}

describe('loadCase', () => {
  let dir: TempDir;
  const write = (rel: string, v: unknown) => {
    const p = join(dir.path, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, typeof v === 'string' ? v : JSON.stringify(v));
    return p;
  };
  beforeEach(() => {
    dir = makeTempDir('e2e-cases');
  });
  afterEach(() => dir.remove());

  it('resolves a fixture id in the parent folder, columns in fixture pod order', () => {
    write('fixtures/two.json', fixture);
    const c = loadCase(write('suite/c1.json', baseCase()));
    expect(c.fixtureSource).toBe(join(dir.path, 'fixtures/two.json'));
    expect(c.pods).toEqual(['x/a', 'y/b', 'y/c']);
    expect(c.fixture.pods[1]).toEqual({
      namespace: 'y',
      name: 'b',
      labels: { pod: 'b' },
      ips: ['10.244.1.11'],
      node: 'n2',
      ports: [],
    });
    expect(c.steps[0]!.expect[0]).toEqual({
      kind: 'matrix',
      port: 80,
      protocol: 'TCP',
      cols: ['x/a', 'y/b', 'y/c'],
      rows: [
        ['x/a', '-..'],
        ['y/b', 'X-.'],
      ],
    });
  });

  it('prefers fixtures/ in the case folder itself', () => {
    write('fixtures/two.json', { ...fixture, pods: [] });
    write('suite/fixtures/two.json', fixture);
    expect(loadCase(write('suite/c1.json', baseCase())).fixture.pods).toHaveLength(3);
  });

  it('takes an inline fixture, a pods subset and per-matrix cols', () => {
    const c = loadCase(
      write(
        'c.json',
        baseCase({
          fixture: { namespaces: fixture.namespaces, pods: fixture.pods },
          pods: ['y/c', 'x/a'],
          steps: [
            {
              actions: [],
              expect: [
                { kind: 'matrix', port: 81, protocol: 'UDP', rows: { 'y/c': '-X' } },
                { kind: 'matrix', port: 80, protocol: 'TCP', cols: ['y/c'], rows: { 'x/a': 'X' } },
              ],
            },
          ],
        }),
      ),
    );
    expect(c.fixtureSource).toBe('inline');
    // y/b is in the fixture but not in the subset: naming it is an error.
    const bad = baseCase({
      fixture: { namespaces: fixture.namespaces, pods: fixture.pods },
      pods: ['y/c', 'x/a'],
      steps: [
        { actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', cols: ['y/b'], rows: {} }] },
      ],
    });
    expect(() => loadCase(write('bad.json', bad))).toThrow(
      '$.steps[0].expect[0].cols[0]: pod y/b is neither',
    );
    expect(c.pods).toEqual(['y/c', 'x/a']);
    expect(c.steps[0]!.expect.map((e) => (e.kind === 'matrix' ? e.cols : []))).toEqual([
      ['y/c', 'x/a'],
      ['y/c'],
    ]);
  });

  it('accepts every action op and probes, and knows Pods a later step creates', () => {
    write('fixtures/two.json', fixture);
    const newPod = { namespace: 'z', name: 'n', labels: {}, ips: ['10.244.2.1'], ports: [] };
    const c = loadCase(
      write(
        'suite/c.json',
        baseCase({
          steps: [
            {
              name: 'all ops',
              actions: [
                { op: 'createNamespace', namespace: { name: 'z', labels: {} } },
                { op: 'createPod', pod: newPod, note: 'ignored' },
                {
                  op: 'apply',
                  object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'x' } },
                },
                {
                  op: 'patch',
                  kind: 'Service',
                  namespace: 'x',
                  name: 's',
                  jsonPatch: [{ op: 'remove', path: '/a' }],
                },
                { op: 'delete', kind: 'Service', namespace: 'x', name: 's' },
                { op: 'setLabels', kind: 'Pod', namespace: 'x', name: 'a', labels: { k: 'v' } },
                { op: 'setLabels', kind: 'Namespace', name: 'y', labels: {} },
                { op: 'deletePod', namespace: 'z', name: 'n' },
                { op: 'deleteNamespace', name: 'z' },
              ],
              expect: [
                {
                  kind: 'probes',
                  probes: [
                    { from: 'z/n', to: 'x/a', port: 80, protocol: 'SCTP', expect: 'reject', why: 'w' },
                  ],
                },
              ],
            },
          ],
        }),
      ),
    );
    expect(c.steps[0]!.actions.map((a) => a.op)).toEqual([
      'createNamespace',
      'createPod',
      'apply',
      'patch',
      'delete',
      'setLabels',
      'setLabels',
      'deletePod',
      'deleteNamespace',
    ]);
    expect(c.steps[0]!.name).toBe('all ops');
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['wrong schema', { schema: 'v2' }, /\$\.schema: expected "netpol-oracle\/v1", got "v2"/],
    ['no steps', { steps: [] }, /\$\.steps: a case needs at least one step/],
    [
      'short row',
      {
        steps: [
          { actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: { 'x/a': '-.' } }] },
        ],
      },
      /\$\.steps\[0\]\.expect\[0\]\.rows\["x\/a"\]: row has 2 characters for 3 columns/,
    ],
    [
      'bad character',
      {
        steps: [
          { actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: { 'x/a': '-.D' } }] },
        ],
      },
      /character 3 is "D"/,
    ],
    [
      'unknown row pod',
      {
        steps: [
          { actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: { 'q/a': '-..' } }] },
        ],
      },
      /pod q\/a is neither in the fixture nor created by a step/,
    ],
    [
      'bad protocol',
      { steps: [{ actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'ICMP', rows: {} }] }] },
      /\$\.steps\[0\]\.expect\[0\]\.protocol: expected one of TCP, UDP, SCTP, got "ICMP"/,
    ],
    [
      'bad port',
      { steps: [{ actions: [], expect: [{ kind: 'matrix', port: 0, protocol: 'TCP', rows: {} }] }] },
      /\.port: expected a port number 1-65535, got 0/,
    ],
    [
      'unknown op',
      { steps: [{ actions: [{ op: 'scale' }], expect: [] }] },
      /\$\.steps\[0\]\.actions\[0\]\.op: expected one of apply/,
    ],
    [
      'apply without metadata.name',
      {
        steps: [
          { actions: [{ op: 'apply', object: { apiVersion: 'v1', kind: 'X', metadata: {} } }], expect: [] },
        ],
      },
      /\$\.steps\[0\]\.actions\[0\]\.object\.metadata\.name: expected a non-empty string/,
    ],
    [
      'Pod labels without namespace',
      { steps: [{ actions: [{ op: 'setLabels', kind: 'Pod', name: 'a', labels: {} }], expect: [] }] },
      /actions\[0\]\.namespace: a Pod needs its namespace/,
    ],
    [
      'probe expect',
      {
        steps: [
          {
            actions: [],
            expect: [
              {
                kind: 'probes',
                probes: [{ from: 'x/a', to: 'y/b', port: 80, protocol: 'TCP', expect: 'X' }],
              },
            ],
          },
        ],
      },
      /probes\[0\]\.expect: expected one of allow, deny, drop, reject/,
    ],
    ['pods subset outside fixture', { pods: ['x/z'] }, /\$\.pods\[0\]: pod x\/z is not in the fixture/],
    [
      'label value not a string',
      { fixture: { namespaces: [{ name: 'x', labels: { a: 1 } }], pods: [] } },
      /\$\.fixture\.namespaces\[0\]\.labels\.a: label values are strings/,
    ],
  ];
  for (const [name, over, msg] of bad) {
    it(`rejects ${name}, naming the file and JSON path`, () => {
      write('fixtures/two.json', fixture);
      const file = write('suite/bad.json', baseCase(over));
      expect(() => loadCase(file)).toThrow(expect.objectContaining({ code: 'E2E_CASE_INVALID' }));
      expect(() => loadCase(file)).toThrow(
        new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*${msg.source}`),
      );
    });
  }

  it('reports a missing fixture, a fixture error in the fixture file, and non-JSON', () => {
    const c = write('suite/c.json', baseCase());
    expect(() => loadCase(c)).toThrow(expect.objectContaining({ code: 'E2E_FIXTURE_NOT_FOUND' }));
    const f = write('fixtures/two.json', { ...fixture, pods: [{ ...fixture.pods[0], namespace: 'q' }] });
    expect(() => loadCase(c)).toThrow(`${f}: $.pods[0].namespace: namespace q is not in the fixture`);
    expect(() => loadCase(write('broken.json', '{'))).toThrow(
      expect.objectContaining({ code: 'E2E_CASE_READ' }),
    );
  });
});

describe('findCaseFiles', () => {
  it('walks folders, skips fixtures/ folders and fixture files, keeps named files', () => {
    const dir = makeTempDir('e2e-find');
    try {
      const w = (rel: string, v: unknown) => {
        const p = join(dir.path, rel);
        mkdirSync(join(p, '..'), { recursive: true });
        writeFileSync(p, JSON.stringify(v));
        return p;
      };
      w('fixtures/f.json', fixture);
      const b = w('s/b.json', baseCase());
      const a = w('s/deep/a.json', baseCase());
      w('s/fx.json', fixture);
      w('s/notes.txt', 'x');
      expect(findCaseFiles([dir.path])).toEqual([b, a].sort());
      expect(findCaseFiles([a, dir.path])).toEqual([b, a].sort());
      expect(() => findCaseFiles([join(dir.path, 'nope')])).toThrow(
        expect.objectContaining({ code: 'E2E_CASE_READ' }),
      );
    } finally {
      dir.remove();
    }
  });
});
