import type { Traceflow, TraceflowNodeResult, TraceflowStatus } from '@antrea-ts/apis';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  TRACEFLOW_TIMEOUT_REASON,
  TraceflowController,
  type TraceflowStore,
} from './traceflow-controller.js';

/** An in-memory TraceflowStore that behaves like the API: status writes become change events. */
class MemoryStore implements TraceflowStore {
  readonly objects = new Map<string, Traceflow>();
  private handlers: { changed(tf: Traceflow): void; removed(tf: Traceflow): void } | undefined;
  writes: Array<{ name: string; status: TraceflowStatus }> = [];

  async start(h: { changed(tf: Traceflow): void; removed(tf: Traceflow): void }): Promise<void> {
    this.handlers = h;
  }
  list(): Traceflow[] {
    return [...this.objects.values()];
  }
  get(name: string): Traceflow | undefined {
    return this.objects.get(name);
  }
  async updateStatus(tf: Traceflow, status: TraceflowStatus): Promise<void> {
    this.writes.push({ name: tf.metadata.name ?? '', status });
    this.put({ ...tf, status });
  }
  async stop(): Promise<void> {}
  put(tf: Traceflow): void {
    this.objects.set(tf.metadata.name ?? '', tf);
    this.handlers?.changed(tf);
  }
  remove(name: string): void {
    const tf = this.objects.get(name)!;
    this.objects.delete(name);
    this.handlers?.removed(tf);
  }
}

const tf = (name: string, spec: Traceflow['spec'] = {}, status?: TraceflowStatus): Traceflow => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Traceflow',
  metadata: { name },
  spec: { source: { namespace: 'x', pod: 'a' }, destination: { namespace: 'x', pod: 'b' }, ...spec },
  ...(status ? { status } : {}),
});

function setup(existing: Traceflow[] = []) {
  let now = Date.parse('2026-11-21T12:00:00Z');
  const store = new MemoryStore();
  for (const t of existing) store.objects.set(t.metadata.name ?? '', t);
  const c = new TraceflowController({
    store,
    logger: pino({ level: 'silent' }),
    clock: { now: () => new Date(now), monotonicMs: () => now },
    timeoutCheckMs: 3_600_000,
  });
  return { store, c, advance: (ms: number) => (now += ms) };
}

describe('TraceflowController', () => {
  it('gives a new Traceflow a tag, Running and its start time; Succeeded frees the tag', async () => {
    const { store, c } = setup();
    await c.start();
    store.put(tf('t1'));
    await c.idle();
    expect(store.get('t1')?.status).toEqual({
      phase: 'Running',
      dataplaneTag: 7,
      startTime: '2026-11-21T12:00:00Z',
    });
    // The sender's result alone does not end it; the receiver's Delivered does.
    const sender: TraceflowNodeResult = {
      node: 'n1',
      observations: [{ component: 'SpoofGuard', action: 'Forwarded' }],
    };
    store.put({ ...store.get('t1')!, status: { ...store.get('t1')!.status, results: [sender] } });
    await c.idle();
    expect(store.get('t1')?.status?.phase).toBe('Running');
    const receiver: TraceflowNodeResult = {
      node: 'n2',
      observations: [{ component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' }],
    };
    store.put({ ...store.get('t1')!, status: { ...store.get('t1')!.status, results: [sender, receiver] } });
    await c.idle();
    expect(store.get('t1')?.status).toMatchObject({ phase: 'Succeeded', dataplaneTag: 0 });
    expect(store.get('t1')?.status?.results).toHaveLength(2);
    expect(c.tags.size).toBe(0);
    await c.stop();
  });

  it('fails a Traceflow after spec.timeout (default 20 s) with Antrea’s reason and frees the tag', async () => {
    const { store, c, advance } = setup();
    await c.start();
    store.put(tf('short', { timeout: 5 }));
    store.put(tf('default'));
    await c.idle();
    expect(c.tags.size).toBe(2);
    advance(6_000);
    store.put(store.get('short')!);
    store.put(store.get('default')!);
    await c.idle();
    expect(store.get('short')?.status).toMatchObject({ phase: 'Failed', reason: TRACEFLOW_TIMEOUT_REASON });
    expect(store.get('default')?.status?.phase).toBe('Running');
    advance(15_000);
    store.put(store.get('default')!);
    await c.idle();
    expect(store.get('default')?.status).toMatchObject({ phase: 'Failed', dataplaneTag: 0 });
    expect(c.tags.size).toBe(0);
  });

  it('ends a dropped-only live Traceflow with its first result and a live one without source on the receiver', async () => {
    const { store, c } = setup();
    await c.start();
    store.put(tf('drop', { liveTraffic: true, droppedOnly: true }));
    store.put(tf('recv', { liveTraffic: true, source: {} }));
    await c.idle();
    const dropped: TraceflowNodeResult = {
      node: 'n2',
      observations: [{ component: 'NetworkPolicy', action: 'Dropped' }],
    };
    store.put({ ...store.get('drop')!, status: { ...store.get('drop')!.status, results: [dropped] } });
    store.put({ ...store.get('recv')!, status: { ...store.get('recv')!.status, results: [dropped] } });
    await c.idle();
    expect(store.get('drop')?.status?.phase).toBe('Succeeded');
    expect(store.get('recv')?.status?.phase).toBe('Succeeded');
  });

  it('keeps tags of Running Traceflows across a restart and frees a deleted one’s', async () => {
    const { store, c } = setup([
      tf('old', {}, { phase: 'Running', dataplaneTag: 7, startTime: '2026-11-21T11:59:59Z' }),
    ]);
    await c.start();
    store.put(tf('new'));
    await c.idle();
    expect(store.get('new')?.status?.dataplaneTag).toBe(11);
    store.remove('old');
    store.put(tf('newer'));
    await c.idle();
    expect(store.get('newer')?.status?.dataplaneTag).toBe(7);
  });

  it('leaves a Traceflow pending while all 14 tags are taken', async () => {
    const { store, c } = setup();
    await c.start();
    for (let i = 0; i < 15; i++) store.put(tf(`t${i}`));
    await c.idle();
    expect(store.get('t14')?.status).toBeUndefined();
    store.put({ ...store.get('t0')!, status: { ...store.get('t0')!.status, phase: 'Failed' } });
    await c.idle();
    store.put(store.get('t14')!);
    await c.idle();
    expect(store.get('t14')?.status?.dataplaneTag).toBe(7);
  });
});
