/** A value computed once per key: what `cache` holds for `key`, or what `make` gives, kept there. */
export function computedOnce<K extends object, V>(cache: Map<K, V> | WeakMap<K, V>, key: K, make: (key: K) => V): V;
export function computedOnce<K, V>(cache: Map<K, V>, key: K, make: (key: K) => V): V;
export function computedOnce<K extends object, V>(cache: Map<K, V> | WeakMap<K, V>, key: K, make: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    cache.set(key, value);
  }
  return value;
}
