import type { ApiCodec, ApiObject, WatchEventType } from '../codec.js';

/**
 * Encodes an event once per codec and hands the same bytes to every watcher. Keyed by object
 * identity: the controller's store emits one immutable object per change, so N watchers of one
 * change cost one encoding. Weak keys let frames go with their objects.
 */
export class FrameCache {
  readonly #frames = new WeakMap<object, Map<string, Uint8Array>>();
  #hits = 0;
  #misses = 0;

  frame(codec: ApiCodec, type: WatchEventType, object: ApiObject): Uint8Array {
    let perObject = this.#frames.get(object);
    if (!perObject) {
      perObject = new Map();
      this.#frames.set(object, perObject);
    }
    const key = `${codec.mediaType}\u0000${type}`;
    let frame = perObject.get(key);
    if (frame) {
      this.#hits++;
      return frame;
    }
    this.#misses++;
    frame = codec.frameWatchEvent(type, codec.encode(object));
    perObject.set(key, frame);
    return frame;
  }

  get stats(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }
}
