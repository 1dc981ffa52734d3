// SupportBundleCollection with an sftp:// fileServer, end to end: the CR (BasicAuthentication
// Secret, spec.fileServer.hostPublicKey) on a real kube-apiserver, the real antrea-controller
// resolving the Secret and sending the key as protobuf bytes over the agent's watch, the agent's
// collection and SFTP upload to a real OpenSSH server, the report back to the CR status. Root
// (sshd, useradd).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileServerBundleUploader, SftpBundleUploader, SupportBundleCollectionAgent } from '@antrea-ts/agent';
import { packBundle, Redactor } from '@antrea-ts/apis';
import { type SshdInstance, startSshd, waitFor } from '@antrea-ts/harness';
import { pino } from 'pino';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionCluster, collectionFor, startCollectionCluster } from './collection-cluster.js';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NODE = 'sbs-n1';

let sshd: SshdInstance;
let cluster: CollectionCluster;
let agent: SupportBundleCollectionAgent | undefined;
let uploadDir: string;
/** Every archive the agent collected, and the secrets it was told to keep out of it. */
const collected: { archive: Buffer; secrets: readonly string[] }[] = [];

const collection = (name: string, hostPublicKey: string) =>
  collectionFor(
    name,
    NODE,
    { url: `sftp://${sshd.host}:${sshd.port}${uploadDir}`, hostPublicKey },
    'BasicAuthentication',
  );

const completed = (name: string) =>
  waitFor(
    `${name} Completed`,
    async () => (await cluster.conditions(name))['Completed'] === 'True',
    90_000,
    200,
  );

beforeAll(async () => {
  sshd = await startSshd();
  uploadDir = sshd.userDir('bundles');
  cluster = await startCollectionCluster({
    node: NODE,
    secretData: { username: sshd.user, password: sshd.password },
    logger,
  });
  agent = new SupportBundleCollectionAgent({
    node: NODE,
    connection: cluster.connection,
    collect: async (_since, secrets) => {
      const { archive, sum } = packBundle(
        [{ name: 'logs/agent.log', content: `collection ${collected.length + 1}\n` }],
        new Redactor({ secrets: [...secrets] }),
        new Date(),
      );
      collected.push({ archive, secrets });
      return { archive, sum };
    },
    // Antrea's retry loop, two attempts 200 ms apart instead of five 5 s apart.
    uploader: new FileServerBundleUploader(logger, {
      sftp: new SftpBundleUploader({ attempts: 2, retryDelayMs: 200, logger }),
    }),
    logger,
    retryMs: 200,
  });
  agent.start();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await cluster?.stop();
  await sshd?.stop();
});

describe('SupportBundleCollection uploaded over SFTP', () => {
  it('completes with the archive on the server, under <dir>/<node>_<collection>.tar.gz', async () => {
    const started = Date.now();
    await cluster.create(collection('sbs-ok', sshd.hostPublicKey));
    await completed('sbs-ok');
    logger.info({ ms: Date.now() - started }, 'CR created to Completed');
    expect(await cluster.conditions('sbs-ok')).toMatchObject({
      BundleCollected: 'True',
      CollectionFailure: 'False',
    });
    const file = join(uploadDir, `${NODE}_sbs-ok.tar.gz`);
    expect(collected).toHaveLength(1);
    expect(readFileSync(file).equals(collected[0]?.archive ?? Buffer.alloc(0))).toBe(true);
    // The Secret's password reached the agent (as an upload credential to keep out of the bundle).
    expect(collected[0]?.secrets).toContain(sshd.password);
  });

  it('a hostPublicKey that is not the server key fails the Node with the mismatch on the CR', async () => {
    const other = ssh2.utils.generateKeyPairSync('ed25519').public.split(' ')[1] ?? '';
    await cluster.create(collection('sbs-wrong-key', other));
    await completed('sbs-wrong-key');
    expect(await cluster.conditions('sbs-wrong-key')).toMatchObject({
      BundleCollected: 'False',
      CollectionFailure: 'True',
    });
    expect((await cluster.messages('sbs-wrong-key'))['CollectionFailure']).toMatch(
      new RegExp(
        `^${NODE}: failed to upload file after 2 attempts: host key mismatch: ${sshd.host}:${sshd.port} presented SHA256:\\S+, spec\\.fileServer\\.hostPublicKey is ssh-ed25519 SHA256:\\S+$`,
      ),
    );
    expect(existsSync(join(uploadDir, `${NODE}_sbs-wrong-key.tar.gz`))).toBe(false);
  });
});
