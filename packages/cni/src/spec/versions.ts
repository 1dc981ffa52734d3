import { CniError } from '../errors.js';
import { CniCode } from './error-codes.js';

/** The spec version this plugin implements; what libcni's version.Current() returns. */
export const CURRENT_CNI_VERSION = '1.1.0';

/**
 * Every version libcni's `version.All` lists, which is what Antrea's antrea-cni advertises: the
 * plugin only forwards bytes, and the agent rejects config versions it cannot produce results for.
 */
export const SUPPORTED_CNI_VERSIONS: readonly string[] = Object.freeze([
  '0.1.0',
  '0.2.0',
  '0.3.0',
  '0.3.1',
  '0.4.0',
  '1.0.0',
  '1.1.0',
]);

/** The version of the Antrea CNI gRPC API this client speaks (pkg/cni/client.go AntreaCNIVersion). */
export const ANTREA_CNI_API_VERSION = '1.0.0-beta.1';

function parse(v: string): [number, number, number] {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (!m) throw new CniError(CniCode.DECODING_FAILURE, `unable to parse version "${v}"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** a >= b by semantic version; throws a DECODING_FAILURE CniError on a malformed version, as libcni. */
export function versionAtLeast(a: string, b: string): boolean {
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    if (x[i]! !== y[i]!) return x[i]! > y[i]!;
  }
  return true;
}
