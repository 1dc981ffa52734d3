/**
 * Errors of the label selector compiler. Callers branch on `code`, never on message text; the
 * catalogue is data so a test can keep it in step with the class.
 */
export const LABEL_ERROR_CODES = {
  /** A selector with an unknown operator, or a values list its operator does not allow. */
  INVALID_LABEL_SELECTOR: 'INVALID_LABEL_SELECTOR',
} as const;

export type LabelErrorCode = (typeof LABEL_ERROR_CODES)[keyof typeof LABEL_ERROR_CODES];

const kLabelSelectorError = Symbol.for('antrea-ts.apis.label-selector-error');

export class LabelSelectorError extends Error {
  readonly code: LabelErrorCode = LABEL_ERROR_CODES.INVALID_LABEL_SELECTOR;
  readonly [kLabelSelectorError] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LabelSelectorError';
  }

  /** Works across duplicate copies of this package, where `instanceof` would not. */
  static is(value: unknown): value is LabelSelectorError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [kLabelSelectorError]?: boolean })[kLabelSelectorError] === true
    );
  }
}
