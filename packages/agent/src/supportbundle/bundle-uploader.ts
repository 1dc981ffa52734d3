// Where a SupportBundleCollection's archive goes: the uploader interface, and its HTTP(S) PUT form,
// an Antrea-TS extension for http(s):// fileServer URLs carrying the collection's credentials as
// HTTP authentication (Antrea uploads with SFTP only: sftp-uploader.ts).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AgentError } from '../errors.js';

/**
 * The collection's credentials as the controller sends them (controlplane
 * BundleServerAuthConfiguration). The message has no auth type: the controller fills only the
 * field of the CR's authType, so the field that is set says which one it is.
 */
export interface BundleServerAuth {
  bearerToken?: string;
  apiKey?: string;
  basicAuthentication?: { username?: string; password?: string };
}

/** spec.fileServer as agents receive it (controlplane BundleFileServer). */
export interface BundleFileServer {
  url: string;
  /** The SSH host key the server must present (wire format); absent: any. */
  hostPublicKey?: Uint8Array;
}

export interface BundleUploader {
  upload(
    fileServer: BundleFileServer,
    auth: BundleServerAuth,
    fileName: string,
    archive: Buffer,
  ): Promise<void>;
}

function authHeaders(auth: BundleServerAuth): Record<string, string> {
  if (auth.bearerToken !== undefined) return { authorization: `Bearer ${auth.bearerToken}` };
  if (auth.apiKey !== undefined) return { 'x-api-key': auth.apiKey };
  const b = auth.basicAuthentication;
  if (b === undefined) return {};
  return {
    authorization: `Basic ${Buffer.from(`${b.username ?? ''}:${b.password ?? ''}`).toString('base64')}`,
  };
}

/** PUT <url>/<fileName>; 2xx is success. */
export class HttpBundleUploader implements BundleUploader {
  constructor(private readonly timeoutMs = 120_000) {}

  upload(
    { url }: BundleFileServer,
    auth: BundleServerAuth,
    fileName: string,
    archive: Buffer,
  ): Promise<void> {
    let target: URL;
    try {
      target = new URL(`${url.replace(/\/+$/, '')}/${encodeURIComponent(fileName)}`);
    } catch {
      return Promise.reject(new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `bad file server URL ${url}`));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(
        new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `not an http(s):// file server URL: ${url}`),
      );
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        target,
        {
          method: 'PUT',
          headers: {
            'content-type': 'application/gzip',
            'content-length': String(archive.length),
            ...authHeaders(auth),
          },
          timeout: this.timeoutMs,
          agent: false,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve();
            else
              reject(
                new AgentError(
                  'AGENT_BUNDLE_UPLOAD_FAILED',
                  `file server answered ${code} for ${target.pathname}`,
                ),
              );
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) =>
        reject(
          new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `upload to ${target.host} failed: ${err.message}`, {
            cause: err,
          }),
        ),
      );
      req.end(archive);
    });
  }
}
