import { OvsdbProtocolError } from '../errors.js';

/**
 * JSON-RPC 1.0 as OVSDB uses it (RFC 7047 section 4): requests carry a non-null id, notifications
 * carry `id: null`, responses carry `result` and `error` with exactly one of them non-null.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  readonly kind: 'request';
  readonly method: string;
  readonly params: unknown[];
  /** Any non-null JSON value; ovsdb-server uses the string "echo" for its probes. */
  readonly id: unknown;
}

export interface JsonRpcNotification {
  readonly kind: 'notification';
  readonly method: string;
  readonly params: unknown[];
}

export interface JsonRpcResponse {
  readonly kind: 'response';
  readonly id: unknown;
  readonly result: unknown;
  readonly error: unknown;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

const encoder = new TextEncoder();

export function encodeRequest(method: string, params: readonly unknown[], id: JsonRpcId): Uint8Array {
  return encoder.encode(JSON.stringify({ method, params, id }));
}

export function encodeNotification(method: string, params: readonly unknown[]): Uint8Array {
  return encoder.encode(JSON.stringify({ method, params, id: null }));
}

export function encodeResponse(id: unknown, result: unknown, error: unknown = null): Uint8Array {
  return encoder.encode(JSON.stringify({ result, error, id }));
}

/** Sorts a parsed JSON object into request, notification or response; throws on anything else. */
export function classifyMessage(json: unknown): JsonRpcMessage {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError('JSON-RPC message is not an object');
  }
  const msg = json as Record<string, unknown>;
  if (typeof msg['method'] === 'string') {
    const params = msg['params'];
    if (!Array.isArray(params)) {
      throw new OvsdbProtocolError(`JSON-RPC ${msg['method']} has non-array params`);
    }
    const id = msg['id'];
    if (id === null || id === undefined) return { kind: 'notification', method: msg['method'], params };
    return { kind: 'request', method: msg['method'], params, id };
  }
  if ('result' in msg || 'error' in msg) {
    if (!('id' in msg) || msg['id'] === null) throw new OvsdbProtocolError('JSON-RPC response without an id');
    return { kind: 'response', id: msg['id'], result: msg['result'] ?? null, error: msg['error'] ?? null };
  }
  throw new OvsdbProtocolError('JSON-RPC message has neither method nor result/error');
}

/**
 * The `error` member of a response is usually a string, but ovsdb-server also sends
 * `{"error": "...", "details": "..."}` objects. Normalise both.
 */
export function describeRpcError(error: unknown): { error: string; details?: string } {
  if (typeof error === 'string') return { error };
  if (typeof error === 'object' && error !== null) {
    const e = error as Record<string, unknown>;
    const out: { error: string; details?: string } = {
      error: typeof e['error'] === 'string' ? e['error'] : JSON.stringify(error),
    };
    if (typeof e['details'] === 'string') out.details = e['details'];
    return out;
  }
  return { error: JSON.stringify(error) };
}
