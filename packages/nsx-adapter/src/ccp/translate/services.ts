import type { PolicyPort, PolicyProtocol } from '@antrea-ts/apis';
import { TranslationError } from '../../errors.js';
import type { NsxRule, NsxService, NsxServiceEntry } from '../../nsx/types.js';

export interface RuleServices {
  ports: PolicyPort[];
  protocols: PolicyProtocol[];
}

function unsupported(path: string, what: string): TranslationError {
  return new TranslationError(
    'TRANSLATION_UNSUPPORTED',
    path,
    `rule ${path}: ${what} is not supported for Antrea clusters`,
  );
}

/** "80" -> {port: 80}; "8000-8080" -> {port: 8000, endPort: 8080}. */
function portRange(p: string, path: string): { port: number; endPort?: number } {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(p.trim());
  const a = Number(m?.[1]);
  const b = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || a > 65535 || (b !== undefined && (b > 65535 || b < a))) {
    throw new TranslationError(
      'TRANSLATION_INVALID',
      path,
      `rule ${path}: "${p}" is not a port or port range`,
    );
  }
  return b === undefined || b === a ? { port: a } : { port: a, endPort: b };
}

function entryToAntrea(
  e: NsxServiceEntry,
  path: string,
  out: RuleServices,
  services: ReadonlyMap<string, NsxService>,
  depth: number,
): void {
  switch (e.resource_type) {
    case 'L4PortSetServiceEntry': {
      const proto = e.l4_protocol;
      if (proto !== 'TCP' && proto !== 'UDP') throw unsupported(path, `L4 protocol ${String(proto)}`);
      if ((e.source_ports ?? []).length > 0) throw unsupported(path, 'source ports');
      const dst = e.destination_ports ?? [];
      if (dst.length === 0) out.ports.push({ protocol: proto });
      for (const p of dst) out.ports.push({ protocol: proto, ...portRange(p, path) });
      return;
    }
    case 'ICMPTypeServiceEntry': {
      if (e.protocol !== 'ICMPv4') throw unsupported(path, `ICMP protocol ${String(e.protocol)}`);
      const icmp: { icmpType?: number; icmpCode?: number } = {};
      if (e.icmp_type !== undefined) icmp.icmpType = e.icmp_type;
      if (e.icmp_code !== undefined) {
        if (e.icmp_type === undefined) throw unsupported(path, 'an ICMP code without a type');
        icmp.icmpCode = e.icmp_code;
      }
      out.protocols.push({ icmp });
      return;
    }
    case 'NestedServiceServiceEntry': {
      const nested = e.nested_service_path ? services.get(e.nested_service_path) : undefined;
      if (!nested)
        throw new TranslationError(
          'TRANSLATION_INVALID',
          path,
          `rule ${path}: nested service ${String(e.nested_service_path)} not found`,
        );
      if (depth > 8)
        throw new TranslationError('TRANSLATION_INVALID', path, `rule ${path}: nested services too deep`);
      for (const n of nested.service_entries ?? []) entryToAntrea(n, path, out, services, depth + 1);
      return;
    }
    default:
      throw unsupported(path, `service entry type ${e.resource_type}`);
  }
}

/**
 * A rule's `services` (paths or "ANY") and inline `service_entries` -> Antrea ports (TCP/UDP
 * destination ports, ranges as port/endPort) and protocols (ICMPv4 type/code). "ANY" alone means no
 * restriction (both lists empty). A rule mixing L4 ports and ICMP is refused: one Antrea rule with
 * both `ports` and `protocols` does not say plainly whether it matches either or both, and NSX
 * means either; refusing keeps the realized policy unambiguous.
 */
export function translateRuleServices(
  rule: NsxRule,
  services: ReadonlyMap<string, NsxService>,
): RuleServices {
  const path = rule.path;
  const out: RuleServices = { ports: [], protocols: [] };
  for (const s of rule.services ?? []) {
    if (s === 'ANY') continue;
    const svc = services.get(s);
    if (!svc) throw new TranslationError('TRANSLATION_INVALID', path, `rule ${path}: service ${s} not found`);
    for (const e of svc.service_entries ?? []) entryToAntrea(e, path, out, services, 0);
  }
  for (const e of rule.service_entries ?? []) entryToAntrea(e, path, out, services, 0);
  if (out.ports.length > 0 && out.protocols.length > 0)
    throw unsupported(path, 'mixing TCP/UDP ports and ICMP in one rule');
  // Identical entries from overlapping services collapse (Antrea would match them once anyway).
  const seen = new Set<string>();
  out.ports = out.ports.filter((p) => {
    const k = JSON.stringify(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return out;
}
