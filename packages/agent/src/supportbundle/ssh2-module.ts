// ssh2 is loaded on first use: few agents ever upload a bundle over SFTP, and importing it costs
// about 60 ms of every agent's start-up (the package index re-exports the SFTP modules).
import type ssh2Module from 'ssh2';

export type Ssh2 = typeof ssh2Module;

let loading: Promise<Ssh2> | undefined;

/** The ssh2 module, imported once. */
export function loadSsh2(): Promise<Ssh2> {
  loading ??= import('ssh2').then((m) => m.default);
  return loading;
}
