import { describe, expect, it } from 'vitest';
import { AGENT_ERROR_CODES, AgentError, agentError } from './errors.js';

describe('error catalogue', () => {
  it('has unique codes, each usable and recognizable', () => {
    expect(new Set(AGENT_ERROR_CODES).size).toBe(AGENT_ERROR_CODES.length);
    for (const code of AGENT_ERROR_CODES) {
      const e = agentError(code, 'm', new Error('c'));
      expect(AgentError.is(e)).toBe(true);
      expect(e.code).toBe(code);
      expect((e.cause as Error).message).toBe('c');
    }
    expect(AgentError.is(new Error('x'))).toBe(false);
  });
});
