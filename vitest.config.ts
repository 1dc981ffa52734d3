import { defineConfig } from 'vitest/config';

// Every package resolves its siblings to TypeScript sources under test, so a test never runs
// against a stale dist/.
const conditions = ['@antrea-ts/source', 'node', 'import', 'default'];
const resolve = { conditions };
const ssr = { resolve: { conditions, externalConditions: conditions } };

export default defineConfig({
  resolve,
  ssr,
  test: {
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'cmd/*/*.test.ts'],
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // Real processes (kube-apiserver, ovs-vswitchd) on 2 cores: one file at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
