// Puts fake-kubectl.mjs on a PATH as `kubectl` in a temp dir, with its replies, and reads back the
// calls it recorded. Tests of kubectl-driven providers run the real process boundary this way.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fake-kubectl.mjs', import.meta.url));

export interface FakeReply {
  /** Regular expression over the arguments joined by spaces. */
  match: string;
  stdout?: string;
  stderr?: string;
  exit?: number;
  /** Answers this many times, then the next matching rule does. */
  times?: number;
  /** Answers a probe.mjs run with this outcome for every target. */
  probe?: 'allow' | 'drop' | 'reject' | 'error';
}

export interface FakeCall {
  args: string[];
  stdin?: string;
}

export class FakeKubectl {
  readonly dir = mkdtempSync(join(tmpdir(), 'antrea-ts-fake-kubectl-'));
  /** The environment to run `kubectl` with: the fake first on PATH. */
  readonly env: NodeJS.ProcessEnv;

  constructor(replies: FakeReply[] = []) {
    const bin = join(this.dir, 'kubectl');
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${SCRIPT}" "$@"\n`);
    chmodSync(bin, 0o755);
    this.reply(replies);
    this.env = { ...process.env, PATH: `${this.dir}:${process.env.PATH ?? ''}`, FAKE_KUBECTL_DIR: this.dir };
  }

  /** Replaces the replies and forgets how often they were used. */
  reply(replies: FakeReply[]): void {
    writeFileSync(join(this.dir, 'replies.json'), JSON.stringify(replies));
    rmSync(join(this.dir, 'used.json'), { force: true });
  }

  calls(): FakeCall[] {
    let text = '';
    try {
      text = readFileSync(join(this.dir, 'calls.jsonl'), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as FakeCall);
  }

  clearCalls(): void {
    rmSync(join(this.dir, 'calls.jsonl'), { force: true });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
