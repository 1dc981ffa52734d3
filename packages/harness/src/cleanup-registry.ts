import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Last-resort cleanup for a test process that is exiting without having stopped what it started
 * (a failed hook, Ctrl-C, a timeout). Normal teardown goes through each object's stop(); this only
 * catches what is left. Everything here must be synchronous because it runs in an 'exit' handler.
 */
const actions = new Set<() => void>();
let hooked = false;

function runAll(): void {
  for (const action of [...actions].reverse()) {
    try {
      action();
    } catch {
      // keep going: the rest must still be cleaned
    }
  }
  actions.clear();
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', runAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      runAll();
      process.kill(process.pid, signal);
    });
  }
}

/** Registers a synchronous cleanup action; returns a function that unregisters it. */
export function registerCleanup(action: () => void): () => void {
  hook();
  actions.add(action);
  return () => {
    actions.delete(action);
  };
}

export function registerDirCleanup(dir: string): () => void {
  return registerCleanup(() => rmSync(dir, { recursive: true, force: true }));
}

export function registerNetnsCleanup(name: string): () => void {
  return registerCleanup(() => {
    try {
      execFileSync('ip', ['netns', 'delete', name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  });
}

export function registerLinkCleanup(name: string): () => void {
  return registerCleanup(() => {
    try {
      execFileSync('ip', ['link', 'delete', name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  });
}
