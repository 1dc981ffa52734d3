// bench:sftp — one SupportBundleCollection upload over SFTP (SftpBundleUploader: TCP connect, SSH
// key exchange with the pinned host key, password login, SFTP open/write/close) to a private real
// sshd on loopback, for bundles of 64 KiB, 1 MiB and 16 MiB of incompressible bytes: ms per upload
// (p50/p90/max) and MB/s at the median. Needs root (sshd, a throwaway user), like the tests.
//   tsc -b test && node dist/test/supportbundle-sftp/bench-sftp-upload.js [--json] [--runs 10]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SftpBundleUploader } from '@antrea-ts/agent';
import { BenchReport, percentile, startSshd } from '@antrea-ts/harness';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
const SIZES: [string, number][] = [
  ['64KiB', 64 << 10],
  ['1MiB', 1 << 20],
  ['16MiB', 16 << 20],
];

const report = new BenchReport('sftp-upload', json);

async function main(): Promise<void> {
  const sshd = await startSshd();
  try {
    const dir = sshd.userDir('bundles');
    const fileServer = {
      url: `sftp://${sshd.host}:${sshd.port}${dir}`,
      hostPublicKey: Buffer.from(sshd.hostPublicKey, 'base64'),
    };
    const auth = { basicAuthentication: { username: sshd.user, password: sshd.password } };
    const uploader = new SftpBundleUploader({ attempts: 1 });
    for (const [name, size] of SIZES) {
      const archive = randomBytes(size);
      const samples: number[] = [];
      // One unmeasured upload first: module loading and the first key exchange's JIT warm-up.
      for (let i = 0; i <= RUNS; i++) {
        const start = performance.now();
        await uploader.upload(fileServer, auth, `${name}.tar.gz`, archive);
        if (i > 0) samples.push(performance.now() - start);
      }
      if (!readFileSync(join(dir, `${name}.tar.gz`)).equals(archive)) {
        throw new Error(`${name}: the file on the server is not the archive`);
      }
      report.recordPercentiles(name, samples, { p50: 50, p90: 90, max: 100 }, 'ms');
      report.record(name, 'throughput_p50', size / 2 ** 20 / (percentile(samples, 50) / 1000), 'MB/s');
    }
    report.note(`${RUNS} uploads per size, one at a time, to sshd on loopback; 2 shared cores: noisy`);
  } finally {
    report.finish('SFTP upload of one bundle (connect, key exchange, password login, write, close)');
    await sshd.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
