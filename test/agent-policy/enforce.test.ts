// bench:enforce's measuring harness on a real lab (instance 16: lab16-*), few changes and no
// timing asserted: the prober and the detector see both transitions on both targets, agree with
// an independent probe (probe.mjs), and report nothing for a write that changes nothing, so the
// benchmark cannot silently measure nothing.
import type { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import type { Want } from './enforce-detect.js';
import { ProbeStream } from './enforce-probe-stream.js';
import {
  createEnforcePods,
  type EnforcePods,
  flipPolicy,
  type MeasureOptions,
  measureChange,
  POLICY_KINDS,
  PolicyWriter,
  SERVER_PORT,
  waitSettled,
} from './enforce-run.js';
import { freshLab } from './lab-run.js';

const options = e2eLabOptions(16, { owner: 'test' });
const MEASURE: MeasureOptions = { confirmMs: 300, giveUpMs: 30_000 };
let lab: Lab;
let pods: EnforcePods;
let stream: ProbeStream;
let writer: PolicyWriter;

/** What probe.mjs (one fresh process, not the prober) sees from the client to each server. */
async function independentVerdicts(): Promise<string[]> {
  const targets = pods.servers.map((s) => ({
    ip: s.pod.ips[0]!,
    port: SERVER_PORT,
    protocol: 'TCP' as const,
  }));
  const results = await lab.probe(
    { namespace: pods.client.namespace, name: pods.client.name },
    targets,
    1_000,
  );
  return results.map((r) => r.result);
}

describe('bench:enforce measuring harness', () => {
  beforeAll(async () => {
    lab = await freshLab(options, 2);
    pods = await createEnforcePods(lab);
    stream = new ProbeStream({
      netns: pods.client.netns,
      targets: pods.servers.map((s) => `${s.pod.ips[0]}:${SERVER_PORT}`),
      intervalMs: 5,
      timeoutMs: 200,
    });
    writer = new PolicyWriter(lab.kubeconfigPath);
    await waitSettled(stream, pods.servers.length, MEASURE, 'allow');
  }, 600_000);

  afterAll(async () => {
    writer?.close();
    await stream?.stop();
    await lab?.down();
  }, 300_000);

  it('covers a cross-node and a same-node server', () => {
    expect(pods.servers.map((s) => s.placement)).toEqual(['cross-node', 'same-node']);
    expect(pods.servers[0]!.pod.node).not.toBe(pods.client.node);
    expect(pods.servers[1]!.pod.node).toBe(pods.client.node);
  });

  for (const kind of POLICY_KINDS) {
    it(`${kind}: both directions detected on both targets, as probe.mjs sees them`, async () => {
      const n = pods.servers.length;
      await writer.create(flipPolicy(kind, false));
      await waitSettled(stream, n, MEASURE, 'deny');
      expect(await independentVerdicts()).toEqual(['drop', 'drop']);
      for (const want of ['allow', 'deny', 'allow', 'deny'] as Want[]) {
        const o = await measureChange(
          stream,
          n,
          want,
          () => writer.patch(flipPolicy(kind, want === 'allow')),
          MEASURE,
        );
        expect(o.writeReturn).toBeGreaterThan(o.writeStart);
        for (const t of o.targets) {
          // The old behaviour right before the write, the new one detected after it.
          expect(t.settledBefore).toBe(true);
          expect(t.transition).toBeDefined();
          expect(t.transition!.enforcedAt).toBeGreaterThan(o.writeStart);
        }
        expect(await independentVerdicts()).toEqual(want === 'allow' ? ['allow', 'allow'] : ['drop', 'drop']);
      }
      // A write that changes nothing (deny again) is not taken for a transition to allow.
      const noop = await measureChange(stream, n, 'allow', () => writer.patch(flipPolicy(kind, false)), {
        ...MEASURE,
        giveUpMs: 3_000,
      });
      expect(noop.targets.map((t) => t.transition)).toEqual([undefined, undefined]);
      await writer.delete(flipPolicy(kind, false));
      await waitSettled(stream, n, MEASURE, 'allow');
    }, 180_000);
  }
});
