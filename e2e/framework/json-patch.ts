// RFC 6902 JSON Patch over plain JSON values, for providers that keep objects in memory (the
// oracle provider); a real cluster provider sends the patch to the API server instead.
import type { JsonPatchOp } from './case-types.js';
import { E2eError } from './errors.js';

type Json = unknown;

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new E2eError('E2E_PATCH', `JSON pointer ${pointer} must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, pointer: string): { parent: Record<string, Json> | Json[]; key: string } {
  const t = tokens(pointer);
  if (t.length === 0) throw new E2eError('E2E_PATCH', 'patching the whole document is not supported');
  let cur: Json = doc;
  for (const k of t.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(k)] : (cur as Record<string, Json> | undefined)?.[k];
    if (cur === null || typeof cur !== 'object')
      throw new E2eError('E2E_PATCH', `path ${pointer} does not exist`);
  }
  return { parent: cur as Record<string, Json> | Json[], key: t[t.length - 1]! };
}

function get(doc: Json, pointer: string): Json {
  let cur: Json = doc;
  for (const k of tokens(pointer)) {
    if (cur === null || typeof cur !== 'object' || !(k in (cur as object)))
      throw new E2eError('E2E_PATCH', `path ${pointer} does not exist`);
    cur = Array.isArray(cur) ? cur[Number(k)] : (cur as Record<string, Json>)[k];
  }
  return cur;
}

function index(arr: Json[], key: string, forAdd: boolean, pointer: string): number {
  if (forAdd && key === '-') return arr.length;
  const i = Number(key);
  if (!/^\d+$/.test(key) || i > arr.length || (!forAdd && i === arr.length))
    throw new E2eError('E2E_PATCH', `bad array index in ${pointer}`);
  return i;
}

function add(doc: Json, pointer: string, value: Json): void {
  const { parent, key } = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true, pointer), 0, value);
  else parent[key] = value;
}

function remove(doc: Json, pointer: string): Json {
  const { parent, key } = parentOf(doc, pointer);
  if (Array.isArray(parent)) return parent.splice(index(parent, key, false, pointer), 1)[0];
  if (!(key in parent)) throw new E2eError('E2E_PATCH', `path ${pointer} does not exist`);
  const old = parent[key];
  delete parent[key];
  return old;
}

/** Returns a patched copy; the input is not modified. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  const out = structuredClone(doc) as Json;
  for (const op of ops) {
    switch (op.op) {
      case 'add':
        add(out, op.path, structuredClone(op.value));
        break;
      case 'remove':
        remove(out, op.path);
        break;
      case 'replace':
        remove(out, op.path);
        add(out, op.path, structuredClone(op.value));
        break;
      case 'move':
        add(out, op.path, remove(out, op.from!));
        break;
      case 'copy':
        add(out, op.path, structuredClone(get(out, op.from!)));
        break;
      case 'test':
        if (JSON.stringify(get(out, op.path)) !== JSON.stringify(op.value))
          throw new E2eError('E2E_PATCH', `test failed at ${op.path}`);
        break;
    }
  }
  return out as T;
}
