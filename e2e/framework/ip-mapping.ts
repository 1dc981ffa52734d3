// From the IPs a case was written with (fixture IPs) to the IPs the cluster gave its Pods.
//
// Two things in an applied object refer to Pod IPs:
// 1. `${ip:ns/pod}` placeholders: replaced by the Pod's real primary IP (its first one).
// 2. Literal addresses written from fixture IPs (a case's `notes` say so). Every string in the object
//    that is exactly a CIDR ("10.244.1.11/32", "0.0.0.0/4") or exactly the fixture IP of a Pod is
//    treated by what it selects, not by its digits:
//    a. F = the case's Pods (those existing now) whose fixture IP of that family lies in it.
//    b. If the literal value already holds the real IPs of exactly F and of no other case Pod, it is
//       kept: 0.0.0.0/0, 0.0.0.0/4 around 10.x Pods, 10.0.0.0/8, external CIDRs that hold no Pod.
//       (This is why the lab keeps its Pod CIDRs inside 10.0.0.0/8.)
//    c. Otherwise it becomes the smallest CIDR holding the real IPs of F (a bare IP: that Pod's real
//       IP), provided that CIDR holds no other case Pod; a /32 of one Pod stays a /32 of that Pod.
//       An `except` inside a rewritten `cidr` stays inside it, because both cover real IPs of nested
//       Pod sets.
//    d. If no CIDR selects exactly F among the real IPs (F empty but real Pods inside, or F's real IPs
//       interleaved with other Pods), the object cannot keep its meaning: E2E_IP_MAPPING, and the case
//       fails with that message rather than testing something else.
// Only the case's own Pods are considered: other workloads on the cluster are out of scope.
// Placeholders are substituted after the rewrite, so real IPs are never rewritten again.
import { podKey } from './case-types.js';
import { E2eError } from './errors.js';
import {
  type Addr,
  type Cidr,
  cidrContains,
  coveringCidr,
  formatCidr,
  formatIP,
  parseCidr,
  parseIP,
} from './ip.js';

export interface MappedPod {
  namespace: string;
  name: string;
  fixtureIPs: readonly string[];
  realIPs: readonly string[];
}

const PLACEHOLDER = /\$\{ip:([^}]*)\}/g;

interface Entry {
  key: string;
  fixture: Addr[];
  real: Addr[];
}

export class IpMapping {
  private readonly entries: Entry[];

  constructor(pods: readonly MappedPod[]) {
    this.entries = pods.map((p) => ({
      key: podKey(p.namespace, p.name),
      fixture: p.fixtureIPs.map((s) => parseIP(s)).filter((a): a is Addr => !!a),
      real: p.realIPs.map((s) => parseIP(s)).filter((a): a is Addr => !!a),
    }));
  }

  /** The real IP written for `${ip:ns/pod}`: the Pod's first real IP. */
  realIP(key: string): string {
    const e = this.entries.find((x) => x.key === key);
    const ip = e?.real[0];
    if (!ip) throw new E2eError('E2E_UNKNOWN_POD', `\${ip:${key}}: no such Pod with an IP in this case`);
    return formatIP(ip);
  }

  /** Returns a copy of `obj` with literal fixture addresses rewritten and placeholders filled in. */
  prepare<T>(obj: T): T {
    return this.walk(obj) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === 'string') return this.rewriteString(v);
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.walk(x);
      return out;
    }
    return v;
  }

  private rewriteString(s: string): string {
    const cidr = parseCidr(s);
    if (cidr) return this.rewriteCidr(s, cidr);
    const ip = parseIP(s);
    if (ip) {
      const owner = this.entries.find((e) =>
        e.fixture.some((f) => f.family === ip.family && f.value === ip.value),
      );
      const real = owner?.real.find((r) => r.family === ip.family);
      if (owner && !real)
        throw new E2eError('E2E_IP_MAPPING', `${s}: Pod ${owner.key} has no real IPv${ip.family}`);
      return real ? formatIP(real) : s;
    }
    return s.replace(PLACEHOLDER, (_, key: string) => this.realIP(key));
  }

  private rewriteCidr(text: string, c: Cidr): string {
    const selected = this.entries.filter((e) => e.fixture.some((f) => cidrContains(c, f)));
    const realOf = (e: Entry): Addr | undefined => e.real.find((r) => r.family === c.family);
    const holdsExactly = (cidr: Cidr) =>
      this.entries.every((e) => {
        const r = realOf(e);
        const inside = !!r && cidrContains(cidr, r);
        return inside === selected.includes(e);
      });
    if (holdsExactly(c)) return text;
    const fail = (why: string): never => {
      throw new E2eError('E2E_IP_MAPPING', `CIDR ${text} cannot be rewritten to real Pod IPs: ${why}`);
    };
    if (selected.length === 0) {
      const inside = this.entries.filter((e) => {
        const r = realOf(e);
        return r && cidrContains(c, r);
      });
      fail(`it holds no fixture Pod IP but holds the real IPs of ${inside.map((e) => e.key).join(', ')}`);
    }
    const reals = selected.map((e) => realOf(e) ?? fail(`Pod ${e.key} has no real IPv${c.family}`));
    const cover = coveringCidr(reals);
    if (!holdsExactly(cover)) {
      const extra = this.entries.filter(
        (e) => !selected.includes(e) && cidrContains(cover, realOf(e) ?? { family: 4, value: -1n }),
      );
      fail(
        `the smallest CIDR ${formatCidr(cover)} around ${selected.map((e) => e.key).join(', ')} also holds ${extra.map((e) => e.key).join(', ')}`,
      );
    }
    return formatCidr(cover);
  }
}
