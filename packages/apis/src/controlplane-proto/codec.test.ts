import { describe, expect, it } from 'vitest';
import type { GroupMember, NetworkPolicy } from '../controlplane/types.js';
import { ProtoError } from '../k8s-proto/errors.js';
import { WatchFrameDecoder } from '../k8s-proto/watch.js';
import {
  CONTROLPLANE_KINDS,
  type ControlplaneKind,
  type ControlplaneKinds,
  decodeControlplane,
  decodeControlplaneObject,
  decodeControlplaneWatchEvent,
  decodeGroupMember,
  decodeNetworkPolicy,
  encodeControlplane,
  encodeControlplaneObject,
  encodeGroupMember,
  encodeNetworkPolicy,
  encodeWatchEventFrame,
} from './codec.js';
import { GO_GOLDEN } from './fixtures/go-golden.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ip = (...b: number[]) => Uint8Array.from(b);
const IP4 = ip(10, 0, 0, 1);
const IP6 = ip(0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);

function expectProtoError(fn: () => unknown, code: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(ProtoError.is(caught), `expected ProtoError, got ${String(caught)}`).toBe(true);
  expect((caught as ProtoError).code).toBe(code);
}

describe('hand-built golden bytes (from the .proto field numbers alone)', () => {
  it('GroupMember{pod, ips}: pod = field 1 LEN, PodReference{name=1, namespace=2}, ips = field 3 LEN raw bytes', () => {
    const expected = [
      '0a 09', // field 1 (pod), wire type 2, 9 bytes
      '0a 03 776562', // PodReference.name = "web"
      '12 02 6e73', // PodReference.namespace = "ns"
      '1a 04 0a000001', // field 3 (ips), 4 raw bytes 10.0.0.1
      '22 0d', // field 4 (ports), 13 bytes
      '08 50', // NamedPort.port = 80 (varint)
      '12 04 68747470', // NamedPort.name = "http"
      '1a 03 544350', // NamedPort.protocol = "TCP"
    ].join('');
    const gm: GroupMember = {
      pod: { name: 'web', namespace: 'ns' },
      ips: [IP4],
      ports: [{ port: 80, name: 'http', protocol: 'TCP' }],
    };
    expect(toHex(encodeGroupMember(gm))).toBe(expected.replace(/\s/g, ''));
    expect(decodeGroupMember(hex(expected))).toEqual(gm);
  });

  it('NetworkPolicy scalars: priority is a double (fixed64), tierPriority an int32 varint', () => {
    const bytes = encodeControlplane('NetworkPolicy', {
      metadata: { name: 'x' },
      priority: 1.5,
      tierPriority: 250,
    });
    // metadata is always written (like Go), then field 4 wire type 1 and field 5 wire type 0.
    const meta = '0a 11 0a0178 1200 1a00 2200 2a00 3200 3800 4200';
    expect(toHex(bytes)).toBe(`${meta} 21 000000000000f83f 28 fa01`.replace(/\s/g, ''));
  });

  it('labelIdentities is an unpacked repeated uint32 (proto2), and packed input is accepted', () => {
    const unpacked = encodeControlplane('NetworkPolicyPeer', { labelIdentities: [1, 300] });
    expect(toHex(unpacked)).toBe('280128ac02');
    const packed = hex('2a 03 01 ac02');
    expect(decodeControlplane('NetworkPolicyPeer', packed)).toEqual({ labelIdentities: [1, 300] });
  });
});

// TS objects equivalent to the Go objects the reference bytes were recorded from, in the
// normalized shape decode returns (struct-valued fields present, Go zero values omitted).
const NP_FULL: NetworkPolicy = {
  metadata: { name: 'uid-1', uid: 'uid-1', resourceVersion: '12', generation: 2 },
  rules: [
    {
      direction: 'In',
      from: {
        addressGroups: ['ag1', 'ag2'],
        ipBlocks: [
          {
            cidr: { ip: ip(10, 0, 0, 0), prefixLength: 8 },
            except: [{ ip: ip(10, 1, 0, 0), prefixLength: 16 }],
          },
        ],
        labelIdentities: [1, 300],
      },
      to: {},
      services: [
        { protocol: 'TCP', port: 80, endPort: 90 },
        { protocol: 'UDP', port: 'http' },
        { srcPort: 1000, srcEndPort: 2000 },
      ],
      priority: 0,
      action: 'Drop',
      enableLogging: true,
      name: 'rule1',
      logLabel: 'lbl',
    },
    {
      direction: 'Out',
      from: {},
      to: { fqdns: ['*.example.com'], toServices: [{ name: 'svc', namespace: 'ns' }] },
      priority: -1,
      enableLogging: false,
      appliedToGroups: ['atg2'],
      l7Protocols: [{ http: { host: 'h', method: 'GET', path: '/x' } }, { tls: { sni: 's.example' } }],
    },
  ],
  appliedToGroups: ['atg1'],
  priority: 5.5,
  tierPriority: 250,
  sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'acnp', uid: 'src-uid' },
};

const GOLDEN_OBJECTS: {
  [name: string]: { kind: ControlplaneKind; obj: ControlplaneKinds[ControlplaneKind] };
} = {
  groupmember_pod_ip: { kind: 'GroupMember', obj: { pod: { name: 'web', namespace: 'ns' }, ips: [IP4] } },
  groupmember_full: {
    kind: 'GroupMember',
    obj: {
      pod: { name: 'web', namespace: 'ns' },
      ips: [IP4, IP6],
      ports: [{ port: 80, name: 'http', protocol: 'TCP' }],
    },
  },
  groupmember_node: { kind: 'GroupMember', obj: { node: { name: 'n1' }, ips: [IP4] } },
  groupmember_ee_svc: {
    kind: 'GroupMember',
    obj: { externalEntity: { name: 'ee', namespace: 'ns' }, service: { name: 's', namespace: 'ns' } },
  },
  networkpolicy_full: { kind: 'NetworkPolicy', obj: NP_FULL },
  networkpolicy_k8s: {
    kind: 'NetworkPolicy',
    obj: {
      metadata: { name: 'u2' },
      rules: [{ direction: 'In', from: {}, to: {}, priority: -1, enableLogging: false }],
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'np', uid: 'k-uid' },
    },
  },
  addressgrouppatch: {
    kind: 'AddressGroupPatch',
    obj: {
      metadata: { name: 'ag1' },
      addedGroupMembers: [{ pod: { name: 'a', namespace: 'ns' }, ips: [IP4] }],
      removedGroupMembers: [{ pod: { name: 'b', namespace: 'ns' } }],
    },
  },
  appliedtogrouplist: {
    kind: 'AppliedToGroupList',
    obj: {
      metadata: { resourceVersion: '3' },
      items: [{ metadata: { name: 'atg1' }, groupMembers: [{ pod: { name: 'p', namespace: 'ns' } }] }],
    },
  },
  networkpolicystatus: {
    kind: 'NetworkPolicyStatus',
    obj: {
      metadata: { name: 'uid-1' },
      nodes: [
        { nodeName: 'n1', generation: 2, realizationFailure: false },
        { nodeName: 'n2', generation: 1, realizationFailure: true, message: 'boom' },
      ],
    },
  },
  nodestatssummary: {
    kind: 'NodeStatsSummary',
    obj: {
      metadata: { name: 'n1' },
      antreaClusterNetworkPolicies: [
        {
          networkPolicy: { type: 'AntreaClusterNetworkPolicy', name: 'acnp', uid: 'u' },
          trafficStats: { packets: 10, bytes: 2 ** 40, sessions: 1 },
          ruleTrafficStats: [{ name: 'rule1', trafficStats: { packets: 10, bytes: 1000, sessions: 1 } }],
        },
      ],
    },
  },
};

describe('golden bytes produced by Antrea and apimachinery Go code', () => {
  for (const [name, { kind, obj }] of Object.entries(GOLDEN_OBJECTS)) {
    const golden = GO_GOLDEN[name as keyof typeof GO_GOLDEN];
    it(`${name}: encode matches Go byte-for-byte and decode returns the object`, () => {
      expect(toHex(encodeControlplane(kind, obj))).toBe(golden);
      expect(decodeControlplane(kind, hex(golden))).toEqual(obj);
    });
  }

  it('fills Go value fields the TS object leaves out (from/to, zero strings) exactly like Go', () => {
    const minimal: NetworkPolicy = {
      ...NP_FULL,
      rules: NP_FULL.rules!.map(({ from, to, ...rest }) => ({
        ...rest,
        ...(Object.keys(from ?? {}).length ? { from } : {}),
        ...(Object.keys(to ?? {}).length ? { to } : {}),
      })),
    };
    expect(minimal.rules![0]!.to).toBeUndefined();
    expect(toHex(encodeNetworkPolicy(minimal))).toBe(GO_GOLDEN.networkpolicy_full);
  });

  it('ObjectMeta (labels sorted like Go, creationTimestamp as seconds) matches apimachinery', () => {
    const np: NetworkPolicy = {
      metadata: {
        name: 'np',
        uid: 'u1',
        resourceVersion: '7',
        generation: 3,
        labels: { b: '1', a: '2' },
        creationTimestamp: '2023-11-14T22:13:20Z',
      },
    };
    const meta = GO_GOLDEN.objectmeta;
    const bytes = encodeNetworkPolicy(np);
    expect(toHex(bytes)).toBe(`0a${(meta.length / 2).toString(16)}${meta}`);
    expect(decodeNetworkPolicy(bytes)).toEqual(np);
    const minimalMeta = GO_GOLDEN.objectmeta_min;
    expect(toHex(encodeNetworkPolicy({ metadata: { name: 'x' } }))).toBe(
      `0a${(minimalMeta.length / 2).toString(16)}${minimalMeta}`,
    );
  });

  it('IntOrString ports match apimachinery for numbers and names', () => {
    expect(toHex(encodeControlplane('Service', { port: 80 }))).toBe(`1206${GO_GOLDEN.intstr_80}3a00`);
    expect(toHex(encodeControlplane('Service', { port: 'http' }))).toBe(`120a${GO_GOLDEN.intstr_http}3a00`);
    expect(decodeControlplane('Service', hex(`120a${GO_GOLDEN.intstr_http}3a00`))).toEqual({ port: 'http' });
  });

  it('the full envelope and ADDED watch frame match the apiserver stack', () => {
    expect(toHex(encodeControlplaneObject('NetworkPolicy', NP_FULL))).toBe(GO_GOLDEN.networkpolicy_envelope);
    expect(toHex(encodeWatchEventFrame('ADDED', 'NetworkPolicy', NP_FULL))).toBe(
      GO_GOLDEN.networkpolicy_watch_frame,
    );
    const decoder = new WatchFrameDecoder();
    const [event, ...rest] = decoder.push(hex(GO_GOLDEN.networkpolicy_watch_frame));
    expect(rest).toEqual([]);
    expect(decodeControlplaneWatchEvent(event!)).toEqual({
      type: 'ADDED',
      kind: 'NetworkPolicy',
      object: NP_FULL,
    });
  });

  it('decodes a Status envelope (watch ERROR events)', () => {
    expect(decodeControlplaneObject(hex(GO_GOLDEN.status_envelope))).toEqual({
      kind: 'Status',
      object: { metadata: {}, status: 'Failure', message: 'gone', reason: 'Expired', code: 410 },
    });
  });
});

// One representative object per kind; round-trip must be the identity on the normalized shape.
const meta = { name: 'obj', uid: 'u', resourceVersion: '5' };
const member: GroupMember = { pod: { name: 'p', namespace: 'ns' }, ips: [IP4, IP6] };
const npStats = {
  networkPolicy: { type: 'K8sNetworkPolicy' as const, namespace: 'ns', name: 'n', uid: 'u' },
  trafficStats: { packets: 0, bytes: 0, sessions: 0 },
};
const SAMPLES: { [K in ControlplaneKind]: ControlplaneKinds[K] } = {
  NetworkPolicy: NP_FULL,
  NetworkPolicyList: {
    metadata: { resourceVersion: '9', continue: 'c' },
    items: [NP_FULL, { metadata: { name: 'b' } }],
  },
  AddressGroup: { metadata: meta, groupMembers: [member] },
  AddressGroupList: { metadata: {}, items: [] },
  AddressGroupPatch: { metadata: meta, addedGroupMembers: [member], removedGroupMembers: [member] },
  AppliedToGroup: {
    metadata: meta,
    groupMembers: [{ pod: { name: 'p', namespace: 'ns' } }, { service: { name: 's', namespace: 'ns' } }],
  },
  AppliedToGroupList: { metadata: {}, items: [{ metadata: meta }] },
  AppliedToGroupPatch: { metadata: meta, removedGroupMembers: [{ node: { name: 'n' } }] },
  EgressGroup: { metadata: meta, groupMembers: [member] },
  EgressGroupList: { metadata: {}, items: [{ metadata: meta }] },
  EgressGroupPatch: { metadata: meta, addedGroupMembers: [member] },
  NetworkPolicyStatus: {
    metadata: meta,
    nodes: [{ nodeName: 'n', generation: 0, realizationFailure: false }],
  },
  NodeStatsSummary: {
    metadata: meta,
    networkPolicies: [npStats],
    antreaNetworkPolicies: [
      { ...npStats, ruleTrafficStats: [{ trafficStats: { packets: 1, bytes: 2, sessions: 3 } }] },
    ],
    multicast: [{ group: '224.0.0.5', pods: [{ name: 'p', namespace: 'ns' }] }],
  },
  NetworkPolicyEvaluation: {
    metadata: meta,
    request: { source: { pod: { name: 'a', namespace: 'ns' } }, destination: {} },
    response: {
      networkPolicy: { type: 'AntreaNetworkPolicy', name: 'x', uid: 'y' },
      ruleIndex: 2,
      rule: { direction: 'In', action: 'Allow' },
    },
  },
  GroupAssociation: { metadata: meta, associatedGroups: [{ namespace: 'ns', name: 'g', uid: 'u' }] },
  IPGroupAssociation: { metadata: meta, associatedGroups: [] },
  GroupMembers: {
    metadata: meta,
    effectiveMembers: [member],
    effectiveIPBlocks: [{ ip: IP4, prefixLength: 32 }],
    totalMembers: 1,
    totalPages: 1,
    currentPage: 1,
  },
  ClusterGroupMembers: {
    metadata: meta,
    effectiveMembers: [],
    effectiveIPBlocks: [],
    totalMembers: 0,
    totalPages: 0,
    currentPage: 0,
  },
  PaginationGetOptions: { page: 2, limit: 100 },
  SupportBundleCollection: {
    metadata: { ...meta, creationTimestamp: '2026-01-02T03:04:05Z' },
    expiredAt: '2026-01-02T04:04:05Z',
    sinceTime: '1h',
    fileServer: { url: 'sftp://x', hostPublicKey: ip(1, 2, 3) },
    authentication: { bearerToken: 't', basicAuthentication: { username: 'u', password: 'p' } },
  },
  SupportBundleCollectionList: { metadata: { resourceVersion: '1' }, items: [] },
  SupportBundleCollectionStatus: {
    metadata: meta,
    nodes: [
      { nodeName: 'n', nodeType: 'Node', completed: true },
      { nodeName: 'm', error: 'e' },
    ],
  },
  Status: {
    metadata: { resourceVersion: '1' },
    status: 'Failure',
    reason: 'NotFound',
    details: {
      name: 'x',
      kind: 'networkpolicies',
      causes: [{ reason: 'r', field: 'f' }],
      retryAfterSeconds: 3,
    },
    code: 404,
  },
  GroupMember: member,
  IPNet: { ip: IP6, prefixLength: 64 },
  IPBlock: { cidr: { ip: IP4, prefixLength: 24 }, except: [{ ip: IP4, prefixLength: 32 }] },
  Service: { protocol: 'ICMP', icmpType: 8, icmpCode: 0, igmpType: 0, groupAddress: '224.0.0.1' },
  NetworkPolicyRule: {
    direction: 'Out',
    from: {},
    to: { ipBlocks: [] as never[] },
    priority: 3,
    enableLogging: false,
  },
  NetworkPolicyPeer: { addressGroups: ['a'], fqdns: ['x.com'], labelIdentities: [0, 4294967295] },
  NetworkPolicyReference: { type: 'AdminNetworkPolicy', name: 'anp', uid: '' },
  NetworkPolicyStats: npStats,
};
// An empty repeated field decodes as absent; fix the one sample that would otherwise differ.
(SAMPLES.NetworkPolicyRule as { to: object }).to = {};

describe('round trips', () => {
  it('covers every kind', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...CONTROLPLANE_KINDS].sort());
  });

  for (const kind of CONTROLPLANE_KINDS) {
    it(`${kind}: decode(encode(x)) = x, bare and enveloped`, () => {
      const sample = SAMPLES[kind];
      expect(decodeControlplane(kind, encodeControlplane(kind, sample))).toEqual(sample);
      const decoded = decodeControlplaneObject(encodeControlplaneObject(kind, sample));
      expect(decoded).toEqual({ kind, object: sample });
    });
  }

  it('keeps pointer fields that hold zero (tierPriority 0, priority 0, empty action)', () => {
    const np: NetworkPolicy = { metadata: { name: 'z' }, priority: 0, tierPriority: 0 };
    expect(decodeNetworkPolicy(encodeNetworkPolicy(np))).toEqual(np);
    const svc = { endPort: 0, icmpType: 0, srcPort: 0 };
    expect(decodeControlplane('Service', encodeControlplane('Service', svc))).toEqual(svc);
  });

  it('decoded bytes are plain Uint8Array copies that do not alias the input', () => {
    const bytes = encodeGroupMember({ ips: [IP4] });
    const decoded = decodeGroupMember(bytes);
    bytes.fill(0);
    expect(decoded.ips![0]).toEqual(IP4);
    expect(Object.getPrototypeOf(decoded.ips![0])).toBe(Uint8Array.prototype);
  });
});

describe('errors', () => {
  it.each<[string, ControlplaneKind, unknown]>([
    ['string for int32', 'GroupMember', { ports: [{ port: '80', name: 'h', protocol: 'TCP' }] }],
    ['int32 out of range', 'NetworkPolicy', { metadata: { name: 'x' }, tierPriority: 2 ** 31 }],
    ['non-integer int32', 'NetworkPolicy', { metadata: { name: 'x' }, tierPriority: 1.5 }],
    [
      'unsafe int64',
      'NetworkPolicyStatus',
      { metadata: { name: 'x' }, nodes: [{ nodeName: 'n', generation: 2 ** 60 }] },
    ],
    ['number for string', 'GroupMember', { pod: { name: 5, namespace: 'ns' } }],
    ['string for bytes', 'GroupMember', { ips: ['10.0.0.1'] }],
    ['object for array', 'GroupMember', { ips: {} }],
    ['bad timestamp', 'NetworkPolicy', { metadata: { name: 'x', creationTimestamp: 'yesterday' } }],
    ['bad IntOrString', 'Service', { port: 1.5 }],
    ['non-string label', 'NetworkPolicy', { metadata: { name: 'x', labels: { a: 1 } } }],
    ['not an object', 'NetworkPolicy', 'np'],
  ])('encode rejects %s with PROTO_ENCODE', (_name, kind, obj) => {
    expectProtoError(() => encodeControlplane(kind, obj as never), 'PROTO_ENCODE');
  });

  it('rejects unknown kinds', () => {
    expectProtoError(() => encodeControlplane('Pod' as ControlplaneKind, {} as never), 'PROTO_ENCODE');
    const env = encodeControlplaneObject('NetworkPolicy', { metadata: { name: 'x' } });
    // Same bytes but claiming apiVersion v1: not a controlplane NetworkPolicy.
    const other = Buffer.from(
      toHex(env).replace(
        toHex(Buffer.from('controlplane.antrea.io/v1beta2')),
        toHex(Buffer.from('controlplane.antrea.io/v1beta9')),
      ),
      'hex',
    );
    expectProtoError(() => decodeControlplaneObject(other), 'PROTO_DECODE');
  });

  it.each<[string, ControlplaneKind, string]>([
    ['truncated', 'NetworkPolicy', GO_GOLDEN.networkpolicy_full.slice(0, 40)],
    ['bad IntOrString type', 'Service', '1206 080210501a00'],
    ['int64 beyond 2^53', 'NetworkPolicyStatus', '0a02 0a00 12 0b 0a01 6e 10 ffffffffffffffff7f'],
  ])('decode rejects %s with PROTO_DECODE', (_name, kind, input) => {
    expectProtoError(() => decodeControlplane(kind, hex(input)), 'PROTO_DECODE');
  });

  it('fuzz: random and mutated input only ever decodes or throws PROTO_DECODE', () => {
    let s = 7;
    const rand = () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return s / 2 ** 32;
    };
    const seeds = Object.values(GO_GOLDEN).map(hex);
    let decodedOk = 0;
    for (let i = 0; i < 3000; i++) {
      let input: Uint8Array;
      if (i % 3 === 0) {
        input = new Uint8Array(Math.floor(rand() * 80)).map(() => Math.floor(rand() * 256));
      } else {
        input = Uint8Array.from(seeds[i % seeds.length]!);
        for (let f = 0; f < 1 + Math.floor(rand() * 3); f++)
          input[Math.floor(rand() * input.length)] = Math.floor(rand() * 256);
        if (i % 5 === 0) input = input.subarray(0, Math.floor(rand() * input.length));
      }
      const kind = CONTROLPLANE_KINDS[i % CONTROLPLANE_KINDS.length]!;
      for (const decode of [() => decodeControlplane(kind, input), () => decodeControlplaneObject(input)]) {
        try {
          decode();
          decodedOk++;
        } catch (err) {
          expect(ProtoError.is(err), `${kind} ${toHex(input)}: ${String(err)}`).toBe(true);
          expect((err as ProtoError).code).toBe('PROTO_DECODE');
        }
      }
    }
    // Protobuf is permissive, so plenty of inputs decode; the point is that none crash.
    expect(decodedOk).toBeGreaterThan(0);
  });
});
