// Removes credentials from text before it goes into a support bundle. Two layers: values the
// component knows to be secret (its own token, key material it loaded) are replaced wherever they
// appear, and shapes that are credentials whoever wrote them (PEM private keys, JWTs, bearer
// headers, token/password/key fields in YAML, JSON and key=value text, kubeconfig *-data fields)
// are replaced by pattern. Pure: no I/O.

export const REDACTED = '<redacted>';

/** Field names whose values are credentials, in any of YAML, JSON or key=value form. */
const SECRET_FIELD =
  '(?:[A-Za-z0-9_-]*(?:token|password|passwd|secret|apikey|api-key|api_key|privatekey|private-key|private_key|client-key-data|client-certificate-data|credentials?))';

const PATTERNS: readonly RegExp[] = [
  // PEM private keys of every kind (RSA, EC, OPENSSH, PKCS#8, encrypted).
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  // JSON Web Tokens (service-account tokens): three base64url parts, the first a JSON header.
  /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // HTTP authorization values.
  /(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  // "field": "value" (JSON)
  new RegExp(`("${SECRET_FIELD}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi'),
  // field: value (YAML) and field=value (flags, env, logfmt); a value to the end of the token.
  new RegExp(`(\\b${SECRET_FIELD}\\s*[:=]\\s*)(?!<redacted>)["']?[^\\s"',}]+["']?`, 'gi'),
];

export interface RedactorOptions {
  /** Exact secret values (tokens, keys) to remove wherever they appear; short values are ignored. */
  readonly secrets?: readonly string[];
}

export class Redactor {
  private readonly literals: string[];

  constructor(options: RedactorOptions = {}) {
    // Longest first, so a secret that contains another is removed whole. Values shorter than 8
    // characters would redact common words and tell nothing about the secret anyway.
    this.literals = [
      ...new Set((options.secrets ?? []).map((s) => s.trim()).filter((s) => s.length >= 8)),
    ].sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret and every credential-shaped value replaced by REDACTED. */
  redact(text: string): string {
    let out = text;
    for (const s of this.literals) out = out.split(s).join(REDACTED);
    for (const re of PATTERNS) {
      out = out.replace(re, (match, field?: string) =>
        typeof field === 'string' && match.startsWith(field)
          ? `${field}${quoteLike(match, field)}`
          : REDACTED,
      );
    }
    return out;
  }
}

/** The replacement after a field name, keeping JSON quotes so the document stays parseable. */
function quoteLike(match: string, field: string): string {
  return match.slice(field.length).startsWith('"') ? `"${REDACTED}"` : REDACTED;
}
