import { describe, expect, it } from 'vitest';
import {
  ControllerError,
  ErrorCodes,
  InvalidCIDRError,
  StoreConflictError,
  StoreNotFoundError,
} from './errors.js';

describe('error catalogue', () => {
  it('has unique CONTROLLER_ codes and every class carries one of them', () => {
    const codes = Object.values(ErrorCodes);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(c).toMatch(/^CONTROLLER_[A-Z_]+$/);
    const errs = [
      new InvalidCIDRError('y'),
      new StoreConflictError('K', 'n'),
      new StoreNotFoundError('K', 'n'),
    ];
    for (const e of errs) {
      expect(ControllerError.is(e)).toBe(true);
      expect(codes).toContain(e.code);
    }
    expect(ControllerError.is(new Error('plain'))).toBe(false);
  });
});
