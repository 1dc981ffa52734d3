import { AgentError } from '../errors.js';

/** IPv4 address arithmetic on numbers (the agent's podCIDRs and Node IPs are IPv4 for now). */

export interface Ipv4Cidr {
  /** Network address (host bits cleared). */
  readonly network: number;
  readonly prefix: number;
}

export function parseIpv4(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4) throw new AgentError('AGENT_CONFIG_INVALID', `not an IPv4 address: ${text}`);
  let v = 0;
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d{1,3}$/.test(p) || n > 255)
      throw new AgentError('AGENT_CONFIG_INVALID', `not an IPv4 address: ${text}`);
    v = v * 256 + n;
  }
  return v;
}

export function formatIpv4(v: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(v / 2 ** s) % 256).join('.');
}

const maskOf = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

export function parseCidr(text: string): Ipv4Cidr {
  const [addr, len] = text.split('/');
  const prefix = Number(len);
  if (addr === undefined || len === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
    throw new AgentError('AGENT_CONFIG_INVALID', `not an IPv4 CIDR: ${text}`);
  }
  return { network: (parseIpv4(addr) & maskOf(prefix)) >>> 0, prefix };
}

export function formatCidr(c: Ipv4Cidr): string {
  return `${formatIpv4(c.network)}/${c.prefix}`;
}

export function cidrContains(c: Ipv4Cidr, ip: string | number): boolean {
  const v = typeof ip === 'string' ? parseIpv4(ip) : ip;
  return (v & maskOf(c.prefix)) >>> 0 === c.network;
}

/** The Node's gateway address: the first host of its podCIDR, as Antrea reserves it. */
export function gatewayIp(podCidr: string): string {
  const c = parseCidr(podCidr);
  if (c.prefix > 30) throw new AgentError('AGENT_CONFIG_INVALID', `podCIDR ${podCidr} is too small`);
  return formatIpv4(c.network + 1);
}

export function isIpv4(text: string): boolean {
  try {
    parseIpv4(text);
    return true;
  } catch {
    return false;
  }
}
