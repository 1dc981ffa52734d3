import { readFileSync } from 'node:fs';

/** A kubeconfig for one user of the lab cluster: a client certificate or a bearer token. */
export function kubeconfigYaml(options: {
  server: string;
  caFile: string;
  user: string;
  client?: { cert: string; key: string };
  token?: string;
}): string {
  const b64 = (file: string) => readFileSync(file).toString('base64');
  const credentials = options.client
    ? `    client-certificate-data: ${b64(options.client.cert)}\n    client-key-data: ${b64(options.client.key)}\n`
    : `    token: ${options.token ?? ''}\n`;
  return `apiVersion: v1
kind: Config
clusters:
- name: antrea-ts-lab
  cluster:
    server: ${options.server}
    certificate-authority-data: ${b64(options.caFile)}
users:
- name: ${options.user}
  user:
${credentials}contexts:
- name: ${options.user}@antrea-ts-lab
  context:
    cluster: antrea-ts-lab
    user: ${options.user}
current-context: ${options.user}@antrea-ts-lab
`;
}
