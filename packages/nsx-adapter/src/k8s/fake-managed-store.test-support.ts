import { KubeRequestError } from '../errors.js';
import { type KubeObject, MANAGED_KINDS, type ManagedCrdStore, type ManagedKind } from './types.js';

/** In-memory ManagedCrdStore for tests: records writes, can fail on demand, and lets tests edit. */
export class FakeManagedStore implements ManagedCrdStore {
  readonly objects = new Map<ManagedKind, Map<string, KubeObject>>(MANAGED_KINDS.map((k) => [k, new Map()]));
  readonly ops: string[] = [];
  failWith: ((op: string, kind: ManagedKind, name: string) => Error | undefined) | undefined;
  private onChange: ((kind: ManagedKind, name: string) => void) | undefined;
  private rv = 1;
  started = false;
  stopped = false;

  async start(onChange: (kind: ManagedKind, name: string) => void): Promise<void> {
    this.onChange = onChange;
    this.started = true;
  }
  list(kind: ManagedKind): KubeObject[] {
    return [...(this.objects.get(kind)?.values() ?? [])];
  }
  get(kind: ManagedKind, name: string): KubeObject | undefined {
    return this.objects.get(kind)?.get(name);
  }
  private check(op: string, kind: ManagedKind, name: string): void {
    const err = this.failWith?.(op, kind, name);
    if (err) throw err;
  }
  private put(kind: ManagedKind, obj: KubeObject, generation: number): void {
    const copy = structuredClone(obj);
    copy.metadata = { ...copy.metadata, resourceVersion: String(++this.rv), generation };
    this.objects.get(kind)?.set(copy.metadata.name ?? '', copy);
  }
  async create(kind: ManagedKind, obj: KubeObject): Promise<void> {
    const name = obj.metadata?.name ?? '';
    this.check('create', kind, name);
    if (this.get(kind, name)) throw new KubeRequestError(`${kind} ${name} exists`, 409);
    this.ops.push(`create ${kind} ${name}`);
    this.put(kind, obj, 1);
  }
  async replace(kind: ManagedKind, obj: KubeObject): Promise<void> {
    const name = obj.metadata?.name ?? '';
    this.check('replace', kind, name);
    const cur = this.get(kind, name);
    if (!cur) throw new KubeRequestError(`${kind} ${name} not found`, 404);
    if (cur.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
      throw new KubeRequestError('conflict', 409);
    this.ops.push(`replace ${kind} ${name}`);
    this.put(kind, obj, (cur.metadata?.generation ?? 1) + 1);
  }
  async delete(kind: ManagedKind, name: string): Promise<void> {
    this.check('delete', kind, name);
    this.ops.push(`delete ${kind} ${name}`);
    this.objects.get(kind)?.delete(name);
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }

  /** What a kubectl edit or a controller status update looks like to the adapter. */
  externalEdit(kind: ManagedKind, name: string, edit: (o: KubeObject) => void): void {
    const o = this.get(kind, name);
    if (!o) throw new Error(`no ${kind} ${name}`);
    edit(o);
    o.metadata = { ...o.metadata, resourceVersion: String(++this.rv) };
    this.onChange?.(kind, name);
  }
  externalDelete(kind: ManagedKind, name: string): void {
    this.objects.get(kind)?.delete(name);
    this.onChange?.(kind, name);
  }
  /** Seeds an object as if a previous adapter run had left it. */
  seed(kind: ManagedKind, obj: KubeObject): void {
    this.put(kind, obj, 1);
  }
  names(kind: ManagedKind): string[] {
    return [...(this.objects.get(kind)?.keys() ?? [])].sort();
  }
}
