/** antctl's own version, printed as antctlVersion by `antctl version` (same scheme as the agent's). */
export const ANTCTL_VERSION = '0.1.0-antrea-ts';
