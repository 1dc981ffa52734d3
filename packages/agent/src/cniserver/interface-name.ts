import { createHash } from 'node:crypto';

/** Linux limits interface names to 15 bytes. */
const IFNAMSIZ = 15;

/**
 * The host-side veth / OVS port name of a Pod (Antrea util.GenerateContainerInterfaceName): a
 * prefix of the Pod name, a dash, and a hash of namespace/name/container that keeps names unique.
 */
export function containerInterfaceName(podName: string, podNamespace: string, containerId: string): string {
  const hash = createHash('sha1').update(`${podNamespace}/${podName}/${containerId}`).digest('hex');
  const prefix = (podName || containerId).replace(/[^a-zA-Z0-9]/g, '').slice(0, 8);
  return `${prefix}-${hash.slice(0, IFNAMSIZ - prefix.length - 1)}`;
}

/** A random locally administered unicast MAC. */
export function randomMac(random: (n: number) => Buffer): string {
  const b = random(6);
  b[0] = (b[0]! & 0xfe) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}
