import { describe, expect, it } from 'vitest';
import { resolveRequestInfo } from './request-info.js';

const q = (s = '') => new URLSearchParams(s);

describe('resolveRequestInfo', () => {
  it('resolves collection, object, subresource and namespaced paths', () => {
    const base = '/apis/controlplane.antrea.io/v1beta2';
    expect(resolveRequestInfo('GET', `${base}/networkpolicies`, q())).toMatchObject({
      isResourceRequest: true,
      verb: 'list',
      apiGroup: 'controlplane.antrea.io',
      apiVersion: 'v1beta2',
      resource: 'networkpolicies',
      name: '',
    });
    expect(resolveRequestInfo('GET', `${base}/networkpolicies`, q('watch=true'))).toMatchObject({
      verb: 'watch',
    });
    expect(resolveRequestInfo('GET', `${base}/watch/networkpolicies`, q())).toMatchObject({ verb: 'watch' });
    expect(resolveRequestInfo('GET', `${base}/networkpolicies/np1`, q())).toMatchObject({
      verb: 'get',
      name: 'np1',
    });
    expect(resolveRequestInfo('POST', `${base}/networkpolicies/np1/status`, q())).toMatchObject({
      verb: 'create',
      name: 'np1',
      subresource: 'status',
    });
    expect(resolveRequestInfo('GET', `${base}/namespaces/ns1/groupmembers/g`, q())).toMatchObject({
      verb: 'get',
      namespace: 'ns1',
      resource: 'groupmembers',
      name: 'g',
    });
    expect(resolveRequestInfo('DELETE', `${base}/networkpolicies`, q())).toMatchObject({
      verb: 'deletecollection',
    });
  });

  it('treats discovery and other paths as non-resource requests', () => {
    expect(resolveRequestInfo('GET', '/apis/controlplane.antrea.io/v1beta2', q())).toEqual({
      isResourceRequest: false,
      path: '/apis/controlplane.antrea.io/v1beta2',
      verb: 'get',
    });
    expect(resolveRequestInfo('GET', '/metrics', q())).toMatchObject({
      isResourceRequest: false,
      verb: 'get',
    });
  });
});
