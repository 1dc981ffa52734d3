// What a request is about, resolved like apiserver's RequestInfoFactory: authorization, metrics
// and dispatch all read this one description.

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  path: string;
  verb: Verb;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  path: string;
  /** Lower-case HTTP method, as SubjectAccessReview's nonResourceAttributes.verb wants it. */
  verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const METHOD_VERBS: Record<string, Verb> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

export function resolveRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase() };
  const segments = path.split('/').filter((s) => s !== '');
  let parts: string[];
  let apiGroup: string;
  let apiVersion: string;
  if (segments[0] === 'apis' && segments.length >= 4) {
    apiGroup = segments[1]!;
    apiVersion = segments[2]!;
    parts = segments.slice(3);
  } else if (segments[0] === 'api' && segments.length >= 3) {
    apiGroup = '';
    apiVersion = segments[1]!;
    parts = segments.slice(2);
  } else {
    // /apis, /apis/<g>, /apis/<g>/<v>: discovery, authorized as non-resource URLs like Kubernetes.
    return nonResource;
  }
  let verb = METHOD_VERBS[method.toUpperCase()];
  if (!verb) return nonResource;
  // The deprecated /watch/ path prefix still exists in Kubernetes; honour it the same way.
  if (parts[0] === 'watch') {
    parts = parts.slice(1);
    verb = 'watch';
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    namespace = parts[1]!;
    parts = parts.slice(2);
  } else if (parts[0] === 'namespaces' && parts.length === 2) {
    namespace = parts[1]!;
  }
  const [resource = '', name = '', subresource = ''] = parts;
  if (verb === 'get' && name === '') verb = 'list';
  if ((verb === 'list' || verb === 'get') && isTrue(query.get('watch'))) verb = 'watch';
  if (verb === 'delete' && name === '') verb = 'deletecollection';
  return {
    isResourceRequest: true,
    path,
    verb,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource: parts.length > 3 ? parts.slice(2).join('/') : subresource,
    name,
  };
}
