import { describe, expect, it } from 'vitest';
import { CniError } from '../errors.js';
import { parseCniEnv, validateContainerId, validateInterfaceName } from './env.js';

const base = {
  CNI_CONTAINERID: 'abc123',
  CNI_NETNS: '/var/run/netns/x',
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/opt/cni/bin',
};

function codeOf(fn: () => unknown): [number, string, string] | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(CniError);
    const e = err as CniError;
    return [e.cniCode, e.msg, e.details];
  }
}

describe('parseCniEnv', () => {
  it('returns undefined without CNI_COMMAND (a human ran the binary)', () => {
    expect(parseCniEnv({})).toBeUndefined();
    expect(parseCniEnv({ CNI_COMMAND: '' })).toBeUndefined();
  });

  it('reads every parameter of an ADD', () => {
    expect(
      parseCniEnv({ ...base, CNI_COMMAND: 'ADD', CNI_ARGS: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns' }),
    ).toEqual({
      command: 'ADD',
      containerId: 'abc123',
      netns: '/var/run/netns/x',
      ifname: 'eth0',
      args: 'K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns',
      path: '/opt/cni/bin',
      netnsOverride: false,
    });
  });

  it.each([
    ['ADD', ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME']],
    ['CHECK', ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME']],
    ['DEL', ['CNI_CONTAINERID', 'CNI_IFNAME']],
    ['GC', ['CNI_PATH']],
  ])('%s names all its missing required variables (code 4)', (command, names) => {
    expect(codeOf(() => parseCniEnv({ CNI_COMMAND: command }))).toEqual([
      4,
      `required env variables [${names.join(',')}] missing`,
      '',
    ]);
  });

  it('lets DEL run without CNI_NETNS and CNI_PATH, and VERSION/STATUS without anything', () => {
    expect(parseCniEnv({ CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'c', CNI_IFNAME: 'eth0' })?.netns).toBe('');
    expect(parseCniEnv({ CNI_COMMAND: 'VERSION' })?.command).toBe('VERSION');
    expect(parseCniEnv({ CNI_COMMAND: 'STATUS' })?.command).toBe('STATUS');
  });

  it('rejects an unknown command with code 4', () => {
    expect(codeOf(() => parseCniEnv({ ...base, CNI_COMMAND: 'add' }))).toEqual([
      4,
      'unknown CNI_COMMAND: add',
      '',
    ]);
  });

  it('validates the container id and interface name of ADD/CHECK/DEL', () => {
    expect(codeOf(() => parseCniEnv({ ...base, CNI_COMMAND: 'ADD', CNI_CONTAINERID: '-bad' }))?.[0]).toBe(4);
    expect(codeOf(() => parseCniEnv({ ...base, CNI_COMMAND: 'DEL', CNI_IFNAME: 'a/b' }))?.[0]).toBe(4);
  });

  it('honours CNI_NETNS_OVERRIDE as libcni does (TRUE, true, 1)', () => {
    for (const v of ['TRUE', 'true', '1']) {
      expect(parseCniEnv({ ...base, CNI_COMMAND: 'ADD', CNI_NETNS_OVERRIDE: v })?.netnsOverride).toBe(true);
    }
    expect(parseCniEnv({ ...base, CNI_COMMAND: 'ADD', CNI_NETNS_OVERRIDE: 'yes' })?.netnsOverride).toBe(
      false,
    );
  });
});

describe('validateContainerId', () => {
  it('accepts runtime ids and rejects what libcni rejects', () => {
    expect(() => validateContainerId('0a1b2c_d.e-f')).not.toThrow();
    expect(codeOf(() => validateContainerId(''))?.[0]).toBe(3);
    expect(codeOf(() => validateContainerId('a b'))).toEqual([4, 'invalid characters in containerID', 'a b']);
    expect(codeOf(() => validateContainerId('_a'))?.[0]).toBe(4);
  });
});

describe('validateInterfaceName', () => {
  it.each([
    ['', 'interface name is empty'],
    ['abcdefghijklmnop', 'interface name is too long'],
    ['.', 'interface name is . or ..'],
    ['..', 'interface name is . or ..'],
    ['et h0', 'interface name contains / or : or whitespace characters'],
    ['eth:0', 'interface name contains / or : or whitespace characters'],
    ['eth\t0', 'interface name contains / or : or whitespace characters'],
  ])('rejects %j (%s)', (name, msg) => {
    expect(codeOf(() => validateInterfaceName(name))?.slice(0, 2)).toEqual([4, msg]);
  });

  it('accepts 15 bytes and counts bytes, not characters', () => {
    expect(() => validateInterfaceName('abcdefghijklmno')).not.toThrow();
    expect(codeOf(() => validateInterfaceName('ééééééééé'))?.[1]).toBe('interface name is too long');
  });
});
