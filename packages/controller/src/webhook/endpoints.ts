import type { PlainEndpoint } from '@antrea-ts/apiserver';
import { type AdmissionHandler, serveAdmissionReview } from './admission.js';
import { mutateAntreaPolicy } from './mutator.js';
import type { AdmissionValidator } from './validator.js';

/**
 * The admission webhook paths antrea-controller serves on its API port (Antrea's
 * pkg/apiserver/apiserver.go), for Antrea-native policies, Tiers and groups.
 */
export function webhookEndpoints(validator: AdmissionValidator): Map<string, PlainEndpoint> {
  const validate: AdmissionHandler = (r) => validator.validate(r);
  const endpoint =
    (h: AdmissionHandler): PlainEndpoint =>
    (req) =>
      serveAdmissionReview(req, h);
  return new Map([
    ['/mutate/acnp', endpoint(mutateAntreaPolicy)],
    ['/mutate/annp', endpoint(mutateAntreaPolicy)],
    ...['tier', 'acnp', 'annp', 'clustergroup', 'group', 'egress', 'externalippool'].map(
      (p) => [`/validate/${p}`, endpoint(validate)] as [string, PlainEndpoint],
    ),
  ]);
}
