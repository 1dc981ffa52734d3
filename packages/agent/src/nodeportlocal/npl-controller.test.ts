import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { NplRule } from './iptables-rules.js';
import {
  NPL_ANNOTATION,
  NPL_ENABLED_ANNOTATION,
  type NplPod,
  type NplService,
  nplPod,
  nplService,
} from './model.js';
import { NodePortLocalController, type NplHandlers, type NplSource } from './npl-controller.js';
import { FakePortOpener } from './testing-fakes.js';

const NODE_IP = '192.0.2.11';

/** Events fed by hand; the controller's handlers are kept for the test to call. */
class ManualSource implements NplSource {
  h!: NplHandlers;
  async start(h: NplHandlers): Promise<void> {
    this.h = h;
  }
  async stop(): Promise<void> {}
}

/** Pod annotations as kube-apiserver would hold them, echoed back as Pod updates (like the informer). */
class World {
  readonly source = new ManualSource();
  readonly opener = new FakePortOpener();
  rules: NplRule[] = [];
  restores = 0;
  readonly patches: Array<[string, string | null]> = [];
  failPatches = 0;
  failRuleWrites = 0;
  readonly pods = new Map<string, NplPod>();
  readonly annotator = {
    set: async (namespace: string, name: string, value: string | null) => {
      if (this.failPatches > 0) {
        this.failPatches--;
        throw new Error('apiserver says no');
      }
      const key = `${namespace}/${name}`;
      this.patches.push([key, value]);
      const pod = this.pods.get(key);
      if (!pod) return;
      const next = { ...pod, annotation: value ?? undefined };
      this.pods.set(key, next);
      // The informer delivers the patched Pod a moment later.
      setImmediate(() => this.source.h.upsertPod(next));
    },
  };
  readonly ruleWriter = {
    existing: async () => this.rules,
    sync: async (rules: readonly NplRule[]) => {
      if (this.failRuleWrites > 0) {
        this.failRuleWrites--;
        throw new Error('iptables-restore says no');
      }
      this.restores++;
      this.rules = [...rules];
    },
  };

  controller(range = { start: 61000, end: 61010 }): NodePortLocalController {
    return new NodePortLocalController({
      nodeIp: NODE_IP,
      portRange: range,
      source: this.source,
      annotator: this.annotator,
      rules: this.ruleWriter,
      opener: this.opener,
      logger: pino({ level: 'silent' }),
      retryMs: 10,
    });
  }

  pod(name: string, ip: string | undefined, labels: Record<string, string>, annotation?: string): NplPod {
    const p = nplPod({
      metadata: {
        namespace: 'ns',
        name,
        labels,
        annotations: annotation ? { [NPL_ANNOTATION]: annotation } : {},
      },
      spec: {
        containers: [
          {
            name: 'c',
            ports: [
              { name: 'web', containerPort: 8080 },
              { name: 'dns', containerPort: 5353, protocol: 'UDP' },
              { containerPort: 9000, hostPort: 9900 },
            ],
          },
        ],
      },
      status: ip ? { podIP: ip, phase: 'Running' } : { phase: 'Pending' },
    });
    this.pods.set(p.key, p);
    return p;
  }

  annotation(name: string): unknown {
    const a = this.pods.get(`ns/${name}`)?.annotation;
    return a === undefined ? undefined : JSON.parse(a);
  }
}

const service = (
  name: string,
  selector: Record<string, string>,
  ports: object[],
  enabled = true,
): NplService =>
  nplService({
    metadata: { namespace: 'ns', name, annotations: enabled ? { [NPL_ENABLED_ANNOTATION]: 'true' } : {} },
    spec: { selector, ports: ports as never },
  });

const tcp80 = { port: 80, targetPort: 8080, protocol: 'TCP' };
const member = (podPort: number, nodePort: number, protocol = 'tcp') => ({
  podPort,
  nodeIP: NODE_IP,
  nodePort,
  protocol,
  ipFamily: 'IPv4',
});

async function settle(c: NodePortLocalController): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 15));
    await c.idle();
  }
}

async function started(w: World, c = w.controller()): Promise<NodePortLocalController> {
  await c.start();
  w.source.h.synced();
  await c.waitSynced();
  await settle(c);
  return c;
}

describe('NodePortLocalController', () => {
  it('maps the target ports of a selected Pod (numbers and names, TCP and UDP) and publishes them after the rules', async () => {
    const w = new World();
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    w.source.h.upsertPod(w.pod('other', '10.0.0.6', { app: 'db' }));
    w.source.h.upsertService(
      service('web', { app: 'web' }, [tcp80, { port: 53, targetPort: 'dns', protocol: 'UDP' }]),
    );
    w.source.h.synced();
    await c.waitSynced();
    await settle(c);
    expect(w.annotation('a')).toEqual([member(8080, 61000), member(5353, 61001, 'udp')]);
    expect(w.annotation('other')).toBeUndefined();
    expect(w.rules).toEqual([
      { nodePort: 61000, protocol: 'tcp', podIp: '10.0.0.5', podPort: 8080 },
      { nodePort: 61001, protocol: 'udp', podIp: '10.0.0.5', podPort: 5353 },
    ]);
    expect([...w.opener.held].sort()).toEqual(['61000/tcp', '61001/udp']);
    // The echoed Pod update does not patch again, and Pod updates that change no mapping write no rules.
    expect(w.patches).toHaveLength(1);
    const restores = w.restores;
    w.source.h.upsertPod(
      w.pod('a', '10.0.0.5', { app: 'web', other: 'label' }, w.pods.get('ns/a')!.annotation),
    );
    w.source.h.upsertService(
      service('web', { app: 'web' }, [tcp80, { port: 53, targetPort: 'dns', protocol: 'UDP' }]),
    );
    await settle(c);
    expect(w.restores).toBe(restores);
    expect(w.patches).toHaveLength(1);
  });

  it('a port the host uses is skipped; a hostPort is published as is with no rule', async () => {
    const w = new World();
    w.opener.busy.add('61000/tcp');
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80, { port: 90, targetPort: 9000 }]));
    await started(w, c);
    expect(w.annotation('a')).toEqual(expect.arrayContaining([member(8080, 61001), member(9000, 9900)]));
    expect(w.rules.map((r) => r.nodePort)).toEqual([61001]);
  });

  it('removing the Service annotation removes the rules, the ports and the Pod annotation', async () => {
    const w = new World();
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await started(w, c);
    expect(w.rules).toHaveLength(1);
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80], false));
    await settle(c);
    expect(w.rules).toEqual([]);
    expect(w.opener.held.size).toBe(0);
    expect(w.annotation('a')).toBeUndefined();
    expect(w.patches.at(-1)).toEqual(['ns/a', null]);
  });

  it('a selector change, a Pod label change and a Pod deletion release the Pod ports', async () => {
    const w = new World();
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    w.source.h.upsertPod(w.pod('b', '10.0.0.6', { app: 'web', tier: 'x' }));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await started(w, c);
    expect(w.rules).toHaveLength(2);
    w.source.h.upsertService(service('web', { tier: 'x' }, [tcp80]));
    await settle(c);
    expect(w.rules.map((r) => r.podIp)).toEqual(['10.0.0.6']);
    expect(w.annotation('a')).toBeUndefined();
    w.source.h.upsertPod(w.pod('b', '10.0.0.6', { app: 'web' }, w.pods.get('ns/b')!.annotation));
    await settle(c);
    expect(w.rules).toEqual([]);
    expect(w.annotation('b')).toBeUndefined();
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await settle(c);
    expect(w.rules).toHaveLength(2);
    w.pods.delete('ns/a');
    w.source.h.removePod('ns/a');
    await settle(c);
    expect(w.rules.map((r) => r.podIp)).toEqual(['10.0.0.6']);
    expect(w.opener.held.size).toBe(1);
  });

  it('a restart keeps the ports: from the annotations, and from rules whose annotation was never written', async () => {
    const w = new World();
    const svc = service('web', { app: 'web' }, [tcp80]);
    // A previous run published a's 61007 and put b's 61003 rule in place, then died before b's patch.
    w.rules = [
      { nodePort: 61007, protocol: 'tcp', podIp: '10.0.0.5', podPort: 8080 },
      { nodePort: 61003, protocol: 'tcp', podIp: '10.0.0.6', podPort: 8080 },
      // A Pod that is gone: its rule goes.
      { nodePort: 61004, protocol: 'tcp', podIp: '10.0.0.99', podPort: 8080 },
    ];
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }, JSON.stringify([member(8080, 61007)])));
    w.source.h.upsertPod(w.pod('b', '10.0.0.6', { app: 'web' }));
    w.source.h.upsertService(svc);
    await started(w, c);
    expect(w.annotation('a')).toEqual([member(8080, 61007)]);
    expect(w.annotation('b')).toEqual([member(8080, 61003)]);
    expect(w.rules.map((r) => r.nodePort).sort()).toEqual([61003, 61007]);
    expect(w.patches.map(([k]) => k)).toEqual(['ns/b']);
    // Stopping gives the sockets back and leaves the rules.
    await c.stop();
    expect(w.opener.held.size).toBe(0);
    expect(w.rules).toHaveLength(2);
  });

  it("a stop while the previous run's ports are being taken back leaves none of them held", async () => {
    const w = new World();
    let openAgain!: () => void;
    const gate = new Promise<void>((r) => {
      openAgain = r;
    });
    const open = w.opener.open.bind(w.opener);
    w.opener.open = async (port, protocol) => {
      await gate;
      return open(port, protocol);
    };
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }, JSON.stringify([member(8080, 61007)])));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    w.source.h.synced();
    const stopping = c.stop();
    await new Promise((r) => setTimeout(r, 20));
    openAgain();
    await stopping;
    await new Promise((r) => setTimeout(r, 20));
    expect(w.opener.held.size).toBe(0);
  });

  it('on a Node without Pods, a restart still writes the chain, without the rules of Pods gone meanwhile', async () => {
    const w = new World();
    w.rules = [{ nodePort: 61004, protocol: 'tcp', podIp: '10.0.0.99', podPort: 8080 }];
    await started(w);
    expect(w.restores).toBe(1);
    expect(w.rules).toEqual([]);
  });

  it('an annotation that does not parse, or names a port taken on the host, is replaced', async () => {
    const w = new World();
    w.opener.busy.add('61002/tcp');
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }, 'garbage'));
    w.source.h.upsertPod(w.pod('b', '10.0.0.6', { app: 'web' }, JSON.stringify([member(8080, 61002)])));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await started(w, c);
    const a = w.annotation('a') as Array<{ nodePort: number }>;
    const b = w.annotation('b') as Array<{ nodePort: number }>;
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(b[0]!.nodePort).not.toBe(61002);
    expect(new Set(w.rules.map((r) => r.nodePort))).toEqual(new Set([a[0]!.nodePort, b[0]!.nodePort]));
  });

  it('a Pod without an IP gets nothing until it has one; a failed patch is retried', async () => {
    const w = new World();
    const c = w.controller();
    await c.start();
    w.source.h.upsertPod(w.pod('a', undefined, { app: 'web' }));
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await started(w, c);
    expect(w.rules).toEqual([]);
    w.failPatches = 2;
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    await settle(c);
    await new Promise((r) => setTimeout(r, 100));
    await settle(c);
    expect(w.annotation('a')).toEqual([member(8080, 61000)]);
    expect(w.rules).toHaveLength(1);
  });

  it('a failed rule write publishes nothing until the rules are in; a Pod deleted meanwhile leaves no retry behind', async () => {
    const w = new World();
    const c = w.controller();
    await c.start();
    w.source.h.upsertService(service('web', { app: 'web' }, [tcp80]));
    await started(w, c);
    const rulesAtPatch: number[][] = [];
    const set = w.annotator.set;
    w.annotator.set = (namespace, name, value) => {
      rulesAtPatch.push(w.rules.map((r) => r.nodePort));
      return set(namespace, name, value);
    };
    w.failRuleWrites = 2;
    w.source.h.upsertPod(w.pod('a', '10.0.0.5', { app: 'web' }));
    await settle(c);
    await new Promise((r) => setTimeout(r, 100));
    await settle(c);
    expect(w.failRuleWrites).toBe(0);
    expect(w.annotation('a')).toEqual([member(8080, 61000)]);
    expect(rulesAtPatch).toEqual([[61000]]);

    w.failRuleWrites = 1;
    w.source.h.upsertPod(w.pod('b', '10.0.0.6', { app: 'web' }));
    w.pods.delete('ns/b');
    w.source.h.removePod('ns/b');
    await settle(c);
    await new Promise((r) => setTimeout(r, 50));
    await settle(c);
    expect(w.failRuleWrites).toBe(0);
    expect(w.rules.map((r) => r.podIp)).toEqual(['10.0.0.5']);
    expect([...w.opener.held]).toEqual(['61000/tcp']);
    expect((c as unknown as { retries: Map<string, unknown> }).retries.size).toBe(0);
    await c.stop();
  });
});
