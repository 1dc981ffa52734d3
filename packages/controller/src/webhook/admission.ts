import type { PlainRequest, PlainResponse } from '@antrea-ts/apiserver';

// admission.k8s.io/v1 AdmissionReview as kube-apiserver sends it to webhooks and expects back.

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo?: AdmissionUserInfo;
  /** The object as admitted (null on DELETE). */
  object?: unknown;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: unknown;
  dryRun?: boolean;
}

/** What a validator or mutator decides; the handler adds uid and encodes the patch. */
export interface AdmissionDecision {
  allowed: boolean;
  /** status.message; empty or absent for no status. */
  message?: string;
  warnings?: readonly string[];
  /** RFC 6902 operations; sent base64 with patchType JSONPatch when non-empty. */
  patch?: readonly JsonPatchOperation[];
}

export interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { metadata: Record<string, never>; message: string };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export type AdmissionHandler = (request: AdmissionRequest) => AdmissionDecision;

function text(status: number, body: string): PlainResponse {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${body}\n` };
}

/** Builds the response object of a review (uid echoed, patch base64-encoded). */
export function admissionResponse(uid: string, d: AdmissionDecision): AdmissionResponse {
  const out: AdmissionResponse = { uid, allowed: d.allowed };
  if (d.message) out.status = { metadata: {}, message: d.message };
  if (d.patch && d.patch.length > 0) {
    out.patch = Buffer.from(JSON.stringify(d.patch)).toString('base64');
    out.patchType = 'JSONPatch';
  }
  if (d.warnings && d.warnings.length > 0) out.warnings = [...d.warnings];
  return out;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * One webhook call: AdmissionReview v1 in, AdmissionReview v1 out, as Antrea's handlers do it
 * (pkg/apiserver/handlers/webhook): an empty body is 400, a body that is not JSON is 415, a review
 * that cannot be decoded is answered with a denial carrying the decoding error.
 */
export function serveAdmissionReview(req: PlainRequest, handler: AdmissionHandler): PlainResponse {
  if (req.method !== 'POST') return text(405, 'method not allowed, expected POST');
  if (req.body.length === 0) return text(400, 'empty request body');
  if (mediaType(req.contentType) !== 'application/json')
    return text(415, 'invalid Content-Type, expected `application/json`');
  const review: AdmissionReview = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' };
  let request: AdmissionRequest | undefined;
  let decision: AdmissionDecision;
  try {
    const parsed = JSON.parse(req.body.toString('utf8')) as { request?: AdmissionRequest } | null;
    request = parsed?.request ?? undefined;
    if (!request || typeof request !== 'object') throw new Error('admission review has no request');
    if (typeof request.uid !== 'string' || !request.kind || typeof request.operation !== 'string')
      throw new Error('admission request lacks uid, kind or operation');
    decision = handler(request);
  } catch (err) {
    decision = { allowed: false, message: (err as Error).message };
  }
  review.response = admissionResponse(typeof request?.uid === 'string' ? request.uid : '', decision);
  return { status: 200, contentType: 'application/json', body: JSON.stringify(review) };
}
