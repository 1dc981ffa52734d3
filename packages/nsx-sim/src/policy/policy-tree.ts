import type { Clock, IdSource } from '../clock.js';
import { NsxApiError, notFound } from '../errors.js';
import type { SimStore } from '../state/sim-store.js';
import type { NsxObject, PolicyObject } from '../state/types.js';

/** Fields NSX computes; values sent by clients are ignored. */
const ENVELOPE_READ_ONLY = [
  'path',
  'parent_path',
  'relative_path',
  'unique_id',
  'realization_id',
  'marked_for_delete',
  'overridden',
  '_create_time',
  '_create_user',
  '_last_modified_time',
  '_last_modified_user',
  '_protection',
  '_system_owned',
  '_links',
  '_schema',
  '_self',
  'children',
] as const;

/** Paths that exist without being stored. */
const IMPLICIT_PARENTS = new Set([
  '/infra',
  '/infra/sites/default/enforcement-points/default',
  '/infra/antrea',
]);

export interface WriteContext {
  tree: PolicyTree;
  existing: PolicyObject | undefined;
  /**
   * Objects validated earlier in the same write (the parent first, then embedded siblings): what
   * they will be once the write is applied. Look a parent up here before the stored tree.
   */
  pending: readonly PolicyObject[];
  /** The write replaces this object's embedded children (its body carries them). */
  replacesEmbedded: boolean;
  /** More children of this object follow in the same transaction (hierarchical PATCH); it checks them itself. */
  childrenFollow: boolean;
}

export interface WriteOptions {
  /** See WriteContext.childrenFollow. */
  childrenFollow?: boolean;
}

/** How one Policy API resource family behaves. */
export interface PolicyKind {
  /** resource_type written when the client sends none. */
  resourceType: string;
  /** resource_type values a client may send (defaults to [resourceType]). */
  acceptedResourceTypes?: readonly string[];
  /** URL/path segment of the collection under the parent (e.g. "groups"). */
  collection: string;
  /** Kind-specific read-only fields: ignored in bodies, kept across PUT. */
  readOnly?: readonly string[];
  /** Children embedded in GET and replaceable through the parent's PUT/PATCH (rules, service_entries). */
  embedded?: { field: string; kind: PolicyKind };
  /** Called once on create, before validation (assign ids such as rule_id or node_id). */
  onCreate?(obj: PolicyObject, tree: PolicyTree, body: NsxObject): void;
  /** Semantic checks; each string becomes one related error. */
  validate?(obj: PolicyObject, ctx: WriteContext): string[];
  /** Policy paths the object points at; each must exist and blocks deleting its target. */
  references?(obj: PolicyObject): string[];
  /** Extra fields computed on read. */
  render?(obj: PolicyObject, tree: PolicyTree): NsxObject;
}

export type WriteMode = 'PUT' | 'PATCH';

export interface PolicyTreeDeps {
  store: SimStore;
  clock: Clock;
  ids: IdSource;
}

export function joinPath(parentPath: string, collection: string, id: string): string {
  return `${parentPath}/${collection}/${id}`;
}

/** `/a/c/x` -> `/a/c`: the collection an object path belongs to. */
function collectionOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** `/a/c/x` -> `/a`: the parent object path, or undefined at the top. */
function parentOf(path: string): string | undefined {
  const parent = collectionOf(collectionOf(path));
  return parent === '' ? undefined : parent;
}

interface MemoEntry {
  stamp: number;
  obj: PolicyObject | undefined;
  value: unknown;
}

/**
 * The Policy object tree: envelope bookkeeping, `_revision` checks, embedded children, reference
 * integrity. Routes and the demo seed both go through it, so seeded objects obey the same rules.
 */
export class PolicyTree {
  private readonly kinds = new Map<string, PolicyKind>();
  /** The `state.policy` record the indexes below describe; another record (load, rollback, reset) means rebuild. */
  private indexed: Record<string, PolicyObject> | undefined;
  /** Collection path (`<parent>/<collection>`) -> child paths, in the record's insertion order. */
  private readonly byCollection = new Map<string, Set<string>>();
  /** Object path -> collection paths under it that have children. */
  private readonly collectionsOf = new Map<string, Set<string>>();
  /** Bumped on every change through the tree and on every rebuild. */
  private changes = 0;
  /** Path -> `changes` value when the object or anything below it last changed. */
  private readonly stamps = new Map<string, number>();
  /** Path -> memo key -> cached derived value (see memo()). */
  private readonly memos = new Map<string, Map<string, MemoEntry>>();

  constructor(private readonly deps: PolicyTreeDeps) {}

  registerKind(kind: PolicyKind): void {
    for (const rt of kind.acceptedResourceTypes ?? [kind.resourceType]) this.kinds.set(rt, kind);
    if (kind.embedded) this.registerKind(kind.embedded.kind);
  }

  private get objects(): Record<string, PolicyObject> {
    this.sync();
    return this.deps.store.state.policy;
  }

  /** Brings the indexes up to date with the store's current state record. */
  private sync(): void {
    const objects = this.deps.store.state.policy;
    if (objects !== this.indexed) this.reindex(objects);
  }

  /** Rebuilds the child index from a record the tree has not seen (loaded, rolled back or reset state). */
  private reindex(objects: Record<string, PolicyObject>): void {
    this.indexed = objects;
    this.byCollection.clear();
    this.collectionsOf.clear();
    this.stamps.clear();
    this.memos.clear();
    this.changes += 1;
    for (const p of Object.keys(objects)) this.indexAdd(p);
  }

  private indexAdd(path: string): void {
    const coll = collectionOf(path);
    let set = this.byCollection.get(coll);
    if (!set) {
      set = new Set();
      this.byCollection.set(coll, set);
      const owner = collectionOf(coll);
      let colls = this.collectionsOf.get(owner);
      if (!colls) {
        colls = new Set();
        this.collectionsOf.set(owner, colls);
      }
      colls.add(coll);
    }
    set.add(path);
  }

  private indexRemove(path: string): void {
    const coll = collectionOf(path);
    const set = this.byCollection.get(coll);
    if (!set) return;
    set.delete(path);
    if (set.size > 0) return;
    this.byCollection.delete(coll);
    const owner = collectionOf(coll);
    const colls = this.collectionsOf.get(owner);
    colls?.delete(coll);
    if (colls?.size === 0) this.collectionsOf.delete(owner);
  }

  /** Records that the object at `path` (or something below it) changed: it and its ancestors get a new stamp. */
  private stamp(path: string): void {
    this.changes += 1;
    for (let p: string | undefined = path; p !== undefined; p = parentOf(p)) this.stamps.set(p, this.changes);
  }

  /** Stores `obj` at its path, keeping the indexes current. */
  private store(obj: PolicyObject): void {
    const objects = this.objects;
    if (!Object.hasOwn(objects, obj.path)) this.indexAdd(obj.path);
    objects[obj.path] = obj;
    this.stamp(obj.path);
  }

  /**
   * Callers that change a stored object in place (instead of through write()) report it here, so
   * that values derived from it (memo(), version) are recomputed.
   */
  markChanged(path: string): void {
    this.sync();
    this.stamp(path);
  }

  /** Changes with every modification of the tree (and when the state is replaced). */
  get version(): number {
    this.sync();
    return this.changes;
  }

  /**
   * A value derived from `obj` and its subtree, computed once and reused until the object is
   * replaced or it or anything below it changes. The value is shared: callers must not mutate it.
   */
  memo<T>(obj: PolicyObject, key: string, compute: () => T): T {
    this.sync();
    const stamp = this.stamps.get(obj.path) ?? 0;
    let byKey = this.memos.get(obj.path);
    const hit = byKey?.get(key);
    if (hit && hit.stamp === stamp && hit.obj === obj) return hit.value as T;
    const value = compute();
    if (!byKey) {
      byKey = new Map();
      this.memos.set(obj.path, byKey);
    }
    byKey.set(key, { stamp, obj, value });
    return value;
  }

  /**
   * A value derived from the whole tree (under `key`), computed once and reused until anything in
   * the tree changes. The value is shared: callers must not mutate it.
   */
  memoAll<T>(key: string, compute: () => T): T {
    const stamp = this.version;
    let byKey = this.memos.get('');
    const hit = byKey?.get(key);
    if (hit && hit.stamp === stamp) return hit.value as T;
    const value = compute();
    if (!byKey) {
      byKey = new Map();
      this.memos.set('', byKey);
    }
    // Older entries can never be hit again (e.g. the feed of a cluster since deleted): drop them.
    for (const [k, e] of byKey) if (e.stamp !== stamp) byKey.delete(k);
    byKey.set(key, { stamp, obj: undefined, value });
    return value;
  }

  get(path: string): PolicyObject | undefined {
    return Object.hasOwn(this.objects, path) ? this.objects[path] : undefined;
  }

  exists(path: string): boolean {
    return IMPLICIT_PARENTS.has(path) || this.get(path) !== undefined;
  }

  require(path: string): PolicyObject {
    const obj = this.get(path);
    if (!obj) throw notFound(path);
    return obj;
  }

  /** Direct children of `parentPath` in collection `collection`. */
  children(parentPath: string, collection: string): PolicyObject[] {
    const objects = this.objects;
    const out: PolicyObject[] = [];
    for (const p of this.byCollection.get(`${parentPath}/${collection}`) ?? []) {
      const obj = objects[p];
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Paths of every stored object below `path` (not `path` itself), parents before children. */
  private descendants(path: string, out: string[] = []): string[] {
    for (const coll of this.collectionsOf.get(path) ?? []) {
      for (const child of this.byCollection.get(coll) ?? []) {
        out.push(child);
        this.descendants(child, out);
      }
    }
    return out;
  }

  /** NSX rule ids are unique integers starting at 1000. */
  nextRuleId(): number {
    const counters = this.deps.store.state.counters;
    const id = counters.rule_id;
    counters.rule_id += 1;
    return id;
  }

  newUuid(): string {
    return this.deps.ids.uuid();
  }

  all(): PolicyObject[] {
    return Object.values(this.objects);
  }

  kindOf(obj: PolicyObject): PolicyKind | undefined {
    return this.kinds.get(obj.resource_type);
  }

  /** The object as GET returns it: embedded children and computed fields included. */
  render(obj: PolicyObject): NsxObject {
    const kind = this.kindOf(obj);
    let out: NsxObject = { ...obj };
    if (kind?.embedded) {
      out[kind.embedded.field] = sortBySequence(this.children(obj.path, kind.embedded.kind.collection)).map(
        (c) => this.render(c),
      );
    }
    if (kind?.render) out = { ...out, ...kind.render(obj, this) };
    return out;
  }

  /** PUT or PATCH one object (and its embedded children when the body carries them). */
  write(
    kind: PolicyKind,
    parentPath: string,
    id: string,
    body: NsxObject,
    mode: WriteMode,
    user: string,
    options: WriteOptions = {},
  ): NsxObject {
    if (!this.exists(parentPath)) throw notFound(parentPath);
    const childrenFollow = options.childrenFollow ?? false;
    const pending: PolicyObject[] = [];
    const emb = kind.embedded;
    const replacesEmbedded = emb !== undefined && Array.isArray(body[emb.field]);
    const parent = this.prepare(kind, parentPath, id, body, mode, user, [], replacesEmbedded, childrenFollow);
    pending.push(parent);
    const removals: string[] = [];
    if (emb && replacesEmbedded) {
      const seen = new Set<string>();
      for (const [i, child] of (body[emb.field] as unknown[]).entries()) {
        if (typeof child !== 'object' || child === null) {
          throw new NsxApiError('NSX_INVALID_REQUEST', `${emb.field}[${i}] must be an object`);
        }
        const childBody = child as NsxObject;
        const childId = childBody['id'];
        if (typeof childId !== 'string' || childId === '') {
          throw new NsxApiError('NSX_INVALID_REQUEST', `${emb.field}[${i}].id is required`);
        }
        if (seen.has(childId))
          throw new NsxApiError('NSX_INVALID_REQUEST', `duplicate ${emb.field} id ${childId}`);
        seen.add(childId);
        pending.push(
          this.prepare(emb.kind, parent.path, childId, childBody, mode, user, pending, false, false),
        );
      }
      for (const old of this.children(parent.path, emb.kind.collection)) {
        if (!seen.has(old.id)) removals.push(old.path);
      }
    }
    // Everything validated: apply.
    for (const p of removals) this.removeSubtree(p);
    for (const obj of pending) this.store(obj);
    this.deps.store.commit('policy');
    return this.render(parent);
  }

  private prepare(
    kind: PolicyKind,
    parentPath: string,
    id: string,
    body: NsxObject,
    mode: WriteMode,
    user: string,
    siblings: PolicyObject[],
    replacesEmbedded: boolean,
    childrenFollow: boolean,
  ): PolicyObject {
    if (!/^[A-Za-z0-9_.:@-][A-Za-z0-9_.:@ -]{0,254}$/.test(id)) {
      throw new NsxApiError('NSX_INVALID_REQUEST', `invalid object id "${id}"`);
    }
    if (body['id'] !== undefined && body['id'] !== id) {
      throw new NsxApiError(
        'NSX_INVALID_REQUEST',
        `id in body (${String(body['id'])}) does not match id in URL (${id})`,
      );
    }
    const accepted = kind.acceptedResourceTypes ?? [kind.resourceType];
    const rt = body['resource_type'];
    if (rt !== undefined && !accepted.includes(rt as string)) {
      throw new NsxApiError(
        'NSX_INVALID_REQUEST',
        `resource_type ${String(rt)} is not valid here; expected ${accepted.join(' or ')}`,
      );
    }
    const path = joinPath(parentPath, kind.collection, id);
    const existing = this.get(path);
    const rev = body['_revision'];
    if (existing) {
      if (mode === 'PUT' && rev === undefined) {
        throw new NsxApiError(
          'NSX_REVISION_REQUIRED',
          `Object ${path} already exists; _revision is required to update it with PUT (current _revision ${existing._revision}).`,
        );
      }
      if (rev !== undefined && rev !== existing._revision) {
        throw new NsxApiError(
          'NSX_STALE_REVISION',
          `The object ${path} was modified by somebody else (_revision ${String(rev)} given, current is ${existing._revision}). Please refresh and try again.`,
        );
      }
    }
    const readOnly = new Set<string>([...ENVELOPE_READ_ONLY, ...(kind.readOnly ?? []), '_revision', 'id']);
    if (kind.embedded) readOnly.add(kind.embedded.field);
    const userFields: NsxObject = {};
    for (const [k, v] of Object.entries(body)) if (!readOnly.has(k)) userFields[k] = v;

    const now = this.deps.clock.now();
    let next: PolicyObject;
    if (existing) {
      const kept: NsxObject = {};
      for (const [k, v] of Object.entries(existing)) if (readOnly.has(k)) kept[k] = v;
      const base = mode === 'PUT' ? kept : existing;
      next = {
        ...base,
        ...userFields,
        id,
        path,
        resource_type: (rt as string | undefined) ?? existing.resource_type,
        _revision: existing._revision + 1,
        _last_modified_time: now,
        _last_modified_user: user,
      } as unknown as PolicyObject;
      if (next['display_name'] === undefined) next['display_name'] = id;
    } else {
      const uid = this.deps.ids.uuid();
      next = {
        ...userFields,
        id,
        resource_type: (rt as string | undefined) ?? kind.resourceType,
        display_name: (userFields['display_name'] as string | undefined) ?? id,
        path,
        parent_path: parentPath,
        relative_path: id,
        unique_id: uid,
        realization_id: uid,
        marked_for_delete: false,
        overridden: false,
        _revision: 0,
        _create_time: now,
        _create_user: user,
        _last_modified_time: now,
        _last_modified_user: user,
        _protection: this.isProtectedPrincipal(user) ? 'PROTECTED' : 'NOT_PROTECTED',
        _system_owned: false,
      };
      kind.onCreate?.(next, this, body);
    }
    const errors =
      kind.validate?.(next, { tree: this, existing, pending: siblings, replacesEmbedded, childrenFollow }) ??
      [];
    if (errors.length > 0) {
      throw new NsxApiError(
        'NSX_INVALID_OBJECT',
        `${kind.resourceType} ${path} is invalid: ${errors.join('; ')}`,
        {
          related: errors,
        },
      );
    }
    const missing = (kind.references?.(next) ?? []).filter(
      (ref) => !this.exists(ref) && !siblings.some((s) => s.path === ref),
    );
    if (missing.length > 0) {
      throw new NsxApiError(
        'NSX_INVALID_PATH',
        `Invalid path(s) [${missing.join(', ')}] referenced by ${path}: no such object.`,
        { related: missing.map((m) => `path=[${m}] does not exist`) },
      );
    }
    return next;
  }

  /** Objects outside the subtree at `path` that reference something inside it: [referrer, target]. */
  referrersOf(path: string): [string, string][] {
    const inside = (p: string) => p === path || p.startsWith(`${path}/`);
    const out: [string, string][] = [];
    for (const obj of this.all()) {
      if (inside(obj.path)) continue;
      for (const ref of this.kindOf(obj)?.references?.(obj) ?? []) if (inside(ref)) out.push([obj.path, ref]);
    }
    return out;
  }

  /** DELETE: removes the object and its subtree; refuses when something outside still points at it. */
  delete(path: string): boolean {
    if (!this.get(path)) return false;
    const refs = this.referrersOf(path);
    if (refs.length > 0) {
      throw new NsxApiError(
        'NSX_RESOURCE_IN_USE',
        `Cannot delete ${path} because it is referenced by ${[...new Set(refs.map((r) => r[0]))].join(', ')}.`,
        { related: refs.map(([from, to]) => `${to} is referenced by ${from}`) },
      );
    }
    this.removeSubtree(path);
    this.deps.store.commit('policy');
    return true;
  }

  /** Removes without checks and without committing (callers commit). */
  removeSubtree(path: string): void {
    const inside = (p: string) => p === path || p.startsWith(`${path}/`);
    const objects = this.objects;
    const removed = this.descendants(path);
    if (Object.hasOwn(objects, path)) removed.push(path);
    for (const p of removed) {
      delete objects[p];
      this.indexRemove(p);
      this.stamps.delete(p);
      this.memos.delete(p);
    }
    const parent = parentOf(path);
    if (parent !== undefined) this.stamp(parent);
    else this.changes += 1;
    const state = this.deps.store.state;
    for (const p of Object.keys(state.realization)) if (inside(p)) delete state.realization[p];
    for (const byRule of Object.values(state.statistics)) {
      for (const p of Object.keys(byRule)) if (inside(p)) delete byRule[p];
    }
  }

  /** Objects created by a protected principal identity are PROTECTED (others need X-Allow-Overwrite). */
  private isProtectedPrincipal(user: string): boolean {
    return Object.values(this.deps.store.state.principal_identities).some(
      (pi) => pi.name === user && pi.is_protected,
    );
  }

  /**
   * Refuses to let anyone but the owning principal identity modify or delete a PROTECTED object
   * unless the request carries `X-Allow-Overwrite: true`.
   */
  checkOwnership(path: string, user: string, allowOverwrite: boolean): void {
    const obj = this.get(path);
    if (obj?.['_protection'] !== 'PROTECTED' || obj['_create_user'] === user || allowOverwrite) return;
    throw new NsxApiError(
      'NSX_PROTECTED_OBJECT',
      `Object ${path} is owned by principal identity ${String(obj['_create_user'])}; ${user} may change it only with header X-Allow-Overwrite: true.`,
    );
  }

  /** Stores a fully formed object (seed/system objects). */
  putRaw(obj: PolicyObject): void {
    this.store(obj);
  }
}

export function sortBySequence<T extends NsxObject>(items: T[]): T[] {
  return [...items].sort((a, b) => {
    const sa = typeof a['sequence_number'] === 'number' ? (a['sequence_number'] as number) : 0;
    const sb = typeof b['sequence_number'] === 'number' ? (b['sequence_number'] as number) : 0;
    if (sa !== sb) return sa - sb;
    return String(a['id']).localeCompare(String(b['id']));
  });
}
