import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { type FrameTarget, type WatchCloseReason, WatchStream } from './watch-stream.js';

/** A socket stand-in: accepts `capacity` bytes, then pushes back until drain() is called. */
class FakeSocket extends EventEmitter implements FrameTarget {
  written: Uint8Array[] = [];
  buffered = 0;
  ended = false;
  destroyed = false;
  constructor(private readonly capacity: number) {
    super();
  }
  write(chunk: Uint8Array): boolean {
    this.written.push(chunk);
    this.buffered += chunk.length;
    return this.buffered < this.capacity;
  }
  drain(): void {
    this.buffered = 0;
    this.emit('drain');
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const frame = (n: number, size = 100) => new Uint8Array(size).fill(n);

describe('WatchStream', () => {
  it('writes straight through while the socket accepts, queues while it pushes back, flushes on drain', () => {
    const socket = new FakeSocket(250);
    const s = new WatchStream(socket, { clock: new FakeClock() });
    expect(s.send(frame(1))).toBe(true);
    expect(s.send(frame(2))).toBe(true);
    expect(s.send(frame(3))).toBe(true); // 300 bytes: the socket pushes back after this one
    expect(s.send(frame(4))).toBe(true);
    expect(s.send(frame(5))).toBe(true);
    expect(socket.written.map((f) => f[0])).toEqual([1, 2, 3]);
    expect(s.queuedFrames).toBe(2);
    expect(s.queuedBytes).toBe(200);
    socket.drain();
    expect(socket.written.map((f) => f[0])).toEqual([1, 2, 3, 4, 5]);
    expect(s.queuedFrames).toBe(0);
    expect(s.queuedBytes).toBe(0);
  });

  it('disconnects a watcher whose queue goes over the frame limit, dropping the backlog', () => {
    const socket = new FakeSocket(1);
    const reasons: WatchCloseReason[] = [];
    const s = new WatchStream(socket, {
      clock: new FakeClock(),
      limits: { maxQueuedFrames: 10 },
      observer: { closed: (r) => reasons.push(r) },
    });
    let accepted = 0;
    for (let i = 0; i < 1000; i++) if (s.send(frame(i % 256))) accepted++;
    // One frame went to the socket, ten waited, the eleventh queued frame closed the stream.
    expect(accepted).toBe(11);
    expect(s.closed).toBe(true);
    expect(s.closeReason).toBe('slow');
    expect(reasons).toEqual(['slow']);
    expect(socket.destroyed).toBe(true);
    expect(s.queuedBytes).toBe(0);
    expect(s.signal.aborted).toBe(true);
  });

  it('disconnects on the byte limit however few frames there are', () => {
    const socket = new FakeSocket(1);
    const s = new WatchStream(socket, { clock: new FakeClock(), limits: { maxQueuedBytes: 1000 } });
    s.send(frame(0));
    expect(s.send(frame(1, 600))).toBe(true);
    expect(s.send(frame(2, 600))).toBe(false);
    expect(s.closeReason).toBe('slow');
  });

  it('keeps memory bounded for a reader that never drains: queued bytes never exceed the limit', () => {
    const socket = new FakeSocket(64 * 1024);
    const limit = 256 * 1024;
    const s = new WatchStream(socket, { clock: new FakeClock(), limits: { maxQueuedBytes: limit } });
    let maxQueued = 0;
    for (let i = 0; i < 100_000 && !s.closed; i++) {
      s.send(frame(1, 1000));
      maxQueued = Math.max(maxQueued, s.queuedBytes);
    }
    expect(s.closed).toBe(true);
    expect(maxQueued).toBeLessThanOrEqual(limit);
    // What the socket itself took stays within its own capacity plus one frame.
    expect(socket.buffered).toBeLessThanOrEqual(64 * 1024 + 1000);
  });

  it('drops a socket that stalls with no new events, and ends cleanly at the timeout', () => {
    const clock = new FakeClock();
    const stalled = new FakeSocket(1);
    const a = new WatchStream(stalled, { clock, limits: { stallTimeoutMs: 5000 } });
    a.send(frame(1));
    clock.advance(4999);
    a.tick();
    expect(a.closed).toBe(false);
    clock.advance(1);
    a.tick();
    expect(a.closeReason).toBe('slow');

    const healthy = new FakeSocket(1 << 20);
    const b = new WatchStream(healthy, { clock, timeoutMs: 1000 });
    b.send(frame(1));
    clock.advance(1000);
    b.tick();
    expect(b.closeReason).toBe('timeout');
    expect(healthy.ended).toBe(true);
    expect(healthy.destroyed).toBe(false);
  });

  it('corks the socket for the rest of the tick so a burst of frames leaves together', async () => {
    const socket = Object.assign(new FakeSocket(1 << 20), {
      corks: 0,
      uncorks: 0,
      cork() {
        this.corks++;
      },
      uncork() {
        this.uncorks++;
      },
    });
    const s = new WatchStream(socket, { clock: new FakeClock() });
    for (let i = 0; i < 5; i++) s.send(frame(i));
    expect([socket.corks, socket.uncorks]).toEqual([1, 0]);
    await new Promise((r) => process.nextTick(r));
    expect([socket.corks, socket.uncorks]).toEqual([1, 1]);
    s.send(frame(9));
    expect(socket.corks).toBe(2);
  });

  it('a clean close flushes what is queued before ending', () => {
    const socket = new FakeSocket(150);
    const s = new WatchStream(socket, { clock: new FakeClock() });
    s.send(frame(1));
    s.send(frame(2));
    s.send(frame(3));
    s.close('server');
    expect(socket.written.map((f) => f[0])).toEqual([1, 2, 3]);
    expect(socket.ended).toBe(true);
    expect(s.send(frame(4))).toBe(false);
  });
});
