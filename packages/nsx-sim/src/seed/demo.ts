import { groupKind, securityPolicyKind, serviceKind } from '../policy/kinds.js';
import type { PolicyTree } from '../policy/policy-tree.js';

const D = '/infra/domains/default';
const G = `${D}/groups`;

/**
 * A small demo: Antrea groups (tag, namespace+tag nested, IP block), one custom service and two
 * policies (Infrastructure DNS allow, Application web->db allow + default drop). No container-cluster
 * span: attach one with PATCH .../container-cluster-span/<id> once a cluster is registered.
 */
export function loadDemo(tree: PolicyTree, user = 'admin'): void {
  const antrea = (id: string, expression: unknown[], display_name = id) =>
    tree.write(groupKind, D, id, { display_name, group_type: ['ANTREA'], expression }, 'PATCH', user);
  const tag = (member_type: string, value: string) => ({
    resource_type: 'Condition',
    member_type,
    key: 'Tag',
    operator: 'EQUALS',
    value,
  });
  antrea('web-pods', [tag('Pod', 'dis:k8s:app|web')], 'Web pods');
  antrea('db-pods', [tag('Pod', 'dis:k8s:app|db')], 'DB pods');
  antrea('frontend-web', [
    {
      resource_type: 'NestedExpression',
      expressions: [
        {
          resource_type: 'Condition',
          member_type: 'Namespace',
          key: 'Name',
          operator: 'EQUALS',
          value: 'frontend',
        },
        { resource_type: 'ConjunctionOperator', conjunction_operator: 'AND' },
        tag('Pod', 'dis:k8s:tier|web'),
      ],
    },
  ]);
  antrea('kube-dns', [
    {
      resource_type: 'NestedExpression',
      expressions: [
        {
          resource_type: 'Condition',
          member_type: 'Namespace',
          key: 'Name',
          operator: 'EQUALS',
          value: 'kube-system',
        },
        { resource_type: 'ConjunctionOperator', conjunction_operator: 'AND' },
        tag('Pod', 'dis:k8s:k8s-app|kube-dns'),
      ],
    },
  ]);
  antrea('corp-net', [
    { resource_type: 'IPAddressExpression', ip_addresses: ['10.0.0.0/8', '192.168.10.0/24'] },
  ]);
  tree.write(
    serviceKind,
    '/infra',
    'web-8080',
    {
      display_name: 'web-8080',
      service_entries: [
        {
          id: 'tcp-8080',
          resource_type: 'L4PortSetServiceEntry',
          l4_protocol: 'TCP',
          destination_ports: ['8080'],
        },
      ],
    },
    'PATCH',
    user,
  );
  tree.write(
    securityPolicyKind,
    D,
    'k8s-core-dns',
    {
      display_name: 'k8s-core-dns',
      category: 'Infrastructure',
      sequence_number: 10,
      rules: [
        {
          id: 'allow-dns',
          sequence_number: 10,
          action: 'ALLOW',
          direction: 'OUT',
          source_groups: ['ANY'],
          destination_groups: [`${G}/kube-dns`],
          services: ['/infra/services/DNS', '/infra/services/DNS-UDP'],
          logged: false,
        },
      ],
    },
    'PATCH',
    user,
  );
  tree.write(
    securityPolicyKind,
    D,
    'web-to-db',
    {
      display_name: 'web-to-db',
      category: 'Application',
      sequence_number: 20,
      scope: [`${G}/db-pods`],
      rules: [
        {
          id: 'allow-web-mysql',
          sequence_number: 10,
          action: 'ALLOW',
          direction: 'IN',
          source_groups: [`${G}/web-pods`, `${G}/frontend-web`],
          destination_groups: ['ANY'],
          services: ['/infra/services/MySQL'],
          logged: true,
        },
        {
          id: 'drop-corp',
          sequence_number: 20,
          action: 'REJECT',
          direction: 'IN',
          source_groups: [`${G}/corp-net`],
          destination_groups: ['ANY'],
          services: ['ANY'],
        },
        {
          id: 'default-drop',
          sequence_number: 30,
          action: 'DROP',
          direction: 'IN',
          source_groups: ['ANY'],
          destination_groups: ['ANY'],
          services: ['ANY'],
        },
      ],
    },
    'PATCH',
    user,
  );
}
