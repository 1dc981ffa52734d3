import { LabError } from './errors.js';
import type { PodPort } from './state.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** "ns/name" (or "name", in `default`) as the CLI takes Pod references. */
export function parsePodRef(text: string): { namespace: string; name: string } {
  const parts = text.split('/');
  const [namespace, name] = parts.length === 1 ? ['default', parts[0]] : parts;
  if (parts.length > 2 || !namespace || !name || !DNS_LABEL.test(namespace) || !DNS_LABEL.test(name)) {
    throw new LabError(
      'LAB_INVALID_ARGUMENT',
      `bad Pod reference ${JSON.stringify(text)}: want namespace/name`,
    );
  }
  return { namespace, name };
}

/** "80/TCP,81/UDP,http=8080" (protocol TCP when absent; an optional port name before "="). */
export function parsePorts(text: string): PodPort[] {
  if (text.trim() === '') return [];
  return text.split(',').map((item) => {
    const m = /^(?:([a-z0-9-]{1,15})=)?(\d{1,5})(?:\/(TCP|UDP|SCTP))?$/i.exec(item.trim());
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65535) {
      throw new LabError(
        'LAB_INVALID_ARGUMENT',
        `bad port ${JSON.stringify(item)}: want [name=]PORT[/TCP|UDP|SCTP]`,
      );
    }
    const protocol = (m[3]?.toUpperCase() ?? 'TCP') as PodPort['protocol'];
    return { port, protocol, ...(m[1] ? { name: m[1] } : {}) };
  });
}

/** "k=v,k2=v2" into a label map. */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text.trim() === '') return labels;
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (eq <= 0 || !/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key)) {
      throw new LabError('LAB_INVALID_ARGUMENT', `bad label ${JSON.stringify(item)}: want key=value`);
    }
    if (value !== '' && !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(value)) {
      throw new LabError('LAB_INVALID_ARGUMENT', `bad label value in ${JSON.stringify(item)}`);
    }
    labels[key] = value;
  }
  return labels;
}
