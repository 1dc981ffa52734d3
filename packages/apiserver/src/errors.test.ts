import { describe, expect, it } from 'vitest';
import { API_SERVER_ERROR_CODES, ApiServerError } from './errors.js';
import { ApiError } from './status.js';

describe('error catalogue', () => {
  it('has unique APISERVER_ codes and carries code and cause', () => {
    expect(new Set(API_SERVER_ERROR_CODES).size).toBe(API_SERVER_ERROR_CODES.length);
    for (const code of API_SERVER_ERROR_CODES) expect(code).toMatch(/^APISERVER_[A-Z_]+$/);
    const cause = new Error('x');
    const e = new ApiServerError('APISERVER_REVIEW_FAILED', 'm', { cause });
    expect(e.code).toBe('APISERVER_REVIEW_FAILED');
    expect(e.cause).toBe(cause);
  });

  it('renders Kubernetes Status objects', () => {
    expect(
      ApiError.notFound({ group: 'controlplane.antrea.io', resource: 'networkpolicies' }, 'np').toStatus(),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'networkpolicies.controlplane.antrea.io "np" not found',
      reason: 'NotFound',
      details: { name: 'np', group: 'controlplane.antrea.io', kind: 'networkpolicies' },
      code: 404,
    });
    expect(ApiError.expired().toStatus()).toMatchObject({ code: 410, reason: 'Expired' });
  });
});
