import { OvsdbParseError } from '../errors.js';

export interface FrameParserOptions {
  /** Largest single JSON object accepted; a peer that sends more is broken or hostile. */
  maxFrameBytes?: number;
  /** Deepest nesting accepted; OVSDB values nest a handful of levels, so deep input is garbage. */
  maxDepth?: number;
}

export interface PushResult {
  /** Every complete JSON object found, in stream order. */
  messages: unknown[];
  /** Set once the stream is unusable; later pushes return the same error and no messages. */
  error?: OvsdbParseError;
}

export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Splits an OVSDB byte stream into JSON objects. OVSDB (RFC 7047 section 4) sends JSON-RPC objects
 * back to back with no delimiter, so the only way to find a boundary is to track nesting while
 * skipping over strings. Scanning works on bytes: every structural character is ASCII and UTF-8
 * continuation bytes never collide with ASCII, so multi-byte characters split across chunks are
 * harmless. The full syntax check is left to JSON.parse once a balanced object is found.
 */
export class FrameParser {
  private readonly maxFrameBytes: number;
  private readonly maxDepth: number;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /** Pieces of the frame being assembled (only bytes from its opening brace onwards). */
  private parts: Uint8Array[] = [];
  private frameBytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes consumed over the life of the stream, for error offsets. */
  private streamOffset = 0;
  private failure: OvsdbParseError | undefined;

  constructor(options: FrameParserOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /** True while a frame has started but not finished: at end of stream this means truncation. */
  get hasPartialFrame(): boolean {
    return this.depth > 0;
  }

  get failed(): OvsdbParseError | undefined {
    return this.failure;
  }

  push(chunk: Uint8Array): PushResult {
    const messages: unknown[] = [];
    if (this.failure) return { messages, error: this.failure };
    let frameStart = this.depth > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.depth === 0) {
        if (isWhitespace(b)) continue;
        if (b !== OPEN_BRACE) {
          return this.fail(messages, `expected '{' between messages, got byte 0x${b.toString(16)}`, i);
        }
        frameStart = i;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (++this.depth > this.maxDepth) {
          return this.fail(messages, `nesting deeper than ${this.maxDepth}`, i);
        }
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--this.depth === 0) {
          const piece = chunk.subarray(frameStart, i + 1);
          if (this.frameBytes + piece.length > this.maxFrameBytes) {
            return this.fail(messages, `message larger than ${this.maxFrameBytes} bytes`, i);
          }
          this.parts.push(piece);
          const decoded = this.decodeFrame();
          if (decoded.error) return this.fail(messages, decoded.error, i, decoded.cause);
          messages.push(decoded.value);
          frameStart = -1;
        }
      }
    }
    if (this.depth > 0 && frameStart >= 0) {
      const piece = chunk.subarray(frameStart);
      if (this.frameBytes + piece.length > this.maxFrameBytes) {
        return this.fail(messages, `message larger than ${this.maxFrameBytes} bytes`, chunk.length);
      }
      // Copy: the caller may reuse its buffer after push() returns.
      this.parts.push(Uint8Array.from(piece));
      this.frameBytes += piece.length;
    }
    this.streamOffset += chunk.length;
    return { messages };
  }

  /**
   * Call when the stream ends. A half-received frame is reported as an error so a caller can tell
   * a clean close from a truncated one.
   */
  end(): OvsdbParseError | undefined {
    if (this.failure) return this.failure;
    if (this.depth > 0) {
      this.failure = new OvsdbParseError('stream ended inside a message', this.streamOffset);
      return this.failure;
    }
    return undefined;
  }

  private decodeFrame(): { value?: unknown; error?: string; cause?: unknown } {
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const bytes = this.parts.length === 1 ? this.parts[0]! : concat(this.parts, total);
    this.parts = [];
    this.frameBytes = 0;
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch (cause) {
      return { error: 'message is not valid UTF-8', cause };
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch (cause) {
      return { error: `message is not valid JSON: ${(cause as Error).message}`, cause };
    }
  }

  private fail(messages: unknown[], reason: string, index: number, cause?: unknown): PushResult {
    this.failure = new OvsdbParseError(reason, this.streamOffset + index, { cause });
    this.parts = [];
    this.frameBytes = 0;
    return { messages, error: this.failure };
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
