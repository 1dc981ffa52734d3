import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { SERVICE_NAME_LABEL, serviceKey } from './model.js';

/** The key of the Service a slice belongs to (its kubernetes.io/service-name label), if any. */
const serviceOfSlice = (slice: V1EndpointSlice): string | undefined => {
  const name = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return name === undefined ? undefined : serviceKey(slice.metadata?.namespace, name);
};

/**
 * The Services and EndpointSlices the proxier knows, with slices indexed by their Service, and the
 * keys of the Services whose model may have changed since the last `takeTouched()`: a Service event
 * touches that Service, a slice event the Service it belonged to and the one it belongs to now (a
 * relabelled slice leaves one Service and joins another). A sync recomputes only those.
 */
export class ServiceStore {
  private readonly services = new Map<string, V1Service>();
  private readonly slices = new Map<string, V1EndpointSlice>();
  /** Service key -> its slices by slice key: a Service's slices are looked up, never scanned for. */
  private readonly slicesByService = new Map<string, Map<string, V1EndpointSlice>>();
  private touched = new Set<string>();

  upsertService(svc: V1Service): void {
    const key = serviceKey(svc.metadata?.namespace, svc.metadata?.name);
    this.services.set(key, svc);
    this.touched.add(key);
  }

  /** Forgets the Service (its slices stay: they may outlive it). False if it was unknown. */
  removeService(key: string): boolean {
    if (!this.services.delete(key)) return false;
    this.touched.add(key);
    return true;
  }

  upsertSlice(slice: V1EndpointSlice): void {
    const key = serviceKey(slice.metadata?.namespace, slice.metadata?.name);
    this.unindexSlice(key);
    this.slices.set(key, slice);
    const svc = serviceOfSlice(slice);
    if (svc === undefined) return;
    const forService = this.slicesByService.get(svc) ?? new Map<string, V1EndpointSlice>();
    forService.set(key, slice);
    this.slicesByService.set(svc, forService);
    this.touched.add(svc);
  }

  /** False if the slice was unknown. */
  removeSlice(key: string): boolean {
    this.unindexSlice(key);
    return this.slices.delete(key);
  }

  service(key: string): V1Service | undefined {
    return this.services.get(key);
  }

  slicesOf = (svcKey: string): V1EndpointSlice[] => [...(this.slicesByService.get(svcKey)?.values() ?? [])];

  /** The Services touched since the last call; the next call starts from none. */
  takeTouched(): ReadonlySet<string> {
    const taken = this.touched;
    this.touched = new Set();
    return taken;
  }

  /** Marks every known Service touched (something all of them depend on changed, e.g. the Node's zone). */
  touchAllServices(): void {
    for (const key of this.services.keys()) this.touched.add(key);
  }

  /** Marks Services touched again (a sync that failed hands its Services back). */
  touch(keys: Iterable<string>): void {
    for (const k of keys) this.touched.add(k);
  }

  /** Removes a slice from its Service's index (its label may change between versions), touching that Service. */
  private unindexSlice(key: string): void {
    const old = this.slices.get(key);
    const svc = old && serviceOfSlice(old);
    if (svc === undefined) return;
    const forService = this.slicesByService.get(svc);
    forService?.delete(key);
    if (forService?.size === 0) this.slicesByService.delete(svc);
    this.touched.add(svc);
  }
}
