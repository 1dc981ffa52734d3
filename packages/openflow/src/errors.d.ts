/**
 * Error catalogue of @antrea-ts/openflow. Callers branch on `code`, never on message text.
 * `Symbol.for` markers keep `isOpenFlowError` working across duplicated copies of the package.
 */
export declare const OF_ERROR_CODES: readonly [
  'OF_DECODE',
  'OF_ENCODE',
  'OF_ERROR_REPLY',
  'OF_DISCONNECTED',
  'OF_TIMEOUT',
  'OF_VERSION_MISMATCH',
  'OF_BUNDLE_FAILED',
  'OF_PARSE',
  'OF_CLOSED',
];
export type OpenFlowErrorCode = (typeof OF_ERROR_CODES)[number];
declare const MARK: unique symbol;
export declare class OpenFlowError extends Error {
  readonly code: OpenFlowErrorCode;
  readonly [MARK] = true;
  constructor(
    code: OpenFlowErrorCode,
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
export declare function isOpenFlowError(err: unknown): err is OpenFlowError;
/** A frame or structure could not be decoded (truncated, bad length, unknown layout). */
export declare class OfDecodeError extends OpenFlowError {
  constructor(
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
/** A value given to an encoder cannot be represented on the wire. */
export declare class OfEncodeError extends OpenFlowError {
  constructor(
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
/** Text in ovs-ofctl flow syntax could not be parsed. */
export declare class OfParseError extends OpenFlowError {
  constructor(
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
/**
 * The switch answered a request with OFPT_ERROR. `xid` is the xid of the offending message
 * (inside a bundle: the xid of the bundled message), `messageIndex` its position in the batch
 * given to `commitBundle`, when known.
 */
export declare class OfErrorReply extends OpenFlowError {
  readonly errType: number;
  readonly errCode: number;
  readonly xid: number;
  readonly errName: string;
  messageIndex: number | undefined;
  constructor(errType: number, errCode: number, xid: number, errName: string, messageIndex?: number);
}
/** A bundle could not be committed; `errors` lists the per-message rejections the switch sent. */
export declare class OfBundleError extends OpenFlowError {
  readonly errors: OfErrorReply[];
  constructor(
    message: string,
    errors: OfErrorReply[],
    options?: {
      cause?: unknown;
    },
  );
}
export declare class OfDisconnectedError extends OpenFlowError {
  constructor(
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
export declare class OfTimeoutError extends OpenFlowError {
  constructor(message: string);
}
export declare class OfVersionMismatchError extends OpenFlowError {
  constructor(message: string);
}
/** The connection was stopped by its owner; pending requests fail with this. */
export declare class OfClosedError extends OpenFlowError {
  constructor(message?: string);
}
//# sourceMappingURL=errors.d.ts.map
