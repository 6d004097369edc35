import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkText } from '../../src/core/rules/checker';

// Real Windows manifests from public repositories (see test/fixtures/corpus/SOURCES.tsv), checked
// against a snapshot reviewed by hand. UPDATE_SNAPSHOT=1 rewrites it; review the diff before committing.
const ROOT = resolve(__dirname, '..', '..', '..');
const CORPUS = join(ROOT, 'test', 'fixtures', 'corpus');
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'corpus-snapshot.json');

/** Files their upstream repos ship as working examples (kyverno: the *-good tests; see SOURCES.tsv): not one error-severity finding allowed. */
const VALID = [
  'kubernetes-sigs+sig-windows-tools/hostprocess/calico/kube-proxy/kube-proxy.yml',
  'kubernetes-sigs+sig-windows-tools/hostprocess/csi-proxy/csi-proxy.yaml',
  'kubernetes-sigs+sig-windows-tools/hostprocess/eventflow-logger/containerd-logger.yaml',
  'prometheus-community+windows_exporter/kubernetes/windows-exporter-daemonset.yaml',
  'ms-azure-demos+aks-windows-container-liveness-probe-ps-command/pod-ps-script-probe.yaml',
  'ms-azure-demos+aks-windows-container-liveness-probe-ps-command/pod-ps-file-probe.yaml',
  'ms-azure-demos+aks-windows-container-configmap-file-mount-powershell/configMap-pod.yaml',
  'kyverno+policies/windows-security/require-run-as-containeruser/.chainsaw-test/pod-good.yaml',
  'kyverno+policies/windows-security/require-run-as-containeruser/.chainsaw-test/podcontroller-good.yaml',
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

function currentFindings(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of files(CORPUS)) {
    const result = checkText(readFileSync(file, 'utf8'));
    assert.deepEqual(result.ruleErrors, [], `rule errors on ${file}`);
    out[relative(CORPUS, file)] = result.findings.map(
      (f) => `${f.range.start.line + 1}:${f.range.start.character + 1} ${f.severity} ${f.ruleId}`,
    );
  }
  return out;
}

test('the corpus gives exactly the reviewed findings', () => {
  const current = currentFindings();
  if (process.env.UPDATE_SNAPSHOT) writeFileSync(SNAPSHOT, `${JSON.stringify(current, null, 2)}\n`);
  const expected = JSON.parse(readFileSync(SNAPSHOT, 'utf8'));
  assert.deepEqual(current, expected, 'corpus findings changed: review, then UPDATE_SNAPSHOT=1');
});

test('no error-severity finding on manifests the reference calls VALID', () => {
  for (const rel of VALID) {
    const result = checkText(readFileSync(join(CORPUS, rel), 'utf8'));
    const errors = result.findings.filter((f) => f.severity === 'error');
    assert.deepEqual(
      errors.map((f) => `${f.ruleId} ${f.message}`),
      [],
      rel,
    );
  }
});
