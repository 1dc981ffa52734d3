import { type Labels, labelPairKey, type Selector } from '@antrea-ts/apis';
import type { GroupSelector } from '../labels/group-selector.js';
import { SmallSet } from '../small-set.js';
import { KeyedBucket } from './keyed-bucket.js';

// The grouping index matches Pods against selectors at the granularity of *label sets*, not Pods:
// all Pods of one Namespace with identical labels share one LabelItem, and all groups with the same
// normalized selector share one SelectorItem, so each distinct (label set, selector) pair is
// evaluated once however many Pods and policies there are. Namespace selectors are interned too,
// so a Namespace relabel re-evaluates each distinct namespaceSelector once.
//
// One index holds one kind of entity, like Antrea's per-entity-type label and selector indexes:
// Pods are matched by podSelector, ExternalEntities by externalEntitySelector, and a selector with
// an externalEntitySelector selects ExternalEntities only (Antrea's GroupEntityIndex.match).

/** The kind of workload an index holds. */
export type EntityKind = 'pod' | 'externalEntity';

/**
 * What the index knows about a Pod (or ExternalEntity): its identity and the attributes groups are
 * built from. For an ExternalEntity, nodeName is its entity Node key and ips its endpoints.
 */
export interface PodState {
  namespace: string;
  name: string;
  labels: Labels;
  nodeName: string;
  ips: readonly string[];
  hostNetwork: boolean;
  terminated: boolean;
}

export interface PodEntity<T = unknown> {
  readonly key: string;
  state: PodState;
  labelItem: LabelItem<T>;
  /** Opaque per-Pod payload owned by the caller (cached GroupMember objects). */
  payload: T;
}

export interface LabelItem<T = unknown> {
  readonly key: string;
  readonly ns: NamespaceEntity<T>;
  readonly labels: Labels;
  readonly pods: SmallSet<PodEntity<T>>;
  readonly selectors: SmallSet<SelectorItem<T>>;
}

export interface NamespaceEntity<T = unknown> {
  readonly name: string;
  /** undefined while the Namespace object is unknown (Pods may arrive before it). */
  labels: Labels | undefined;
  readonly labelItems: Map<string, LabelItem<T>>;
  /** The same label items, indexed by label pair once there are many. */
  readonly labelBucket: KeyedBucket<LabelItem<T>>;
  readonly nsSelectors: Set<NsSelectorItem<T>>;
}

export interface NsSelectorItem<T = unknown> {
  readonly key: string;
  readonly selector: Selector;
  readonly namespaces: Set<NamespaceEntity<T>>;
  readonly selectorItems: KeyedBucket<SelectorItem<T>>;
}

export interface SelectorItem<T = unknown> {
  readonly key: string;
  readonly selector: GroupSelector;
  readonly nsSelector: NsSelectorItem<T> | undefined;
  readonly labelItems: SmallSet<LabelItem<T>>;
  refs: number;
  /** Owned by the index's user: who to notify when the item changes. */
  users: SmallSet<unknown> | undefined;
}

/**
 * What changed about a selector item's Pods since the last drain, as bit flags. Groups that carry
 * no IPs (AppliedToGroups) need not be rebuilt for an address-only change, nor address groups for
 * a Node-only one.
 */
export const POD_NODE_CHANGED = 1;
export const POD_IPS_CHANGED = 2;
/** The selected Pod set changed, or an attribute every kind of group depends on. */
export const PODS_CHANGED = 0xff;

/** Scope of a selector item, decided once from its GroupSelector. */
type Scope = 'namespace' | 'nsSelector' | 'cluster' | 'nothing';

/** The selector matched against entity labels: podSelector for Pods, externalEntitySelector for EEs. */
function objectSelectorOf(sel: GroupSelector, kind: EntityKind): Selector | undefined {
  return kind === 'pod' ? sel.podSelector : sel.externalEntitySelector;
}

function scopeOf(sel: GroupSelector, kind: EntityKind): Scope {
  // Node selectors select neither kind; an externalEntitySelector makes a selector select
  // ExternalEntities instead of Pods.
  if (sel.nodeSelector) return 'nothing';
  if ((sel.externalEntitySelector !== undefined) !== (kind === 'externalEntity')) return 'nothing';
  if (sel.namespace !== '') return 'namespace';
  if (sel.namespaceSelector) return 'nsSelector';
  if (objectSelectorOf(sel, kind)) return 'cluster';
  return 'nothing';
}

function labelItemKeys<T>(li: LabelItem<T>): string[] {
  const out: string[] = [];
  for (const k in li.labels) out.push(labelPairKey(k, li.labels[k]!));
  return out;
}

function selectorItemKeys<T>(kind: EntityKind): (si: SelectorItem<T>) => string[] {
  return (si) => {
    const k = objectSelectorOf(si.selector, kind)?.indexKey;
    return k === undefined ? [] : [k];
  };
}

function newLabelBucket<T>(): KeyedBucket<LabelItem<T>> {
  return new KeyedBucket<LabelItem<T>>(labelItemKeys<T>);
}

function newSelectorBucket<T>(kind: EntityKind): KeyedBucket<SelectorItem<T>> {
  return new KeyedBucket<SelectorItem<T>>(selectorItemKeys<T>(kind));
}

function labelSetKey(namespace: string, labels: Labels): string {
  const keys = Object.keys(labels).sort();
  const parts = [namespace];
  for (const k of keys) parts.push(k, labels[k]!);
  // join() gives a flat string; the key is retained per label set and hashed on every Pod update.
  return parts.join('\x00');
}

/** "namespace/name" as a flat string. */
export function podKey(namespace: string, name: string): string {
  return [namespace, name].join('/');
}

export class GroupingIndex<T = unknown> {
  private readonly namespaces = new Map<string, NamespaceEntity<T>>();
  private readonly pods = new Map<string, PodEntity<T>>();
  private readonly nsSelectorItems = new Map<string, NsSelectorItem<T>>();
  private readonly selectorItems = new Map<string, SelectorItem<T>>();
  /** Selector items pinned to one Namespace, by Namespace name. */
  private readonly byNamespace = new Map<string, KeyedBucket<SelectorItem<T>>>();
  /** Selector items with an object selector and no Namespace restriction. */
  private readonly clusterWide: KeyedBucket<SelectorItem<T>>;
  /**
   * Selector items whose member set (or a member's attributes) changed since the last drain, with
   * what changed (POD_* flags).
   */
  private dirty = new Map<SelectorItem<T>, number>();

  constructor(readonly kind: EntityKind = 'pod') {
    this.clusterWide = newSelectorBucket<T>(kind);
  }

  /** Whether this index is the one that evaluates `sel` (the other kind's index ignores it). */
  holds(sel: GroupSelector): boolean {
    return (sel.externalEntitySelector !== undefined) === (this.kind === 'externalEntity');
  }

  get podCount(): number {
    return this.pods.size;
  }

  get labelItemCount(): number {
    let n = 0;
    for (const ns of this.namespaces.values()) n += ns.labelItems.size;
    return n;
  }

  get selectorItemCount(): number {
    return this.selectorItems.size;
  }

  /** Returns and clears the selector items that changed, each with what changed (POD_* flags). */
  drainDirty(): Map<SelectorItem<T>, number> {
    const d = this.dirty;
    this.dirty = new Map();
    return d;
  }

  private markDirty(si: SelectorItem<T>, flags: number): void {
    const prev = this.dirty.get(si);
    if (prev === undefined) this.dirty.set(si, flags);
    else if ((prev | flags) !== prev) this.dirty.set(si, prev | flags);
  }

  getPod(namespace: string, name: string): PodEntity<T> | undefined {
    return this.pods.get(podKey(namespace, name));
  }

  namespaceLabels(name: string): Labels | undefined {
    return this.namespaces.get(name)?.labels;
  }

  *listNamespaces(): Iterable<{ name: string; labels: Labels }> {
    for (const ns of this.namespaces.values()) if (ns.labels) yield { name: ns.name, labels: ns.labels };
  }

  /** Pods selected by a selector item, in no particular order. */
  *podsOf(item: SelectorItem<T>): Iterable<PodEntity<T>> {
    for (const li of item.labelItems) yield* li.pods;
  }

  private nsEntity(name: string): NamespaceEntity<T> {
    let ns = this.namespaces.get(name);
    if (!ns) {
      ns = {
        name,
        labels: undefined,
        labelItems: new Map(),
        labelBucket: newLabelBucket(),
        nsSelectors: new Set(),
      };
      this.namespaces.set(name, ns);
      for (const nsi of this.nsSelectorItems.values()) if (this.nsMatches(nsi, ns)) this.linkNs(nsi, ns);
    }
    return ns;
  }

  private nsMatches(nsi: NsSelectorItem<T>, ns: NamespaceEntity<T>): boolean {
    // An empty namespaceSelector selects every Namespace, even one not seen yet (Antrea skips the
    // Namespace lookup in that case); a non-empty one needs the Namespace's labels.
    if (nsi.selector.empty) return true;
    return ns.labels !== undefined && nsi.selector.matches(ns.labels);
  }

  private linkNs(nsi: NsSelectorItem<T>, ns: NamespaceEntity<T>): void {
    nsi.namespaces.add(ns);
    ns.nsSelectors.add(nsi);
  }

  private gcNamespace(ns: NamespaceEntity<T>): void {
    if (ns.labels === undefined && ns.labelItems.size === 0) {
      for (const nsi of ns.nsSelectors) nsi.namespaces.delete(ns);
      this.namespaces.delete(ns.name);
    }
  }

  upsertNamespace(name: string, labels: Labels): void {
    const ns = this.nsEntity(name);
    ns.labels = labels;
    this.reevaluateNamespace(ns);
  }

  deleteNamespace(name: string): void {
    const ns = this.namespaces.get(name);
    if (!ns) return;
    ns.labels = undefined;
    this.reevaluateNamespace(ns);
    this.gcNamespace(ns);
  }

  private reevaluateNamespace(ns: NamespaceEntity<T>): void {
    for (const nsi of this.nsSelectorItems.values()) {
      const was = ns.nsSelectors.has(nsi);
      const now = this.nsMatches(nsi, ns);
      if (was === now) continue;
      if (now) this.linkNs(nsi, ns);
      else {
        nsi.namespaces.delete(ns);
        ns.nsSelectors.delete(nsi);
      }
      for (const si of nsi.selectorItems.items) {
        if (now) {
          for (const li of this.labelCandidates(ns, si))
            if (this.objectSelectorMatches(si, li)) this.link(si, li);
        } else {
          for (const li of ns.labelItems.values()) if (si.labelItems.has(li)) this.unlink(si, li);
        }
      }
    }
  }

  /** Label items of `ns` that could match `si` (narrowed by the selector's index key). */
  private labelCandidates(ns: NamespaceEntity<T>, si: SelectorItem<T>): Iterable<LabelItem<T>> {
    return ns.labelBucket.candidatesFor(objectSelectorOf(si.selector, this.kind)?.indexKey);
  }

  private objectSelectorMatches(si: SelectorItem<T>, li: LabelItem<T>): boolean {
    const ps = objectSelectorOf(si.selector, this.kind);
    return ps === undefined || ps.matches(li.labels);
  }

  private link(si: SelectorItem<T>, li: LabelItem<T>): void {
    si.labelItems.add(li);
    li.selectors.add(si);
    this.markDirty(si, PODS_CHANGED);
  }

  private unlink(si: SelectorItem<T>, li: LabelItem<T>): void {
    si.labelItems.delete(li);
    li.selectors.delete(si);
    this.markDirty(si, PODS_CHANGED);
  }

  private candidateSelectors(ns: NamespaceEntity<T>, li: LabelItem<T>): SelectorItem<T>[] {
    // Label pair keys only matter to indexed buckets; most buckets are small and never indexed.
    let computed: string[] | undefined;
    const keys = {
      get list(): string[] {
        if (!computed) computed = labelItemKeys(li);
        return computed;
      },
    };
    const out: SelectorItem<T>[] = [];
    const pinned = this.byNamespace.get(ns.name);
    if (pinned) for (const si of pinned.candidatesForAny(keys)) out.push(si);
    for (const nsi of ns.nsSelectors) for (const si of nsi.selectorItems.candidatesForAny(keys)) out.push(si);
    for (const si of this.clusterWide.candidatesForAny(keys)) out.push(si);
    return out;
  }

  private acquireLabelItem(ns: NamespaceEntity<T>, labels: Labels, knownKey?: string): LabelItem<T> {
    const key = knownKey ?? labelSetKey(ns.name, labels);
    let li = ns.labelItems.get(key);
    if (li) return li;
    li = { key, ns, labels, pods: new SmallSet(), selectors: new SmallSet() };
    ns.labelItems.set(key, li);
    ns.labelBucket.add(li);
    for (const si of this.candidateSelectors(ns, li))
      if (this.objectSelectorMatches(si, li)) this.link(si, li);
    return li;
  }

  private releaseLabelItem(li: LabelItem<T>): void {
    if (li.pods.size > 0) return;
    for (const si of li.selectors) {
      si.labelItems.delete(li);
      this.markDirty(si, PODS_CHANGED);
    }
    li.selectors.clear();
    li.ns.labelItems.delete(li.key);
    li.ns.labelBucket.delete(li);
    this.gcNamespace(li.ns);
  }

  /**
   * Adds or updates a Pod. `makePayload` builds the caller's per-Pod data whenever the Pod is new or
   * any attribute changed. Returns the entity.
   */
  upsertPod(state: PodState, makePayload: (s: PodState, prev: T | undefined) => T): PodEntity<T> {
    const key = podKey(state.namespace, state.name);
    const existing = this.pods.get(key);
    const ns = this.nsEntity(state.namespace);
    if (!existing) {
      const li = this.acquireLabelItem(ns, state.labels);
      // Pods with the same labels share one labels object (the label item's).
      state.labels = li.labels;
      const pod: PodEntity<T> = { key, state, labelItem: li, payload: makePayload(state, undefined) };
      li.pods.add(pod);
      this.pods.set(key, pod);
      for (const si of li.selectors) this.markDirty(si, PODS_CHANGED);
      return pod;
    }
    const prev = existing.state;
    const prevPayload = existing.payload;
    existing.state = state;
    existing.payload = makePayload(state, prevPayload);
    const newKey = labelSetKey(state.namespace, state.labels);
    if (newKey !== existing.labelItem.key) {
      const old = existing.labelItem;
      old.pods.delete(existing);
      for (const si of old.selectors) this.markDirty(si, PODS_CHANGED);
      const li = this.acquireLabelItem(ns, state.labels, newKey);
      state.labels = li.labels;
      li.pods.add(existing);
      existing.labelItem = li;
      for (const si of li.selectors) this.markDirty(si, PODS_CHANGED);
      this.releaseLabelItem(old);
    } else {
      state.labels = existing.labelItem.labels;
      let changed = attributeChanges(prev, state);
      // A new payload with no state change: something only the payload carries changed (the
      // named ports of an ExternalEntity; a Pod's are immutable).
      if (changed === 0 && existing.payload !== prevPayload) changed = PODS_CHANGED;
      if (changed !== 0) for (const si of existing.labelItem.selectors) this.markDirty(si, changed);
    }
    return existing;
  }

  deletePod(namespace: string, name: string): PodEntity<T> | undefined {
    const key = podKey(namespace, name);
    const pod = this.pods.get(key);
    if (!pod) return undefined;
    this.pods.delete(key);
    const li = pod.labelItem;
    li.pods.delete(pod);
    for (const si of li.selectors) this.markDirty(si, PODS_CHANGED);
    this.releaseLabelItem(li);
    return pod;
  }

  /** Registers one more user of a selector; the first one matches it against every label set. */
  acquireSelector(sel: GroupSelector): SelectorItem<T> {
    let si = this.selectorItems.get(sel.normalizedName);
    if (si) {
      si.refs++;
      return si;
    }
    const scope = scopeOf(sel, this.kind);
    let nsi: NsSelectorItem<T> | undefined;
    if (scope === 'nsSelector') nsi = this.acquireNsSelector(sel.namespaceSelector!);
    si = {
      key: sel.normalizedName,
      selector: sel,
      nsSelector: nsi,
      labelItems: new SmallSet(),
      refs: 1,
      users: undefined,
    };
    this.selectorItems.set(si.key, si);
    switch (scope) {
      case 'namespace': {
        let bucket = this.byNamespace.get(sel.namespace);
        if (!bucket) {
          bucket = newSelectorBucket(this.kind);
          this.byNamespace.set(sel.namespace, bucket);
        }
        bucket.add(si);
        const ns = this.namespaces.get(sel.namespace);
        if (ns)
          for (const li of this.labelCandidates(ns, si))
            if (this.objectSelectorMatches(si, li)) this.link(si, li);
        break;
      }
      case 'nsSelector':
        nsi!.selectorItems.add(si);
        for (const ns of nsi!.namespaces)
          for (const li of this.labelCandidates(ns, si))
            if (this.objectSelectorMatches(si, li)) this.link(si, li);
        break;
      case 'cluster':
        this.clusterWide.add(si);
        for (const ns of this.namespaces.values())
          for (const li of this.labelCandidates(ns, si))
            if (this.objectSelectorMatches(si, li)) this.link(si, li);
        break;
      case 'nothing':
        break;
    }
    this.markDirty(si, PODS_CHANGED);
    return si;
  }

  /** Drops one user of a selector; the last one removes it from the index. */
  releaseSelector(si: SelectorItem<T>): void {
    if (--si.refs > 0) return;
    this.selectorItems.delete(si.key);
    for (const li of si.labelItems) li.selectors.delete(si);
    si.labelItems.clear();
    this.dirty.delete(si);
    const sel = si.selector;
    const pinned = this.byNamespace.get(sel.namespace);
    if (pinned?.delete(si) && pinned.size === 0) this.byNamespace.delete(sel.namespace);
    this.clusterWide.delete(si);
    const nsi = si.nsSelector;
    if (nsi) {
      nsi.selectorItems.delete(si);
      if (nsi.selectorItems.size === 0) {
        this.nsSelectorItems.delete(nsi.key);
        for (const ns of nsi.namespaces) ns.nsSelectors.delete(nsi);
      }
    }
  }

  private acquireNsSelector(selector: Selector): NsSelectorItem<T> {
    let nsi = this.nsSelectorItems.get(selector.text);
    if (nsi) return nsi;
    nsi = {
      key: selector.text,
      selector,
      namespaces: new Set(),
      selectorItems: newSelectorBucket(this.kind),
    };
    this.nsSelectorItems.set(nsi.key, nsi);
    for (const ns of this.namespaces.values()) if (this.nsMatches(nsi, ns)) this.linkNs(nsi, ns);
    return nsi;
  }
}

/** POD_* flags for what differs between two states of one Pod (0 when nothing does). */
function attributeChanges(a: PodState, b: PodState): number {
  if (a.hostNetwork !== b.hostNetwork || a.terminated !== b.terminated) return PODS_CHANGED;
  let flags = a.nodeName !== b.nodeName ? POD_NODE_CHANGED : 0;
  if (a.ips.length !== b.ips.length) flags |= POD_IPS_CHANGED;
  else
    for (let i = 0; i < a.ips.length; i++)
      if (a.ips[i] !== b.ips[i]) {
        flags |= POD_IPS_CHANGED;
        break;
      }
  return flags;
}
