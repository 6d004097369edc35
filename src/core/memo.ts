/**
 * Memoizes a pure function of one string. Manifests repeat the same few images and account names
 * thousands of times, and several rules ask the same question of each; the cache is bounded.
 */
export function memoize<T>(fn: (s: string) => T, max = 4096): (s: string) => T {
  const cache = new Map<string, T>();
  return (s: string) => {
    // One lookup, not two (has, then get): these run for every container of every document.
    const hit = cache.get(s);
    if (hit !== undefined || cache.has(s)) return hit as T;
    if (cache.size >= max) cache.clear();
    const v = fn(s);
    cache.set(s, v);
    return v;
  };
}
