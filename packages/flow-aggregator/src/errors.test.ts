import { describe, expect, it } from 'vitest';
import { FLOW_AGGREGATOR_ERROR_CODES, FlowAggregatorError } from './errors.js';

describe('error catalogue', () => {
  it('every code is its own name and errors keep their cause', () => {
    for (const [key, code] of Object.entries(FLOW_AGGREGATOR_ERROR_CODES)) expect(code).toBe(key);
    const cause = new Error('EADDRINUSE');
    const e = new FlowAggregatorError('FA_LISTEN', 'x', { cause });
    expect(e).toMatchObject({ name: 'FlowAggregatorError', code: 'FA_LISTEN', cause });
  });
});
