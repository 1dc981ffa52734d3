import { EventEmitter } from 'node:events';
import net from 'node:net';
import {
  decodeHello,
  encodeBarrierReply,
  encodeEchoReply,
  encodeError,
  encodeFeaturesReply,
  encodeHello,
} from '../codec/basic.js';
import { decodeBundleAdd, decodeBundleControl } from '../codec/bundle.js';
import { OFPBCT, OFPMP, OFPT } from '../codec/constants.js';
import { decodeFlowMod } from '../codec/flow-mod.js';
import { beginMessage, decodeHeader, endMessage, FrameSplitter } from '../codec/header.js';
import { encodeFlowStatsReply, type FlowStats } from '../codec/multipart.js';

/**
 * A scripted OpenFlow 1.5 switch on a socket, built from this package's codecs. It answers the
 * handshake, echo, barrier, bundle control and flow-stats requests, records every message it
 * receives, and can be told to fail messages, go silent or drop connections. Used by unit tests
 * of the transport and to capture the exact bytes ovs-ofctl sends.
 */
export class FakeSwitch extends EventEmitter {
  readonly received: Buffer[] = [];
  readonly connections = new Set<net.Socket>();
  /** Flows that OFPMP_FLOW_DESC requests return. */
  flows: FlowStats[] = [];
  /** Maximum flows per multipart reply part (to exercise OFPMPF_MORE). */
  flowsPerPart = 1000;
  /** When true, echo requests are not answered (keepalive tests). */
  silent = false;
  /** Versions advertised in our hello. */
  helloVersions: number[] = [6];
  /** When true, barrier requests are not answered (timeout tests). */
  ignoreBarriers = false;
  /** Returns an [type, code] error for a message, or undefined to accept it. */
  reject: (msg: Buffer) => [number, number] | undefined = () => undefined;
  private server: net.Server | undefined;

  /** Listens on a unix socket path, or on TCP 127.0.0.1 when given a port (0 = any); returns the port. */
  async listen(where: string | number): Promise<number> {
    this.server = net.createServer((s) => this.onConnection(s));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      if (typeof where === 'number') this.server!.listen(where, '127.0.0.1', () => resolve());
      else this.server!.listen(where, () => resolve());
    });
    const addr = this.server.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  }

  /** Drops every open connection (the client should reconnect). */
  dropConnections(): void {
    for (const s of this.connections) s.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Messages of one OpenFlow type received so far. */
  ofType(type: number): Buffer[] {
    return this.received.filter((m) => m[1] === type);
  }

  private onConnection(s: net.Socket): void {
    this.connections.add(s);
    const splitter = new FrameSplitter();
    s.on('close', () => this.connections.delete(s));
    s.on('error', () => {});
    s.write(encodeHello(0, this.helloVersions));
    s.on('data', (chunk: Buffer) => {
      for (const f of splitter.push(chunk)) this.onMessage(s, Buffer.from(f));
    });
    this.emit('connection', s);
  }

  private onMessage(s: net.Socket, msg: Buffer): void {
    this.received.push(msg);
    this.emit('message', msg);
    const h = decodeHeader(msg);
    const rejected = this.reject(msg);
    if (rejected) {
      s.write(encodeError(h.xid, rejected[0], rejected[1], msg));
      return;
    }
    switch (h.type) {
      case OFPT.HELLO:
        decodeHello(msg);
        return;
      case OFPT.ECHO_REQUEST:
        if (!this.silent) s.write(encodeEchoReply(h.xid, msg.subarray(8)));
        return;
      case OFPT.FEATURES_REQUEST:
        s.write(
          encodeFeaturesReply(h.xid, {
            datapathId: 0xabcn,
            nBuffers: 0,
            nTables: 254,
            auxiliaryId: 0,
            capabilities: 0x4f,
          }),
        );
        return;
      case OFPT.BARRIER_REQUEST:
        if (!this.ignoreBarriers) s.write(encodeBarrierReply(h.xid));
        return;
      case OFPT.BUNDLE_CONTROL: {
        const bc = decodeBundleControl(msg);
        const w = beginMessage(OFPT.BUNDLE_CONTROL, h.xid);
        w.u32(bc.bundleId)
          .u16(OFPBCT[bc.type] + 1)
          .u16(0);
        s.write(endMessage(w));
        return;
      }
      case OFPT.BUNDLE_ADD_MESSAGE:
        decodeBundleAdd(msg);
        return;
      case OFPT.FLOW_MOD:
        decodeFlowMod(msg);
        return;
      case OFPT.MULTIPART_REQUEST: {
        const mpType = msg.readUInt16BE(8);
        if (mpType !== OFPMP.FLOW_DESC) {
          // Anything else (ovs-ofctl asks for table features) gets an empty reply.
          const w = beginMessage(OFPT.MULTIPART_REPLY, h.xid);
          w.u16(mpType).u16(0).zeros(4);
          s.write(endMessage(w));
          return;
        }
        const parts = Math.max(1, Math.ceil(this.flows.length / this.flowsPerPart));
        for (let i = 0; i < parts; i++) {
          const slice = this.flows.slice(i * this.flowsPerPart, (i + 1) * this.flowsPerPart);
          s.write(encodeFlowStatsReply(h.xid, slice, i < parts - 1));
        }
        return;
      }
      default:
        return;
    }
  }
}
