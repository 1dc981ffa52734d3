import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../errors.js';
import { hostKeyPin, keyFingerprint, sftpTarget } from './sftp-target.js';

/** The wire-format bytes of a fresh public key, as spec.fileServer.hostPublicKey carries them. */
const wireKey = (type: 'ed25519' | 'rsa' | 'ecdsa') => {
  const line = ssh2.utils.generateKeyPairSync(type, type === 'rsa' ? { bits: 2048 } : { bits: 256 }).public;
  return Buffer.from(line.split(' ')[1] ?? '', 'base64');
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return AgentError.is(e) ? `${e.code}: ${e.message}` : 'other';
  }
};

describe('sftpTarget', () => {
  it('reads Antrea URL forms: the path is a directory, the port defaults to 22, no scheme means sftp', () => {
    expect(sftpTarget('sftp://10.92.23.154:2222/upload', 'n1_c.tar.gz')).toEqual({
      host: '10.92.23.154',
      port: 2222,
      directory: '/upload',
      path: '/upload/n1_c.tar.gz',
      address: '10.92.23.154:2222',
    });
    expect(sftpTarget('10.92.23.154:22/upload/', 'f').path).toBe('/upload/f');
    expect(sftpTarget('sftp://files.example/a%20b', 'f')).toMatchObject({
      host: 'files.example',
      port: 22,
      path: '/a b/f',
    });
    // No path: the file lands in the login directory.
    expect(sftpTarget('sftp://files.example', 'f')).toMatchObject({ directory: '', path: 'f' });
    expect(sftpTarget('sftp://[fd00::5]:2022/up', 'f')).toMatchObject({
      host: 'fd00::5',
      port: 2022,
      address: '[fd00::5]:2022',
    });
    // A user in the URL does not matter: credentials come from the Secret.
    expect(sftpTarget('sftp://someone@h/up', 'f')).toMatchObject({ host: 'h', path: '/up/f' });
  });

  it('refuses other schemes and URLs without a host', () => {
    expect(codeOf(() => sftpTarget('ftp://h/up', 'f'))).toBe(
      'AGENT_BUNDLE_UPLOAD_FAILED: not an sftp:// file server URL: ftp://h/up',
    );
    expect(codeOf(() => sftpTarget('sftp:///up', 'f'))).toBe(
      'AGENT_BUNDLE_UPLOAD_FAILED: file server URL sftp:///up names no host',
    );
  });
});

describe('hostKeyPin', () => {
  it('pins a key to its own algorithms; RSA allows the SHA-2 signatures too', () => {
    const ed = wireKey('ed25519');
    expect(hostKeyPin(ed, ssh2.utils.parseKey)).toEqual({
      type: 'ssh-ed25519',
      key: ed,
      fingerprint: keyFingerprint(ed),
      algorithms: ['ssh-ed25519'],
    });
    expect(hostKeyPin(wireKey('rsa'), ssh2.utils.parseKey)?.algorithms).toEqual([
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
    ]);
    expect(hostKeyPin(wireKey('ecdsa'), ssh2.utils.parseKey)?.algorithms).toEqual(['ecdsa-sha2-nistp256']);
  });

  it('no key: no pin (any host key is accepted, as Antrea)', () => {
    expect(hostKeyPin(undefined, ssh2.utils.parseKey)).toBeUndefined();
    expect(hostKeyPin(new Uint8Array(0), ssh2.utils.parseKey)).toBeUndefined();
  });

  it('refuses bytes that are not a public key in wire format', () => {
    expect(codeOf(() => hostKeyPin(Buffer.from('abc'), ssh2.utils.parseKey))).toMatch(
      /^AGENT_BUNDLE_UPLOAD_FAILED: invalid host public key: /,
    );
    // The authorized_keys text line instead of its decoded base64 field.
    const line = Buffer.from(`ssh-ed25519 ${wireKey('ed25519').toString('base64')}`);
    expect(codeOf(() => hostKeyPin(line, ssh2.utils.parseKey))).toMatch(/invalid host public key/);
  });

  it('prints fingerprints as ssh-keygen -l does', () => {
    // sha256 of the bytes, base64 without padding.
    expect(keyFingerprint(Buffer.from('abc'))).toBe('SHA256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0');
  });
});
