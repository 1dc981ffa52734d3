import type { AnyLabelSelector } from '@antrea-ts/apis';

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apimachinery validation.IsQualifiedName: errors, empty when valid. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN_RE.test(prefix))
      errs.push(
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
      );
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  else if (!NAME_RE.test(name))
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  return errs;
}

/** apimachinery validation.IsValidLabelValue */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (value !== '' && !NAME_RE.test(value))
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  return errs;
}

/** checkSelectorsLabels: matchLabels keys and values of every selector given. */
export function checkSelectorsLabels(
  ...selectors: (AnyLabelSelector | undefined | null)[]
): string | undefined {
  for (const sel of selectors) {
    for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) {
      const ke = qualifiedNameErrors(k);
      if (ke.length > 0) return `Invalid label key: ${k}: ${ke.join('; ')}`;
      const ve = labelValueErrors(v);
      if (ve.length > 0) return `Invalid label value: ${v}: ${ve.join('; ')}`;
    }
  }
  return undefined;
}
