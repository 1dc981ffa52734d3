import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OvsdbProtocolError } from '../errors.js';
import { classifyMessage, describeRpcError, encodeNotification, encodeResponse } from './jsonrpc.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('JSON-RPC codec', () => {
  it('classifies the server echo probe as a request with id "echo"', () => {
    expect(classifyMessage(fixture('echo.request.json'))).toEqual({
      kind: 'request',
      method: 'echo',
      params: [],
      id: 'echo',
    });
  });

  it('classifies notifications and responses', () => {
    expect(classifyMessage(fixture('update2.notification.json')).kind).toBe('notification');
    expect(classifyMessage({ id: 3, result: null, error: 'unknown database' })).toEqual({
      kind: 'response',
      id: 3,
      result: null,
      error: 'unknown database',
    });
  });

  it.each([
    ['an array', []],
    ['a string', 'x'],
    ['a request with object params', { method: 'echo', params: {}, id: 1 }],
    ['a response with no id', { result: 1, error: null }],
    ['an object with neither', { id: 1 }],
  ])('rejects %s', (_name, json) => {
    expect(() => classifyMessage(json)).toThrow(OvsdbProtocolError);
  });

  it('encodes responses and notifications in the RFC shape', () => {
    expect(new TextDecoder().decode(encodeResponse('echo', []))).toBe(
      '{"result":[],"error":null,"id":"echo"}',
    );
    expect(new TextDecoder().decode(encodeNotification('x', [1]))).toBe(
      '{"method":"x","params":[1],"id":null}',
    );
  });

  it('normalises both shapes of server error', () => {
    expect(describeRpcError('unknown method')).toEqual({ error: 'unknown method' });
    expect(describeRpcError({ error: 'syntax error', details: 'bad' })).toEqual({
      error: 'syntax error',
      details: 'bad',
    });
    expect(describeRpcError(5)).toEqual({ error: '5' });
  });
});
