import { describe, expect, it } from 'vitest';
import {
  AgentRpcError,
  CniError,
  CniProtoDecodeError,
  grpcCodeName,
  isAgentRpcError,
  isCniError,
} from './errors.js';

describe('error catalogue', () => {
  it('gives every class a fixed code and marks it as ours', () => {
    const all = [new CniError(7, 'm'), new AgentRpcError(14, 'x', true), new CniProtoDecodeError('bad')];
    expect(all.map((e) => e.code)).toEqual(['CNI_ERROR', 'CNI_AGENT_RPC_FAILED', 'CNI_PROTO_DECODE_FAILED']);
    expect(all.map((e) => e.name)).toEqual(['CniError', 'AgentRpcError', 'CniProtoDecodeError']);
    for (const e of all) expect(isCniError(e)).toBe(true);
    expect(isCniError(new Error('x'))).toBe(false);
    expect(isAgentRpcError(all[1])).toBe(true);
    expect(isAgentRpcError(all[0])).toBe(false);
  });

  it('formats messages like libcni and grpc-go', () => {
    expect(new CniError(7, 'bad config', 'field x').message).toBe('bad config; field x');
    expect(new CniError(7, 'bad config').message).toBe('bad config');
    expect(new AgentRpcError(4, 'context deadline exceeded', false).message).toBe(
      'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    );
    expect(grpcCodeName(99)).toBe('Code(99)');
  });
});
