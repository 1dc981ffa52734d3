import { describe, expect, it } from 'vitest';
import {
  httpStatusName,
  NSX_API_ERRORS,
  NsxApiError,
  NsxSimError,
  notFound,
  PROCESS_ERROR_CODES,
  StateFileError,
  TlsSetupError,
} from './errors.js';

describe('error catalogue', () => {
  it('every API error code has a 4xx/5xx status with a name, an integer NSX code and a module', () => {
    for (const [code, e] of Object.entries(NSX_API_ERRORS)) {
      expect(code).toMatch(/^NSX_[A-Z_]+$/);
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.status).toBeLessThan(600);
      expect(Number.isInteger(e.errorCode)).toBe(true);
      expect(e.module).not.toBe('');
      expect(httpStatusName(e.status)).not.toMatch(/^HTTP_/);
    }
  });

  it('keeps the codes clients branch on (nsx-operator mapping)', () => {
    expect(NSX_API_ERRORS.NSX_STALE_REVISION.status).toBe(412);
    expect(NSX_API_ERRORS.NSX_RESOURCE_IN_USE).toMatchObject({ status: 400, errorCode: 500030 });
    expect(NSX_API_ERRORS.NSX_REVISION_REQUIRED).toMatchObject({ status: 400, errorCode: 500127 });
    expect(NSX_API_ERRORS.NSX_AUTH_FAILED).toMatchObject({
      status: 403,
      errorCode: 403,
      module: 'common-services',
    });
  });

  it('renders the NSX ApiError body with related errors', () => {
    const e = new NsxApiError('NSX_INVALID_OBJECT', 'bad group', { related: ['one', 'two'] });
    expect(e.toBody()).toEqual({
      httpStatus: 'BAD_REQUEST',
      error_code: 500090,
      module_name: 'policy',
      error_message: 'bad group',
      related_errors: [
        { httpStatus: 'BAD_REQUEST', error_code: 500090, module_name: 'policy', error_message: 'one' },
        { httpStatus: 'BAD_REQUEST', error_code: 500090, module_name: 'policy', error_message: 'two' },
      ],
    });
    expect(notFound('/infra/x').status).toBe(404);
  });

  it('process errors carry fixed codes and causes, and are recognisable across copies', () => {
    const cause = new Error('disk');
    const s = new StateFileError('nope', { cause });
    expect(s.code).toBe('NSX_SIM_STATE_FILE');
    expect(s.cause).toBe(cause);
    expect(new TlsSetupError('x').code).toBe('NSX_SIM_TLS_SETUP');
    expect(PROCESS_ERROR_CODES).toEqual(['NSX_SIM_STATE_FILE', 'NSX_SIM_TLS_SETUP']);
    expect(NsxSimError.is(s)).toBe(true);
    expect(NsxSimError.is(new Error('x'))).toBe(false);
  });
});
