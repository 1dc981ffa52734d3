import type { UserInfo } from './authn/user.js';
import type { ApiCodec, ApiObject } from './codec.js';
import { ApiServerError } from './errors.js';
import type { ResourceRequestInfo, Verb } from './request-info.js';
import type { FieldSelector, LabelSelector } from './selectors.js';

/** Query parameters of list and watch (metav1.ListOptions), parsed and validated. */
export interface ListOptions {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  limit?: number;
  continue?: string;
}

/** Everything a handler learns about a request. */
export interface ApiRequest {
  info: ResourceRequestInfo;
  user: UserInfo;
  options: ListOptions;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Decoded request body (create/update), undefined otherwise. */
  body?: unknown;
}

/** A watch in progress, as the handler sees it. */
export interface WatchSink {
  readonly codec: ApiCodec;
  /** Queues an event; the frame is encoded once per (object, codec) across all watchers. */
  send(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR', object: ApiObject): boolean;
  /** Queues bytes already framed for `codec` (a store that frames per watcher itself). */
  sendFrame(frame: Uint8Array): boolean;
  readonly closed: boolean;
  /** Aborted when the watch ends: client gone, timeout, too slow, or server stop. */
  readonly signal: AbortSignal;
  /** Ends the watch cleanly (the client re-watches). */
  close(): void;
}

/** What a watch handler may return: a bookmark source for periodic BOOKMARKs during quiet periods. */
export interface WatchHandle {
  /** The BOOKMARK object (metadata.resourceVersion set) sent when the stream has been quiet. */
  bookmark?(): ApiObject | undefined;
}

/**
 * A `get` result sent as it is rather than encoded with the negotiated codec: a download such as
 * a support bundle archive (Kubernetes' rest.ResourceStreamer).
 */
export class RawResponse {
  constructor(
    readonly contentType: string,
    readonly body: Uint8Array,
  ) {}
}

/**
 * The operations a resource supports. Each is optional; a verb listed in the definition without
 * its operation is a registration error. Errors thrown as ApiError become Kubernetes Status
 * responses; anything else is logged and answered with 500 without details.
 */
export interface ResourceHandler {
  list?(req: ApiRequest): Promise<ApiObject> | ApiObject;
  get?(req: ApiRequest): Promise<ApiObject | RawResponse> | ApiObject | RawResponse;
  /** Starts sending events to `sink`; returns once set up (the stream stays open until closed). */
  watch?(req: ApiRequest, sink: WatchSink): Promise<WatchHandle | undefined> | WatchHandle | undefined;
  create?(req: ApiRequest): Promise<ApiObject> | ApiObject;
}

export interface SubresourceDefinition {
  name: string;
  kind: string;
  verbs: readonly Verb[];
  handler: ResourceHandler;
}

export interface ResourceDefinition {
  /** Plural, lower-case: `networkpolicies`. */
  name: string;
  singularName?: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly Verb[];
  shortNames?: readonly string[];
  subresources?: readonly SubresourceDefinition[];
  handler: ResourceHandler;
}

const VERB_OPERATION: Partial<Record<Verb, keyof ResourceHandler>> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  create: 'create',
};

function checkHandler(where: string, verbs: readonly Verb[], handler: ResourceHandler): void {
  for (const verb of verbs) {
    const op = VERB_OPERATION[verb];
    if (!op || typeof handler[op] !== 'function') {
      throw new ApiServerError(
        'APISERVER_REGISTRY_CONFLICT',
        `${where}: verb ${verb} has no handler operation`,
      );
    }
  }
}

interface GroupEntry {
  /** Versions in preference order (first registered is preferred). */
  versions: Map<string, Map<string, ResourceDefinition>>;
}

/** The served API: groups, versions and resources, from which discovery documents are derived. */
export class ResourceRegistry {
  readonly #groups = new Map<string, GroupEntry>();

  register(group: string, version: string, definition: ResourceDefinition): void {
    const where = `${definition.name}.${version}.${group}`;
    checkHandler(where, definition.verbs, definition.handler);
    for (const sub of definition.subresources ?? [])
      checkHandler(`${where}/${sub.name}`, sub.verbs, sub.handler);
    let entry = this.#groups.get(group);
    if (!entry) {
      entry = { versions: new Map() };
      this.#groups.set(group, entry);
    }
    let resources = entry.versions.get(version);
    if (!resources) {
      resources = new Map();
      entry.versions.set(version, resources);
    }
    if (resources.has(definition.name)) {
      throw new ApiServerError('APISERVER_REGISTRY_CONFLICT', `${where} is already registered`);
    }
    resources.set(definition.name, definition);
  }

  /** Declares an (empty for now) group version, so discovery lists it before resources arrive. */
  declareGroupVersion(group: string, version: string): void {
    const entry = this.#groups.get(group) ?? { versions: new Map() };
    if (!entry.versions.has(version)) entry.versions.set(version, new Map());
    this.#groups.set(group, entry);
  }

  lookup(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.#groups.get(group)?.versions.get(version)?.get(resource);
  }

  hasGroupVersion(group: string, version?: string): boolean {
    const entry = this.#groups.get(group);
    return entry !== undefined && (version === undefined || entry.versions.has(version));
  }

  groupVersions(): { group: string; version: string }[] {
    return [...this.#groups].flatMap(([group, e]) =>
      [...e.versions.keys()].map((version) => ({ group, version })),
    );
  }

  apiGroupList(): ApiObject {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...this.#groups.keys()].map((g) => this.#apiGroupBody(g)),
    };
  }

  apiGroup(group: string): ApiObject | undefined {
    if (!this.#groups.has(group)) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.#apiGroupBody(group) };
  }

  apiResourceList(group: string, version: string): ApiObject | undefined {
    const resources = this.#groups.get(group)?.versions.get(version);
    if (!resources) return undefined;
    const list: Record<string, unknown>[] = [];
    for (const def of resources.values()) {
      list.push({
        name: def.name,
        singularName: def.singularName ?? def.kind.toLowerCase(),
        namespaced: def.namespaced,
        kind: def.kind,
        verbs: [...def.verbs],
        ...(def.shortNames?.length ? { shortNames: [...def.shortNames] } : {}),
      });
      for (const sub of def.subresources ?? []) {
        list.push({
          name: `${def.name}/${sub.name}`,
          singularName: '',
          namespaced: def.namespaced,
          kind: sub.kind,
          verbs: [...sub.verbs],
        });
      }
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${group}/${version}`,
      resources: list,
    };
  }

  #apiGroupBody(group: string): Record<string, unknown> {
    const versions = [...this.#groups.get(group)!.versions.keys()].map((version) => ({
      groupVersion: `${group}/${version}`,
      version,
    }));
    return { name: group, versions, preferredVersion: versions[0] };
  }
}
