import { join } from 'node:path';

/**
 * Names the lab gives to what it creates in the kernel. They differ from the test harness's ("ats"
 * netns and links, /tmp/antrea-ts-* dirs) so that `npm test`'s leak check never flags a running lab,
 * and `lab down` can find leftovers of a crashed lab by prefix alone.
 */
export const NETNS_PREFIX = 'lab-';
export const LINK_PREFIX = 'lb';
/** Root-namespace Linux bridge that plays the physical network between Nodes. */
export const UNDERLAY_BRIDGE = 'lb-underlay';
/**
 * The lab's underlay: 198.19.0.0/24 (the upper half of the 198.18.0.0/15 test range; the harness
 * draws its subnets from 198.18.x.0/24, so a lab and a test run never share addresses).
 */
export const UNDERLAY_BASE = '198.19.0';
export const UNDERLAY_HOST_IP = `${UNDERLAY_BASE}.1`;
export const UNDERLAY_PREFIX_LENGTH = 24;
export const DEFAULT_CLUSTER_CIDR = '10.244.0.0/16';
export const DEFAULT_NODE_COUNT = 2;
/** The ports the apiserver and the controller listen on at the underlay host address. */
export const APISERVER_PORT = 6443;

export function nodeName(index: number): string {
  return `lab-node-${index}`;
}

/** A Node's netns has the Node's name (already "lab-" prefixed). */
export function nodeNetns(node: string): string {
  return node;
}

/** Root-namespace end of a Node's uplink veth; `lbu<index>` fits the 15-character limit. */
export function uplinkName(index: number): string {
  return `${LINK_PREFIX}u${index}`;
}

export function podNetns(namespace: string, name: string): string {
  return `${NETNS_PREFIX}pod-${namespace}.${name}`;
}

/** Every file of one lab lives under its state dir. */
export class LabLayout {
  constructor(readonly stateDir: string) {}

  get stateFile(): string {
    return join(this.stateDir, 'state.json');
  }
  get logDir(): string {
    return join(this.stateDir, 'logs');
  }
  get pkiDir(): string {
    return join(this.stateDir, 'pki');
  }
  get etcdDir(): string {
    return join(this.stateDir, 'etcd');
  }
  get kubeconfig(): string {
    return join(this.stateDir, 'kubeconfig');
  }
  get controllerKubeconfig(): string {
    return join(this.stateDir, 'antrea-controller.kubeconfig');
  }
  get lockFile(): string {
    return join(this.stateDir, 'lock');
  }
  nodeDir(node: string): string {
    return join(this.stateDir, 'nodes', node);
  }
  podDir(namespace: string, name: string): string {
    return join(this.stateDir, 'pods', `${namespace}.${name}`);
  }
  log(component: string): string {
    return join(this.logDir, `${component}.log`);
  }
}
