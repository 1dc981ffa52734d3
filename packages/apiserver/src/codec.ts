// Encodings a client can negotiate. The server only moves bytes; a codec turns objects into bytes
// and frames watch events, so the protobuf codec (k8s-proto) plugs in next to JSON unchanged.

export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

/** An API object as handlers return it: plain data with apiVersion and kind set. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  [field: string]: unknown;
}

export interface ApiCodec {
  /** Media type without parameters, as matched against Accept and Content-Type. */
  readonly mediaType: string;
  /** Content-Type of a watch response, e.g. `application/json;stream=watch`. */
  readonly streamContentType: string;
  encode(object: ApiObject): Uint8Array;
  /** One complete watch frame (for protobuf: length prefix + WatchEvent) around an encoded object. */
  frameWatchEvent(type: WatchEventType, encodedObject: Uint8Array): Uint8Array;
  /** Request bodies (create); a codec without it cannot be used as Content-Type. */
  decode?(body: Uint8Array): unknown;
}

const utf8 = new TextEncoder();
const EVENT_PREFIX = new Map(WATCH_EVENT_TYPES.map((t) => [t, utf8.encode(`{"type":"${t}","object":`)]));
const EVENT_SUFFIX = utf8.encode('}\n');

/**
 * Byte fields (IPs in controlplane objects are Go []byte) encode as base64 strings, as Go's
 * encoding/json does, so Go clients and `kubectl get --raw` read the same JSON Antrea serves. The
 * original value is read from the holder because Buffer's toJSON runs before a replacer sees it.
 */
function goJsonReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array
    ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
    : value;
}

/** application/json; watch events are newline-delimited `{"type":..,"object":..}` like kube-apiserver. */
export const jsonCodec: ApiCodec = {
  mediaType: 'application/json',
  streamContentType: 'application/json;stream=watch',
  encode: (object) => utf8.encode(JSON.stringify(object, goJsonReplacer)),
  frameWatchEvent(type, encodedObject) {
    const prefix = EVENT_PREFIX.get(type)!;
    const out = new Uint8Array(prefix.length + encodedObject.length + EVENT_SUFFIX.length);
    out.set(prefix, 0);
    out.set(encodedObject, prefix.length);
    out.set(EVENT_SUFFIX, prefix.length + encodedObject.length);
    return out;
  },
  decode: (body) => JSON.parse(new TextDecoder().decode(body)),
};

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part, order) => {
      const [type = '', ...rawParams] = part.split(';').map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of rawParams) {
        const eq = p.indexOf('=');
        if (eq > 0)
          params.set(
            p.slice(0, eq).trim().toLowerCase(),
            p
              .slice(eq + 1)
              .trim()
              .replace(/^"|"$/g, ''),
          );
      }
      const q = params.has('q') ? Number(params.get('q')) : 1;
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((r) => r.type !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
}

/**
 * Picks the codec for an Accept header, or undefined (406). Ranges that ask for a conversion we do
 * not offer (`as=Table`, `as=APIGroupDiscoveryList`: the g/v/as parameters) are skipped, so kubectl
 * and the aggregator fall back to the plain type they list after them. No Accept means the first.
 */
export function negotiate(accept: string | undefined, codecs: readonly ApiCodec[]): ApiCodec | undefined {
  if (!accept || accept.trim() === '') return codecs[0];
  for (const range of parseAccept(accept)) {
    if (range.params.has('as') || range.params.has('g') || range.params.has('v')) continue;
    if (range.type === '*/*') return codecs[0];
    if (range.type.endsWith('/*')) {
      const prefix = range.type.slice(0, -1);
      const match = codecs.find((c) => c.mediaType.startsWith(prefix));
      if (match) return match;
      continue;
    }
    const match = codecs.find((c) => c.mediaType === range.type);
    if (match) return match;
  }
  return undefined;
}

/** The codec for a request body's Content-Type (parameters such as charset ignored). */
export function codecForContentType(
  contentType: string | undefined,
  codecs: readonly ApiCodec[],
): ApiCodec | undefined {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  return codecs.find((c) => c.mediaType === type && c.decode);
}
