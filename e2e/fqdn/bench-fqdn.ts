import { BenchReport, poll, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { e2eLabOptions } from '../framework/lab-options.js';
import { applyEgressPolicy } from './cluster-policy.js';
import { DnsResponder, type ZoneEntry } from './dns-responder.js';

const INSTANCE = 23;
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--lookups');
const LOOKUPS = at >= 0 ? Number(argv[at + 1]) : 50;
const options = e2eLabOptions(INSTANCE, { owner: 'bench' });
const NODE = `lab${INSTANCE}-node-1`;
const NS = 'fqb';
const DNS_SERVER = `198.19.${INSTANCE}.1`;

/** Every `<n>.test.example` gets its own address (10.99.x.y, never connected to), TTL 1 h. */
const zone = {
  get(name: string): ZoneEntry | undefined {
    const m = /^(\d+)\.test\.example$/.exec(name);
    if (!m) return undefined;
    const n = Number(m[1]);
    return { a: `10.99.${(n >> 8) & 0xff}.${n & 0xff}`, ttl: 3600 };
  },
};

/** In the Pod: lookups of the given names one after another; prints the durations in ms. */
const CLIENT = `
const dns = require('node:dns');
const [server, ...names] = process.argv.slice(1);
(async () => {
  const ms = [];
  for (const name of names) {
    const r = new dns.promises.Resolver({ timeout: 3000, tries: 1 });
    r.setServers([server]);
    const t = performance.now();
    await r.resolve4(name);
    ms.push(performance.now() - t);
  }
  console.log(JSON.stringify(ms));
})().catch((e) => { console.error(e); process.exit(1); });
`;

async function main(): Promise<void> {
  const report = new BenchReport('fqdn', json);
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 1 });
  const dns = new DnsResponder(zone, DNS_SERVER);
  try {
    await dns.start();
    await lab.createPod({ namespace: NS, name: 'plain', node: NODE, labels: { app: 'plain' } });
    await lab.createPod({ namespace: NS, name: 'fqdn', node: NODE, labels: { app: 'fqdn' } });
    await applyEgressPolicy(lab, 'fqdn-bench', 'fqdn', [
      { name: 'fqdn', action: 'Allow', to: [{ fqdn: '*.test.example' }] },
    ]);
    const lookups = async (pod: string, names: string[]): Promise<number[]> =>
      JSON.parse(
        await lab.exec(NS, pod, ['node', '-e', CLIENT, DNS_SERVER, ...names], { timeoutMs: 300_000 }),
      );
    // The interception flows are in once the policy's first answer was learned (its flow appears).
    await lookups('fqdn', ['0.test.example']);
    await poll(
      'interception flows',
      async () =>
        (
          await run(
            ['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', `unix:${lab.node(NODE).ovsDir}/br-int.mgmt`],
            { netns: lab.node(NODE).netns },
          )
        ).includes('pause'),
      { timeoutMs: 60_000 },
    );
    const same = Array.from({ length: LOOKUPS }, () => '0.test.example');
    const fresh = Array.from({ length: LOOKUPS }, (_, i) => `${i + 1}.test.example`);
    const points = { p50: 50, p95: 95, max: 100 };
    report.recordPercentiles('no FQDN rule', await lookups('plain', same), points, 'ms');
    report.recordPercentiles('intercepted, known answer', await lookups('fqdn', same), points, 'ms');
    report.recordPercentiles('intercepted, new address', await lookups('fqdn', fresh), points, 'ms');
    report.note(`${LOOKUPS} lookups per case, one at a time, measured in the Pod around resolve4`);
  } finally {
    report.finish('DNS lookup time from a Pod (ms)');
    await dns.stop();
    await Lab.down(options);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench-fqdn: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
