import { describe, expect, it } from 'vitest';
import type { UserInfo } from './authn/user.js';
import { parseListOptions } from './list-options.js';
import { nodeScope } from './node-scope.js';
import type { ApiRequest } from './registry.js';
import { resolveRequestInfo } from './request-info.js';

function req(query: string, nodeName?: string): ApiRequest {
  const q = new URLSearchParams(query);
  const info = resolveRequestInfo('GET', '/apis/controlplane.antrea.io/v1beta2/networkpolicies', q);
  if (!info.isResourceRequest) throw new Error('unreachable');
  const user: UserInfo = {
    username: 'agent',
    groups: [],
    extra: {},
    authenticatedBy: 'token',
    ...(nodeName ? { nodeName } : {}),
  };
  return { info, user, options: parseListOptions(q), signal: new AbortController().signal };
}

describe('nodeScope', () => {
  it('uses the bound Node, even when the caller names none', () => {
    expect(nodeScope(req('watch=1', 'node-a'))).toBe('node-a');
    expect(nodeScope(req('watch=1&fieldSelector=nodeName%3Dnode-a', 'node-a'))).toBe('node-a');
  });

  it('falls back to the field selector for unbound tokens', () => {
    expect(nodeScope(req('fieldSelector=nodeName%3Dnode-b'))).toBe('node-b');
    expect(nodeScope(req(''))).toBeUndefined();
  });

  it('refuses a bound caller asking for another Node', () => {
    expect(() => nodeScope(req('fieldSelector=nodeName%3Dnode-b', 'node-a'))).toThrow(
      expect.objectContaining({ code: 403, reason: 'Forbidden' }),
    );
  });
});
