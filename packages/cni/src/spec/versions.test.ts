import { CNI_SOCKET_PATH } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CNI_SOCKET_PATH } from '../plugin/socket-agent-connector.js';
import { CURRENT_CNI_VERSION, SUPPORTED_CNI_VERSIONS, versionAtLeast } from './versions.js';

describe('versions', () => {
  it("advertises libcni's version.All and 1.1.0 as current", () => {
    expect(SUPPORTED_CNI_VERSIONS).toEqual(['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0']);
    expect(CURRENT_CNI_VERSION).toBe('1.1.0');
  });

  it('compares numerically, component by component', () => {
    expect(versionAtLeast('0.10.0', '0.4.0')).toBe(true);
    expect(versionAtLeast('0.3.1', '0.4.0')).toBe(false);
    expect(versionAtLeast('1.1.0', '1.1.0')).toBe(true);
    expect(versionAtLeast('1.0.9', '1.1.0')).toBe(false);
  });

  it('fails malformed versions with a decoding error (code 6)', () => {
    for (const bad of ['1.0', 'x', '1.0.0-rc1']) {
      expect(() => versionAtLeast(bad, '0.4.0')).toThrow(expect.objectContaining({ cniCode: 6 }));
    }
    expect(versionAtLeast('v1.0.0', '0.4.0')).toBe(true);
  });

  it('keeps the default agent socket equal to the shared constant', () => {
    expect(DEFAULT_CNI_SOCKET_PATH).toBe(CNI_SOCKET_PATH);
  });
});
