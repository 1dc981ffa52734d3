import { createServer, type Http2Server, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  CONTENT_TYPE_PROTOBUF,
  type ControlplaneKind,
  encodeWatchEventFrame,
  type WatchEventType,
} from '@antrea-ts/apis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Http2ControllerConnection } from './controller-connection.js';
import { ControllerWatch, type PolicyResource, type PolicyWatchSink } from './controller-watch.js';

const BASE = '/apis/controlplane.antrea.io/v1beta2';
const KIND: Record<PolicyResource, ControlplaneKind> = {
  networkpolicies: 'NetworkPolicy',
  appliedtogroups: 'AppliedToGroup',
  addressgroups: 'AddressGroup',
};

/** A controller that holds each watch open and lets the test send its events. */
class FakeController {
  readonly watches: string[] = [];
  readonly streams = new Map<PolicyResource, Http2ServerResponse>();
  readonly server: Http2Server = createServer((req, res) => {
    this.watches.push(req.url);
    const resource = req.url.slice(BASE.length + 1).split('?')[0] as PolicyResource;
    res.writeHead(200, { 'content-type': CONTENT_TYPE_PROTOBUF });
    this.streams.set(resource, res);
  });

  send(resource: PolicyResource, type: WatchEventType, name: string): void {
    const obj = { metadata: type === 'BOOKMARK' ? { resourceVersion: '3' } : { name } };
    this.streams.get(resource)?.write(encodeWatchEventFrame(type, KIND[resource], obj as never));
  }
}

describe('ControllerWatch (the NetworkPolicy watches)', () => {
  const controller = new FakeController();
  let connection: Http2ControllerConnection;
  let watch: ControllerWatch | undefined;
  const until = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 5 });

  beforeAll(async () => {
    await new Promise<void>((r) => controller.server.listen(0, '127.0.0.1', r));
    connection = new Http2ControllerConnection({
      url: `http://127.0.0.1:${(controller.server.address() as AddressInfo).port}`,
      servername: 'antrea.kube-system.svc',
      ca: async () => '',
      token: async () => 't',
    });
  });
  afterEach(() => watch?.stop());
  afterAll(async () => {
    connection.close();
    await new Promise((r) => controller.server.close(r));
  });

  it('watches the three policy resources by default; the initial state goes over at its BOOKMARK, later events one by one, and a dropped watch is lost and watched again', async () => {
    const events: unknown[][] = [];
    const sink: PolicyWatchSink = {
      replace: (r, objects) =>
        events.push(['replace', r, objects.map((o) => (o as { metadata: { name: string } }).metadata.name)]),
      apply: (r, type, name) => events.push(['apply', r, type, name]),
      lost: (r) => events.push(['lost', r]),
    };
    watch = new ControllerWatch({
      node: 'n1',
      connection,
      sink,
      logger: pino({ level: 'silent' }),
      retryMs: 10,
    });
    watch.start();
    await until(() => expect(controller.streams.size).toBe(3));
    expect([...controller.watches].sort()).toEqual(
      ['addressgroups', 'appliedtogroups', 'networkpolicies'].map(
        (r) => `${BASE}/${r}?watch=true&fieldSelector=nodeName%3Dn1`,
      ),
    );

    controller.send('networkpolicies', 'ADDED', 'np1');
    controller.send('networkpolicies', 'ADDED', 'np2');
    controller.send('networkpolicies', 'DELETED', 'np2');
    controller.send('addressgroups', 'BOOKMARK', '');
    await until(() => expect(events).toEqual([['replace', 'addressgroups', []]]));
    controller.send('networkpolicies', 'BOOKMARK', '');
    controller.send('networkpolicies', 'ADDED', 'np3');
    await until(() =>
      expect(events.slice(1)).toEqual([
        ['replace', 'networkpolicies', ['np1']],
        ['apply', 'networkpolicies', 'ADDED', 'np3'],
      ]),
    );

    controller.streams.get('networkpolicies')?.end();
    await until(() => expect(controller.watches).toHaveLength(4));
    expect(events.at(-1)).toEqual(['lost', 'networkpolicies']);
    controller.send('networkpolicies', 'ADDED', 'np3');
    controller.send('networkpolicies', 'BOOKMARK', '');
    await until(() => expect(events.at(-1)).toEqual(['replace', 'networkpolicies', ['np3']]));
  });
});
