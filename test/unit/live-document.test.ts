// The live YAML document of the Windows workload problems view (core/live/document.ts): what it shows
// of an object, field path strings read back against the object (keys with dots), and each finding
// placed at the range the engine gives on that same text, explanations at their field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutServerDefaults } from '../../src/core/live/check';
import { findObject, liveDocument, liveYaml, objectTitle, shownObject } from '../../src/core/live/document';
import { checkObject, checkText } from '../../src/core/rules/checker';
import { parseFieldPath, pathString } from '../../src/core/manifest/path';
import { LineIndex, type Range } from '../../src/core/manifest/text';
import type { Obj } from '../../src/core/manifest/path';

const deployment = (): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'iis',
    namespace: 'web',
    managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update' }],
  },
  spec: {
    selector: { matchLabels: { app: 'iis' } },
    template: {
      metadata: { labels: { app: 'iis' } },
      spec: {
        nodeSelector: { 'kubernetes.io/os': 'windows' },
        tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
        containers: [
          {
            name: 'iis',
            image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
            securityContext: { privileged: true },
          },
        ],
        volumes: [{ name: 'conf', configMap: { name: 'iis-conf', defaultMode: 420 } }],
      },
    },
  },
});

const under = (text: string, r: Range): string => {
  const lines = new LineIndex(text);
  return text.slice(lines.offsetAt(r.start), lines.offsetAt(r.end));
};

test('parseFieldPath reads pathString back, keys with dots and slashes included', () => {
  const o = deployment();
  for (const path of [
    ['spec', 'template', 'spec', 'nodeSelector', 'kubernetes.io/os'],
    ['spec', 'template', 'spec', 'containers', 0, 'securityContext', 'privileged'],
    ['spec', 'template', 'spec', 'volumes', 0, 'configMap', 'defaultMode'],
    ['metadata', 'name'],
  ]) {
    assert.deepEqual(parseFieldPath(o, pathString(path)), path);
  }
  // Past what the object has, segments split at dots; indexes stay numbers.
  assert.deepEqual(parseFieldPath(o, 'spec.template.spec.securityContext.windowsOptions.runAsUserName'), [
    'spec',
    'template',
    'spec',
    'securityContext',
    'windowsOptions',
    'runAsUserName',
  ]);
  assert.deepEqual(parseFieldPath(o, 'status.containerStatuses[2].state'), ['status', 'containerStatuses', 2, 'state']);
  assert.deepEqual(parseFieldPath(o, ''), []);
});

test('the document shows the object as the check saw it: no managedFields, no defaultMode 0644, a comment header', () => {
  const o = deployment();
  const shown = shownObject(o);
  assert.equal('managedFields' in (shown.metadata as Obj), false);
  assert.ok(Array.isArray((o.metadata as Obj).managedFields), 'the object read is not changed');
  const text = liveYaml(o, ['Deployment web/iis on cluster "lab"', 'two\nlines']);
  assert.match(text, /^# Deployment web\/iis on cluster "lab"\n# two lines\napiVersion: apps\/v1\n/);
  assert.doesNotMatch(text, /managedFields|defaultMode/);
  assert.equal(objectTitle({ kind: 'Deployment', namespace: 'web', name: 'iis' }), 'Deployment web/iis');
  assert.equal(objectTitle({ kind: 'MachineSet', name: 'w' }), 'MachineSet w');
  assert.equal(findObject([o], { kind: 'Deployment', namespace: 'web', name: 'iis' }), o);
  assert.equal(
    findObject([o], { kind: 'Deployment', name: 'iis' }),
    undefined,
    'a namespaced object is not found without its namespace',
  );
});

test('rule findings sit where the engine puts them on the same text; an explanation on its field; an unknown path on the deepest key', () => {
  const o = deployment();
  // As the live check runs them: on the object without the defaults the API server wrote.
  const rules = checkObject(withoutServerDefaults(o)).findings;
  assert.ok(rules.length > 0);
  const explanation = {
    ruleId: 'WINF001',
    severity: 'error' as const,
    message: 'image needs another build',
    path: 'spec.template.spec.containers[0].image',
  };
  const selector = {
    ruleId: 'WINF004',
    severity: 'error' as const,
    message: 'taint',
    path: 'spec.template.spec.nodeSelector.kubernetes.io/os',
  };
  const missing = {
    ruleId: 'WINF005',
    severity: 'warning' as const,
    message: 'no such field',
    path: 'spec.template.spec.securityContext.windowsOptions',
  };
  const doc = liveDocument(o, [...rules, explanation, selector, missing], {}, ['header line']);
  assert.equal(doc.findings.length, rules.length + 3);
  const engine = checkText(doc.text).findings;
  for (const f of doc.findings.slice(0, rules.length)) {
    const same = engine.find((e) => e.ruleId === f.ruleId && e.message === f.message);
    assert.ok(same, f.ruleId);
    assert.deepEqual(f.range, same.range, `${f.ruleId} at the engine's range`);
  }
  const privileged = doc.findings.find((f) => f.path.endsWith('securityContext.privileged'));
  assert.ok(privileged);
  assert.equal(under(doc.text, privileged.range), 'privileged');
  const [img, sel, gone] = doc.findings.slice(rules.length);
  assert.equal(under(doc.text, img.range), 'image');
  assert.equal(
    img.range.start.line,
    doc.text.split('\n').findIndex((l) => l.includes('image: mcr.microsoft.com/windows/servercore/iis')),
  );
  assert.equal(under(doc.text, sel.range), 'kubernetes.io/os');
  // spec.template.spec exists, securityContext does not: the deepest key found is underlined.
  assert.equal(under(doc.text, gone.range), 'spec');
  assert.ok(gone.range.start.line > 1, 'the inner spec, not the header');
});
