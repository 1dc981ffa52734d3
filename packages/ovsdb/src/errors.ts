/**
 * Every error this package throws. Callers branch on `code`, never on message text.
 * The catalogue below is data so a test can keep it in step with the classes.
 */
export const OVSDB_ERROR_CODES = {
  /** The byte stream is not a sequence of JSON objects (garbage, bad UTF-8, too large, too deep). */
  OVSDB_PARSE: 'OVSDB_PARSE',
  /** A JSON value is well-formed JSON but not a valid OVSDB/JSON-RPC shape. */
  OVSDB_PROTOCOL: 'OVSDB_PROTOCOL',
  /** The connection dropped (or was never up) while a request needed it. */
  OVSDB_DISCONNECTED: 'OVSDB_DISCONNECTED',
  /** A request got no reply in time, or the peer stopped answering echo probes. */
  OVSDB_TIMEOUT: 'OVSDB_TIMEOUT',
  /** The client was stopped; no more requests are accepted. */
  OVSDB_CLOSED: 'OVSDB_CLOSED',
  /** The server answered a JSON-RPC request with a non-null `error`. */
  OVSDB_RPC_ERROR: 'OVSDB_RPC_ERROR',
  /** A transact operation (or the commit) failed; `details` carries the server's error. */
  OVSDB_TXN_FAILED: 'OVSDB_TXN_FAILED',
  /** A row the typed layer needs does not exist (bridge, port, interface). */
  OVSDB_NOT_FOUND: 'OVSDB_NOT_FOUND',
  /** ovs-vswitchd rejected an interface (ofport -1 with an `error` column). */
  OVSDB_INTERFACE_ERROR: 'OVSDB_INTERFACE_ERROR',
} as const;

export type OvsdbErrorCode = (typeof OVSDB_ERROR_CODES)[keyof typeof OVSDB_ERROR_CODES];

const kOvsdbError = Symbol.for('antrea-ts.ovsdb.error');

export class OvsdbError extends Error {
  readonly code: OvsdbErrorCode;
  readonly [kOvsdbError] = true;

  constructor(code: OvsdbErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OvsdbError';
    this.code = code;
  }

  /** Works across duplicate copies of this package, where `instanceof` would not. */
  static is(value: unknown): value is OvsdbError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [kOvsdbError]?: boolean })[kOvsdbError] === true
    );
  }
}

export class OvsdbParseError extends OvsdbError {
  /** Byte offset in the stream where the problem was found. */
  readonly offset: number;
  constructor(message: string, offset: number, options?: { cause?: unknown }) {
    super('OVSDB_PARSE', `${message} (at byte ${offset})`, options);
    this.name = 'OvsdbParseError';
    this.offset = offset;
  }
}

export class OvsdbProtocolError extends OvsdbError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OVSDB_PROTOCOL', message, options);
    this.name = 'OvsdbProtocolError';
  }
}

export class OvsdbDisconnectedError extends OvsdbError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OVSDB_DISCONNECTED', message, options);
    this.name = 'OvsdbDisconnectedError';
  }
}

export class OvsdbTimeoutError extends OvsdbError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OVSDB_TIMEOUT', message, options);
    this.name = 'OvsdbTimeoutError';
  }
}

export class OvsdbClosedError extends OvsdbError {
  constructor(message = 'OVSDB client is stopped') {
    super('OVSDB_CLOSED', message);
    this.name = 'OvsdbClosedError';
  }
}

/** A JSON-RPC level error: `error` is the server's error string, `details` its optional text. */
export class OvsdbRpcError extends OvsdbError {
  readonly method: string;
  readonly error: string;
  readonly details: string | undefined;
  constructor(method: string, error: string, details?: string) {
    super('OVSDB_RPC_ERROR', `${method}: ${error}${details ? `: ${details}` : ''}`);
    this.name = 'OvsdbRpcError';
    this.method = method;
    this.error = error;
    this.details = details;
  }
}

/**
 * A transaction that did not commit. `opIndex` is the failing operation (or `ops.length` when the
 * commit itself failed), `error`/`details` are the server's words.
 */
export class OvsdbTxnError extends OvsdbError {
  readonly opIndex: number;
  readonly op: string | undefined;
  readonly error: string;
  readonly details: string | undefined;
  constructor(opIndex: number, op: string | undefined, error: string, details?: string) {
    const where = op === undefined ? 'commit' : `operation ${opIndex} (${op})`;
    super('OVSDB_TXN_FAILED', `transaction failed at ${where}: ${error}${details ? `: ${details}` : ''}`);
    this.name = 'OvsdbTxnError';
    this.opIndex = opIndex;
    this.op = op;
    this.error = error;
    this.details = details;
  }
}

export class OvsdbNotFoundError extends OvsdbError {
  constructor(message: string) {
    super('OVSDB_NOT_FOUND', message);
    this.name = 'OvsdbNotFoundError';
  }
}

export class OvsdbInterfaceError extends OvsdbError {
  readonly interfaceName: string;
  constructor(interfaceName: string, reason: string) {
    super('OVSDB_INTERFACE_ERROR', `interface ${interfaceName}: ${reason}`);
    this.name = 'OvsdbInterfaceError';
    this.interfaceName = interfaceName;
  }
}
