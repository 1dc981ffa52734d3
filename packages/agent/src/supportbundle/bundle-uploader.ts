// Where a SupportBundleCollection's archive goes. Antrea uploads with SFTP to fileServer.url;
// Antrea-TS has no SSH client (no dependency speaks SFTP, and writing SSH is out of scope), so it
// uploads over HTTP(S) with PUT, carrying the collection's credentials as HTTP authentication,
// and reports sftp:// URLs as unsupported on the collection's status.
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

export interface BundleUploader {
  upload(url: string, auth: BundleServerAuth, fileName: string, archive: Buffer): Promise<void>;
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

  upload(url: string, auth: BundleServerAuth, fileName: string, archive: Buffer): Promise<void> {
    let target: URL;
    try {
      target = new URL(`${url.replace(/\/+$/, '')}/${encodeURIComponent(fileName)}`);
    } catch {
      return Promise.reject(new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `bad file server URL ${url}`));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(
        new AgentError(
          'AGENT_BUNDLE_UPLOAD_FAILED',
          `${target.protocol.replace(':', '')} upload is not implemented by Antrea-TS: use an http(s):// fileServer URL`,
        ),
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
