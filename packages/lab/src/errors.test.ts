import { describe, expect, it } from 'vitest';
import { LabError } from './errors.js';

describe('LabError', () => {
  it('carries its code and cause, and is an Error', () => {
    const cause = new Error('inner');
    const e = new LabError('LAB_CNI_FAILED', 'CNI ADD failed', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('LAB_CNI_FAILED');
    expect(e.cause).toBe(cause);
    expect(e.name).toBe('LabError');
  });
});
