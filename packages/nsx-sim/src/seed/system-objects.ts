import { domainKind, serviceKind } from '../policy/kinds.js';
import type { PolicyTree } from '../policy/policy-tree.js';

/** A few of the predefined services every NSX Manager ships (system owned). */
const SYSTEM_SERVICES: [string, 'TCP' | 'UDP', string][] = [
  ['HTTP', 'TCP', '80'],
  ['HTTPS', 'TCP', '443'],
  ['DNS', 'TCP', '53'],
  ['DNS-UDP', 'UDP', '53'],
  ['SSH', 'TCP', '22'],
  ['MySQL', 'TCP', '3306'],
];

/** Creates the default domain and system services if they are missing (fresh or old state files). */
export function ensureSystemObjects(tree: PolicyTree): void {
  if (!tree.get('/infra/domains/default')) {
    tree.write(domainKind, '/infra', 'default', { display_name: 'default' }, 'PATCH', 'system');
    const d = tree.get('/infra/domains/default');
    if (d) {
      d['_system_owned'] = true;
      tree.markChanged(d.path);
    }
  }
  for (const [id, proto, port] of SYSTEM_SERVICES) {
    if (tree.get(`/infra/services/${id}`)) continue;
    tree.write(
      serviceKind,
      '/infra',
      id,
      {
        display_name: id,
        is_default: true,
        service_entries: [
          {
            id: `${id}`,
            resource_type: 'L4PortSetServiceEntry',
            l4_protocol: proto,
            destination_ports: [port],
          },
        ],
      },
      'PATCH',
      'system',
    );
    const s = tree.get(`/infra/services/${id}`);
    if (s) {
      s['_system_owned'] = true;
      tree.markChanged(s.path);
    }
  }
}
