/**
 * Error catalogue of @antrea-ts/openflow. Callers branch on `code`, never on message text.
 * `Symbol.for` markers keep `isOpenFlowError` working across duplicated copies of the package.
 */
export const OF_ERROR_CODES = [
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
const MARK = Symbol.for('@antrea-ts/openflow.error');
export class OpenFlowError extends Error {
  code;
  [MARK] = true;
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
    this.name = 'OpenFlowError';
  }
}
export function isOpenFlowError(err) {
  return typeof err === 'object' && err !== null && err[MARK] === true;
}
/** A frame or structure could not be decoded (truncated, bad length, unknown layout). */
export class OfDecodeError extends OpenFlowError {
  constructor(message, options) {
    super('OF_DECODE', message, options);
    this.name = 'OfDecodeError';
  }
}
/** A value given to an encoder cannot be represented on the wire. */
export class OfEncodeError extends OpenFlowError {
  constructor(message, options) {
    super('OF_ENCODE', message, options);
    this.name = 'OfEncodeError';
  }
}
/** Text in ovs-ofctl flow syntax could not be parsed. */
export class OfParseError extends OpenFlowError {
  constructor(message, options) {
    super('OF_PARSE', message, options);
    this.name = 'OfParseError';
  }
}
/**
 * The switch answered a request with OFPT_ERROR. `xid` is the xid of the offending message
 * (inside a bundle: the xid of the bundled message), `messageIndex` its position in the batch
 * given to `commitBundle`, when known.
 */
export class OfErrorReply extends OpenFlowError {
  errType;
  errCode;
  xid;
  errName;
  messageIndex;
  constructor(errType, errCode, xid, errName, messageIndex) {
    super(
      'OF_ERROR_REPLY',
      `switch rejected message xid=${xid}${messageIndex === undefined ? '' : ` (#${messageIndex})`}: ${errName}`,
    );
    this.name = 'OfErrorReply';
    this.errType = errType;
    this.errCode = errCode;
    this.xid = xid;
    this.errName = errName;
    this.messageIndex = messageIndex;
  }
}
/** A bundle could not be committed; `errors` lists the per-message rejections the switch sent. */
export class OfBundleError extends OpenFlowError {
  errors;
  constructor(message, errors, options) {
    super('OF_BUNDLE_FAILED', message, options);
    this.name = 'OfBundleError';
    this.errors = errors;
  }
}
export class OfDisconnectedError extends OpenFlowError {
  constructor(message, options) {
    super('OF_DISCONNECTED', message, options);
    this.name = 'OfDisconnectedError';
  }
}
export class OfTimeoutError extends OpenFlowError {
  constructor(message) {
    super('OF_TIMEOUT', message);
    this.name = 'OfTimeoutError';
  }
}
export class OfVersionMismatchError extends OpenFlowError {
  constructor(message) {
    super('OF_VERSION_MISMATCH', message);
    this.name = 'OfVersionMismatchError';
  }
}
/** The connection was stopped by its owner; pending requests fail with this. */
export class OfClosedError extends OpenFlowError {
  constructor(message = 'connection closed') {
    super('OF_CLOSED', message);
    this.name = 'OfClosedError';
  }
}
//# sourceMappingURL=errors.js.map
