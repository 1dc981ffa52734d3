/** Adds `value` to the set stored under `key`, creating the set on first use. */
export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/** Removes `value` from the set under `key`, dropping the set when it becomes empty. */
export function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set?.delete(value) && set.size === 0) map.delete(key);
}
