import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NetworkPolicyController } from '../controller.js';
import { namespace, networkPolicy, pod } from '../testing/fixtures.js';
import type { InformerLike, PolicyInformers } from './informers.js';

/** A list-then-watch informer double: `start()` delivers the initial objects as adds. */
class FakeInformer<T> implements InformerLike<T> {
  private readonly handlers: Record<string, ((x: T) => void)[]> = {
    add: [],
    update: [],
    delete: [],
    error: [],
  };
  constructor(private readonly initial: T[] = []) {}
  on(verb: string, cb: (x: never) => void): void {
    this.handlers[verb]!.push(cb as (x: T) => void);
  }
  emit(verb: 'add' | 'update' | 'delete', obj: T): void {
    for (const h of this.handlers[verb]!) h(obj);
  }
  async start(): Promise<void> {
    for (const o of this.initial) this.emit('add', o);
  }
  async stop(): Promise<void> {}
}

const tick = () => new Promise((r) => setImmediate(r));

describe('NetworkPolicyController over informers', () => {
  it('computes the listed world before start() resolves and follows later events', async () => {
    const informers = {
      namespaces: new FakeInformer([namespace('x')]),
      pods: new FakeInformer([pod('x', 'a', { app: 'a' }, { node: 'n1' })]),
      nodes: new FakeInformer(),
      services: new FakeInformer(),
      networkPolicies: new FakeInformer([
        networkPolicy('x', 'deny', { podSelector: {}, policyTypes: ['Ingress'] }),
      ]),
    };
    const c = new NetworkPolicyController({
      informers: informers as PolicyInformers,
      logger: pino({ level: 'silent' }),
    });
    const ac = new AbortController();
    await c.start(ac.signal);
    expect(c.hasSynced).toBe(true);
    expect(c.networkPolicies.size).toBe(1);
    expect([...c.networkPolicies.list().items[0]!.object.span]).toEqual(['n1']);

    informers.pods.emit('add', pod('x', 'b', { app: 'b' }, { node: 'n2' }));
    await tick();
    expect([...c.networkPolicies.list().items[0]!.object.span].sort()).toEqual(['n1', 'n2']);

    informers.networkPolicies.emit('delete', networkPolicy('x', 'deny', {}));
    await tick();
    expect(c.networkPolicies.size).toBe(0);
    expect(c.appliedToGroups.size).toBe(0);
    ac.abort();
    await c.stop();
  });
});
