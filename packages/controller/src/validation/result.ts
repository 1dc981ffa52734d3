/** Outcome of an admission check; `reason` is shown to the user when not allowed. */
export interface ValidationResult {
  readonly allowed: boolean;
  readonly reason: string;
  readonly warnings: readonly string[];
}

export const ALLOWED: ValidationResult = Object.freeze({ allowed: true, reason: '', warnings: [] });

export function deny(reason: string, warnings: readonly string[] = []): ValidationResult {
  return { allowed: false, reason, warnings };
}

/** Go's reflect IsZero over decoded JSON: nil, "", false and 0 are zero; an empty list is not. */
export function numFieldsSet(obj: object): number {
  let n = 0;
  for (const v of Object.values(obj)) {
    if (v === undefined || v === null || v === '' || v === false || v === 0) continue;
    n++;
  }
  return n;
}
