import { join } from 'node:path';

export const DEFAULT_CLUSTER_CIDR = '10.244.0.0/16';
export const DEFAULT_NODE_COUNT = 2;
/** The port kube-apiserver takes at the underlay host address when it is free. */
export const APISERVER_PORT = 6443;
export const UNDERLAY_PREFIX_LENGTH = 24;

/**
 * Names one lab gives to what it creates in the kernel, and where its files go.
 *
 * They differ from the test harness's ("ats" netns and links, /tmp/antrea-ts-* dirs) so that
 * `npm test`'s leak check never flags a running lab, and `lab down` finds the leftovers of a crashed
 * lab by prefix alone. Instance 0 is the developer's lab (`lab-node-1`, `lb-underlay`,
 * 198.19.0.0/24); tests take other instances so they can run while a lab is up:
 * instance k uses `lab<k>-`, `lb<k>` and 198.19.k.0/24 (the upper half of the 198.18.0.0/15 test
 * range: the harness draws its subnets from 198.18.x.0/24, so they never share addresses).
 */
export class LabLayout {
  readonly netnsPrefix: string;
  readonly linkPrefix: string;
  readonly underlayBridge: string;
  readonly underlayBase: string;
  readonly hostIp: string;

  constructor(
    readonly stateDir: string,
    readonly instance = 0,
  ) {
    if (!Number.isInteger(instance) || instance < 0 || instance > 99) {
      throw new RangeError(`lab instance ${instance}: want 0-99`);
    }
    const tag = instance === 0 ? '' : String(instance);
    this.netnsPrefix = `lab${tag}-`;
    this.linkPrefix = `lb${tag}`;
    this.underlayBridge = `lb${tag}-underlay`;
    this.underlayBase = `198.19.${instance}`;
    this.hostIp = `${this.underlayBase}.1`;
  }

  /** Node names are their netns names: `lab-node-1`. */
  nodeName(index: number): string {
    return `${this.netnsPrefix}node-${index}`;
  }
  nodeIp(index: number): string {
    return `${this.underlayBase}.${10 + index}`;
  }
  /** Root-namespace end of Node `index`'s uplink veth; fits the 15-character limit. */
  uplinkName(index: number): string {
    return `${this.linkPrefix}u${index}`;
  }
  /** Temporary root-namespace name of the Node end of the uplink, before it moves in as eth0. */
  tempLinkName(index: number): string {
    return `${this.linkPrefix}t${index}`;
  }
  /** Every root-namespace link this lab makes. */
  isLabLink(name: string): boolean {
    return name === this.underlayBridge || new RegExp(`^${this.linkPrefix}[ut]\\d+$`).test(name);
  }
  podNetns(namespace: string, name: string): string {
    return `${this.netnsPrefix}pod-${namespace}.${name}`;
  }

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
  nodeDir(node: string): string {
    return join(this.stateDir, 'nodes', node);
  }
  log(component: string): string {
    return join(this.logDir, `${component}.log`);
  }
}
