// A stand-in for kubectl, for the kind provider's tests (we cannot run kind here). Put on PATH
// as `kubectl` (see fake-kubectl.ts); FAKE_KUBECTL_DIR names a folder holding:
//   replies.json  [{ "match": "<regex over the arguments joined by spaces>", "stdout": "...",
//                    "exit": 0, "times": 1, "probe": "allow" }]: the first rule that matches and
//                 is not used up answers; "probe" answers a probe.mjs run with that outcome for
//                 each target; no rule: exit 0, no output.
//   calls.jsonl   written: one {"args": [...], "stdin": "..."} line per call, in order.
//   used.json     written: how often each rule answered (for "times").
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.FAKE_KUBECTL_DIR;
if (!dir) {
  process.stderr.write('fake kubectl: FAKE_KUBECTL_DIR is not set\n');
  process.exit(3);
}
const args = process.argv.slice(2);

/** Reads stdin only when kubectl would: `-f -` or `exec -i`; otherwise it is left open. */
function readInput() {
  const f = args.indexOf('-f');
  const wantsStdin = (f >= 0 && args[f + 1] === '-') || (args.includes('exec') && args.includes('-i'));
  return wantsStdin ? readFileSync(0, 'utf8') : undefined;
}

/** @typedef {{ match: string, stdout?: string, stderr?: string, exit?: number, times?: number, probe?: string }} Rule */

const stdin = readInput();
appendFileSync(
  join(dir, 'calls.jsonl'),
  `${JSON.stringify({ args, ...(stdin === undefined ? {} : { stdin }) })}\n`,
);

/** @type {Rule[]} */
const rules = JSON.parse(readFileSync(join(dir, 'replies.json'), 'utf8'));
const usedFile = join(dir, 'used.json');
/** @type {Record<string, number>} */
const used = existsSync(usedFile) ? JSON.parse(readFileSync(usedFile, 'utf8')) : {};
const line = args.join(' ');
const i = rules.findIndex(
  (r, k) => new RegExp(r.match).test(line) && (r.times === undefined || (used[k] ?? 0) < r.times),
);
if (i < 0) process.exit(0);
used[i] = (used[i] ?? 0) + 1;
writeFileSync(usedFile, JSON.stringify(used));
const rule = /** @type {Rule} */ (rules[i]);
if (rule.probe) {
  // The targets of probe.mjs: tcp:IP:PORT / udp:IP:PORT after `node --input-type=module -`.
  for (const t of args.filter((a) => /^(tcp|udp):/.test(a)))
    process.stdout.write(`${JSON.stringify({ target: t, result: rule.probe, ms: 1 })}\n`);
}
if (rule.stdout) process.stdout.write(rule.stdout);
if (rule.stderr) process.stderr.write(rule.stderr);
process.exit(rule.exit ?? 0);
