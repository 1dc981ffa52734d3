// A client of the agent's HTTPS API as antctl and supportbundle use it: a bearer token, and either
// the CA from AntreaAgentInfo.apiCABundle (verified, servername "localhost") or no verification.
import { request } from 'node:https';

export interface AgentApiResponse {
  status: number;
  text: string;
}

export interface AgentApiCall {
  token?: string;
  /** PEM bundle to verify against; none skips verification (kubelet's probes, antctl on loopback). */
  ca?: string;
  method?: string;
}

export function agentApiGet(base: string, path: string, call: AgentApiCall = {}): Promise<AgentApiResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: call.method ?? 'GET',
        headers: call.token ? { authorization: `Bearer ${call.token}` } : {},
        ...(call.ca ? { ca: call.ca, servername: 'localhost' } : { rejectUnauthorized: false }),
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path}: no answer`)));
    req.on('error', reject);
    req.end();
  });
}

/** AntreaAgentInfo.apiCABundle (base64 of PEM) as the PEM text a TLS client takes. */
export function caFromAgentInfo(info: { apiCABundle?: string }): string {
  if (!info.apiCABundle) throw new Error('AntreaAgentInfo has no apiCABundle');
  return Buffer.from(info.apiCABundle, 'base64').toString('utf8');
}
