import { describe, expect, it } from 'vitest';
import {
  isOpenFlowError,
  OF_ERROR_CODES,
  OfBundleError,
  OfClosedError,
  OfDecodeError,
  OfDisconnectedError,
  OfEncodeError,
  OfErrorReply,
  OfParseError,
  OfTimeoutError,
  OfVersionMismatchError,
  type OpenFlowError,
} from './errors.js';

describe('error catalogue', () => {
  const samples: OpenFlowError[] = [
    new OfDecodeError('x'),
    new OfEncodeError('x'),
    new OfErrorReply(2, 9, 7, 'OFPBAC_BAD_OUT_GROUP', 3),
    new OfDisconnectedError('x'),
    new OfTimeoutError('x'),
    new OfVersionMismatchError('x'),
    new OfBundleError('x', []),
    new OfParseError('x'),
    new OfClosedError(),
  ];

  it('has exactly one class per code, each recognisable without instanceof', () => {
    expect(samples.map((e) => e.code).sort()).toEqual([...OF_ERROR_CODES].sort());
    for (const e of samples) {
      expect(isOpenFlowError(e)).toBe(true);
      expect(e).toBeInstanceOf(Error);
    }
    expect(isOpenFlowError(new Error('plain'))).toBe(false);
  });

  it('an error reply names the message it refers to', () => {
    const e = new OfErrorReply(2, 9, 7, 'OFPBAC_BAD_OUT_GROUP', 3);
    expect(e.message).toBe('switch rejected message xid=7 (#3): OFPBAC_BAD_OUT_GROUP');
  });
});
