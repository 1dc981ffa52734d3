import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A detached process the lab started; enough to find it again from another `lab` invocation. */
export interface ProcessRecord {
  /** Unique within the lab: "etcd", "antrea-agent@lab-node-1", "pod-server@ns/name". */
  name: string;
  pid: number;
  /** A substring of /proc/<pid>/cmdline, so a recycled pid is never taken for ours. */
  cmdlineMatch: string;
  log: string;
  /** Network namespace it runs in (absent: the root namespace). */
  netns?: string;
  /** Command and the environment it adds to the lab's, so `restart` can start it again. */
  argv: string[];
  env?: Record<string, string>;
}

export interface NodeRecord {
  name: string;
  index: number;
  netns: string;
  nodeIp: string;
  uplink: string;
  ovsDir: string;
  podCidr?: string;
  cniConfDir: string;
  cniBinDir: string;
  cniSocket: string;
  apiPort: number;
  /** The agent's loopback token (Antrea's path is one per host; lab Nodes share the host's files). */
  apiTokenFile: string;
}

export interface PodPort {
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  name?: string;
}

export interface PodRecord {
  namespace: string;
  name: string;
  node: string;
  netns: string;
  containerId: string;
  ips: string[];
  ports: PodPort[];
  /** The CNI ADD result, kept for DEL's prevResult (what libcni caches in /var/lib/cni). */
  cniResult: unknown;
}

export interface LabState {
  version: 1;
  stateDir: string;
  createdAt: string;
  /** "starting" until `up` finishes, so a crashed `up` is seen as such by `status` and `down`. */
  phase: 'starting' | 'up';
  /** LabLayout instance: decides every name and the underlay subnet. */
  instance: number;
  underlay: { bridge: string; hostIp: string; prefixLength: number };
  apiserver?: { server: string };
  controller?: { address: string; port: number };
  clusterCidr: string;
  nodes: NodeRecord[];
  pods: PodRecord[];
  processes: ProcessRecord[];
}

/**
 * state.json of one lab. Every change is a read-modify-write under an in-process queue, written
 * atomically (rename), so a crash never leaves half a file and `down` can always read it.
 */
export class StateStore {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  exists(): boolean {
    return existsSync(this.file);
  }

  read(): LabState | undefined {
    if (!existsSync(this.file)) return undefined;
    return JSON.parse(readFileSync(this.file, 'utf8')) as LabState;
  }

  write(state: LabState): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(tmp, this.file);
  }

  /** Applies `change` to the current state and saves it; changes are serialized. */
  update<T>(change: (state: LabState) => T): Promise<T> {
    const next = this.#queue.then(() => {
      const state = this.read();
      if (!state) throw new Error(`no lab state in ${this.file}`);
      const result = change(state);
      this.write(state);
      return result;
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
