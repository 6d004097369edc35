// The cluster the restart suites (test/apiserver-suites/restart.test.ts, test/e2e/restart.test.ts) show
// before an API server restart, and the one that comes back on a fresh etcd: mixedCluster's three Windows
// nodes, their pods and the BYOH ConfigMap, plus a Windows MachineSet; then a node, two pods, the
// MachineSet and a BYOH entry gone, and a node, a pod, a MachineSet and a BYOH entry new. Test-only.
import { mixedCluster, pod, windowsInstancesConfigMap, windowsNode } from './kube-seed';
import { wmcoDocMachineSet } from './machine-api-seed';
import assert from 'node:assert/strict';
import { fromEmulatorSeed, type SeedObject } from './real-apiserver';
import type { ShownRow } from './shown-tree';

/** The Windows node whose Pods group the suites expand. */
export const NODE = 'winworker-2022-b';
export const MACHINE_API = 'openshift-machine-api';

/** A Windows MachineSet of WMCO's documented AWS example, under another name. */
function machineSet(name: string): SeedObject {
  const ms = wmcoDocMachineSet('AWS') as SeedObject;
  const out = structuredClone(ms);
  out.metadata = { ...out.metadata, name, namespace: MACHINE_API };
  // No Machine API controller here: a MachineSet that wants none is whole without Machines.
  (out.spec as { replicas?: number }).replicas = 0;
  delete out.status;
  return out;
}

/** mixedCluster: three Windows nodes, pods on them, the BYOH ConfigMap; plus a Windows MachineSet. */
export function firstWorld(): SeedObject[] {
  return [
    ...fromEmulatorSeed(mixedCluster() as SeedObject[]),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MACHINE_API } },
    machineSet('winworker-us-east-2a'),
  ];
}

/**
 * What the cluster is after the fresh restart: winworker-2019-a, a pod of NODE, the MachineSet and one
 * BYOH entry gone; a node, a pod on NODE, a MachineSet and a BYOH entry that were never there before.
 */
export function secondWorld(): SeedObject[] {
  const gone = new Set(['winworker-2019-a', 'iis-7c9d5f8b6-abcde', 'legacy-app-5b8c7d9f4-klmno']);
  const kept = (fromEmulatorSeed(mixedCluster() as SeedObject[]) as SeedObject[]).filter(
    (o) => !gone.has(o.metadata.name) && o.metadata.name !== 'windows-instances',
  );
  return [
    ...kept,
    windowsNode('win-fresh-c', { build: '10.0.20348', address: '10.0.150.9' }) as SeedObject,
    pod('fresh-web-0', 'win-apps', NODE, { windows: true, runtimeClassName: 'windows2022' }) as SeedObject,
    windowsInstancesConfigMap({ '10.0.140.12': 'Administrator', '10.0.150.9': 'Administrator' }) as SeedObject,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MACHINE_API } },
    machineSet('winworker-us-east-2c'),
  ];
}

/** The shown rows as lines (indent = depth), ages left out: they are as of each read. */
export function render(rows: ShownRow[], depth = 0, out: string[] = []): string[] {
  for (const r of rows) {
    const description = (r.description ?? '').replace(/( · )?\d+[smhd]$/, '').replace(/ · \d+[smhd] ago/, '');
    out.push(`${'  '.repeat(depth)}${r.label}${description ? ` — ${description}` : ''}`);
    if (r.children) render(r.children, depth + 1, out);
  }
  return out;
}

/** Rows under one parent are unique by label: a duplicate is the symptom of a reconnect that added twice. */
export function assertNoDuplicates(lines: string[]): void {
  const seen = new Set<string>();
  const path: string[] = [];
  for (const l of lines) {
    const depth = (l.length - l.trimStart().length) / 2;
    path.length = depth;
    const key = [...path, l.trim().split(' — ')[0]].join(' > ');
    assert.ok(!seen.has(key), `a duplicate row: ${key}`);
    seen.add(key);
    path.push(l.trim().split(' — ')[0]);
  }
}
