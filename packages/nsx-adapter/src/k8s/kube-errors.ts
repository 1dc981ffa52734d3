import { KubeRequestError } from '../errors.js';

/** client-node throws ApiException {code, body}; turn it into a coded error. */
export function kubeError(what: string, err: unknown): KubeRequestError {
  const e = err as { code?: unknown; body?: unknown; message?: string };
  const status = typeof e?.code === 'number' ? e.code : undefined;
  let message = e?.message ?? String(err);
  if (typeof e?.body === 'string') {
    try {
      message = (JSON.parse(e.body) as { message?: string }).message ?? message;
    } catch {
      // keep the exception message
    }
  } else if (e?.body && typeof e.body === 'object' && 'message' in e.body) {
    message = String((e.body as { message: unknown }).message);
  }
  return new KubeRequestError(`${what}: ${message}`, status, { cause: err });
}
