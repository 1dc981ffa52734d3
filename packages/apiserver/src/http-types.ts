import type { IncomingHttpHeaders } from 'node:http';

// The server speaks HTTP/2 (what client-go and the aggregator negotiate over TLS) and HTTP/1.1 on
// one port; Node hands it either API's request/response. These are the parts both share and the
// server uses, so the rest of the code does not care which protocol a request came over.

export interface HttpRequest extends AsyncIterable<Buffer> {
  readonly url?: string;
  readonly method?: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  /** The TLS socket (for HTTP/2, a proxy to the session's socket). */
  readonly socket: unknown;
  /** Present on HTTP/2 requests only. */
  readonly stream?: { session?: unknown };
}

export interface HttpResponse {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string | number): unknown;
  removeHeader(name: string): void;
  writeHead(status: number, headers?: Record<string, string | number>): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: Uint8Array | string): unknown;
  once(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  destroy(): unknown;
  cork?(): void;
  uncork?(): void;
  /** HTTP/1.1 only. */
  flushHeaders?(): void;
}

/** Every value of every header, lower-cased names (what IncomingMessage.headersDistinct gives on HTTP/1.1). */
export function headersDistinct(rawHeaders: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name.startsWith(':')) continue;
    const values = out[name] ?? [];
    values.push(rawHeaders[i + 1]!);
    out[name] = values;
  }
  return out;
}
