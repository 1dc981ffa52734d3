import { CniError } from '../errors.js';
import { CniCode } from './error-codes.js';
import { SUPPORTED_CNI_VERSIONS } from './versions.js';

/** What the plugin itself needs from the network configuration on stdin; the rest goes to the agent. */
export interface NetConf {
  readonly name: string;
  /** The config's cniVersion; "0.1.0" when absent, as libcni decodes it. */
  readonly cniVersion: string;
  /** Present for chained invocations and for CHECK/DEL (SPEC.md section 3). */
  readonly hasPrevResult: boolean;
  /** The exact bytes from stdin, forwarded untouched as CniCmdArgs.network_configuration. */
  readonly raw: Uint8Array;
}

const VALID_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeJson(raw: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(raw));
  } catch (err) {
    throw new CniError(
      CniCode.DECODING_FAILURE,
      `error unmarshall network config: ${(err as Error).message}`,
      '',
      {
        cause: err,
      },
    );
  }
}

/**
 * Decodes and validates the network configuration the way libcni's skel does before it calls a
 * plugin: JSON object (6), non-empty valid name (7), then a cniVersion this plugin supports (1).
 */
export function parseNetConf(raw: Uint8Array): NetConf {
  const value = decodeJson(raw);
  // Go's json.Unmarshal into a struct accepts null (all fields empty) and rejects non-objects.
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw new CniError(CniCode.DECODING_FAILURE, 'error unmarshall network config: not a JSON object');
  }
  const obj = (value ?? {}) as Record<string, unknown>;
  const name = obj['name'];
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw new CniError(CniCode.DECODING_FAILURE, 'error unmarshall network config: "name" is not a string');
  }
  if (!name) throw new CniError(CniCode.INVALID_NETWORK_CONFIG, 'missing network name');
  if (!VALID_NAME.test(name)) {
    throw new CniError(CniCode.INVALID_NETWORK_CONFIG, 'invalid characters found in network name', name);
  }
  const version = obj['cniVersion'];
  if (version !== undefined && version !== null && typeof version !== 'string') {
    throw new CniError(
      CniCode.DECODING_FAILURE,
      'decoding version from network config: "cniVersion" is not a string',
    );
  }
  const cniVersion = version || '0.1.0';
  if (!SUPPORTED_CNI_VERSIONS.includes(cniVersion)) {
    throw new CniError(
      CniCode.INCOMPATIBLE_CNI_VERSION,
      'incompatible CNI versions',
      `config is "${cniVersion}", plugin supports [${SUPPORTED_CNI_VERSIONS.map((v) => `"${v}"`).join(' ')}]`,
    );
  }
  return Object.freeze({ name, cniVersion, hasPrevResult: obj['prevResult'] != null, raw });
}

/** Best-effort read of cniVersion for error results, when the config may be unparseable. */
export function peekCniVersion(raw: Uint8Array): string | undefined {
  try {
    const v = (JSON.parse(decoder.decode(raw)) as Record<string, unknown> | null)?.['cniVersion'];
    return typeof v === 'string' && SUPPORTED_CNI_VERSIONS.includes(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
