import { request } from 'node:https';

/**
 * GET a /metrics URL as Prometheus does with a scrape job written for Antrea: HTTPS with
 * `insecure_skip_verify: true`, Prometheus's Accept header, a bearer token when given.
 */
export function prometheusScrape(url: string, token?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        rejectUnauthorized: false,
        agent: false,
        timeout: 15_000,
        headers: {
          accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`scrape of ${url} timed out`)));
    req.end();
  });
}
