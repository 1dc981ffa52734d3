// Every error the dashboard package throws carries a fixed code; callers branch on `code`.

export const ErrorCodes = {
  /** A Traceflow form that cannot become a valid Traceflow (the page shows the message). */
  INVALID_TRACEFLOW_FORM: 'DASHBOARD_INVALID_TRACEFLOW_FORM',
  /** Reading from or writing to kube-apiserver failed. */
  KUBE_REQUEST_FAILED: 'DASHBOARD_KUBE_REQUEST_FAILED',
  /** A cross-site form post (its Origin is not the dashboard's own). */
  FORBIDDEN_ORIGIN: 'DASHBOARD_FORBIDDEN_ORIGIN',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const kDashboardError = Symbol.for('antrea-ts.dashboard.error');

export class DashboardError extends Error {
  readonly code: ErrorCode;
  readonly [kDashboardError] = true;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DashboardError';
    this.code = code;
  }

  /** Works across duplicated copies of this package, unlike instanceof. */
  static is(err: unknown): err is DashboardError {
    return typeof err === 'object' && err !== null && kDashboardError in err;
  }
}
