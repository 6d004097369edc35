// The watches a real API server holds open, as it counts them itself (/metrics,
// apiserver_longrunning_requests, verb WATCH), by resource: what the restart suites compare before and
// after a restart to prove that no watch leaked and none doubled. Test-only.
import assert from 'node:assert/strict';
import type { RealApiServer } from './real-apiserver';

/** Open watches by resource ("nodes", "machine.openshift.io/machinesets"). */
export async function openWatches(server: RealApiServer): Promise<Map<string, number>> {
  const r = await server.request<string>('/metrics');
  assert.equal(r.status, 200, 'the admin may read /metrics');
  const counts = new Map<string, number>();
  for (const m of String(r.body).matchAll(/^apiserver_longrunning_requests\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.verb !== 'WATCH') continue;
    const key = `${labels.group ? `${labels.group}/` : ''}${labels.resource}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** The watches above `base` (the server's own informers): what the clients under test hold open. */
export function oursOf(now: Map<string, number>, base: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...now]
      .map(([k, n]) => [k, n - (base.get(k) ?? 0)] as const)
      .filter(([, n]) => n !== 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Polls until the clients' watches equal `expected` (closing a stream takes a moment), at most 30 s; returns the last count. */
export async function watchesSettle(
  expected: Record<string, number>,
  server: RealApiServer,
  base: Map<string, number>,
): Promise<Record<string, number>> {
  const end = Date.now() + 30_000;
  let last = oursOf(await openWatches(server), base);
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    last = oursOf(await openWatches(server), base);
  }
  return last;
}

/** Requests the server answered, by verb and resource (apiserver_request_total): e.g. the LISTs a 410 causes. */
export async function requestCount(server: RealApiServer, verb: string, resource: string): Promise<number> {
  const r = await server.request<string>('/metrics');
  let n = 0;
  for (const m of String(r.body).matchAll(/^apiserver_request_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.verb === verb && labels.resource === resource) n += Number(m[2]);
  }
  return n;
}
