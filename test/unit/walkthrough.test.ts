// The Get Started walkthrough's example and completion events, without VS Code (test/e2e/walkthrough.test.ts
// walks it in a real one): the example shows what its pages say, runs on the sandbox's Windows nodes, and
// every step completes on an event the extension really raises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import { checkText } from '../../src/core/rules/checker';
import { tolerates } from '../../src/core/rules/families/runtime-class';

const ROOT = resolve(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

test('the example has the one error and the one warning its pages describe, and nothing else', () => {
  const findings = checkText(read('media/walkthrough/example-deployment.yaml')).findings;
  assert.deepEqual(
    findings.map((f) => `${f.ruleId} ${f.severity}`).sort(),
    ['WIN002 error', 'WIN030 warning'],
    findings.map((f) => f.message).join('\n'),
  );
  const page = read('media/walkthrough/check-manifest.md');
  assert.match(page, /one field the API server rejects for Windows pods \(an error\)/);
  assert.match(page, /one setting that this image\s+silently defeats \(a warning: `runAsNonRoot` is not enforced/);
  assert.match(read('media/walkthrough/quick-fix.md'), /Remove readOnlyRootFilesystem/);
});

test("the example tolerates the Windows taints of the sandbox (WMCO's os=Windows) and of upstream (os=windows)", () => {
  const deployment = load(read('media/walkthrough/example-deployment.yaml')) as {
    spec: { template: { spec: { tolerations: Record<string, unknown>[] } } };
  };
  const tolerations = deployment.spec.template.spec.tolerations;
  for (const value of ['Windows', 'windows'])
    assert.ok(
      tolerations.some((t) => tolerates(t, { key: 'os', value, effect: 'NoSchedule' })),
      `no toleration of os=${value}:NoSchedule`,
    );
});

test('every step completes on an event the extension raises, never on a context true before it is shown', () => {
  const pkg = JSON.parse(read('package.json')) as {
    contributes: {
      walkthroughs: { steps: { id: string; completionEvents?: string[] }[] }[];
      commands: { command: string }[];
    };
  };
  const source = read('src/extension/walkthrough.ts');
  const commands = new Set(pkg.contributes.commands.map((c) => c.command));
  const steps = pkg.contributes.walkthroughs.flatMap((w) => w.steps);
  const facts = new Set<string>();
  for (const step of steps) {
    const events = step.completionEvents ?? [];
    assert.ok(events.length > 0, `${step.id} has no completion event (VS Code would tick it when it is selected)`);
    for (const event of events) {
      const [kind, what] = [event.slice(0, event.indexOf(':')), event.slice(event.indexOf(':') + 1)];
      if (kind === 'onContext') {
        // VS Code follows events only once a walkthrough is shown and ignores a context already true then:
        // our own fact (set when the thing happens, kept across windows), true once the page is active.
        const m = /^(kubeWindows\.walkthrough\.\w+) && activeEditor == gettingStartedPage$/.exec(what);
        assert.ok(m, `${step.id}: ${event}`);
        assert.ok(source.includes(`'${m[1]}'`), `${step.id}: walkthrough.ts never sets ${m[1]}`);
        facts.add(step.id);
      } else if (kind === 'onCommand') {
        assert.ok(commands.has(what), `${step.id}: ${what} is not one of our commands`);
      } else {
        assert.equal(kind, 'onView', `${step.id}: ${event}`);
      }
    }
  }
  assert.deepEqual(
    [...facts],
    steps.map((s) => s.id),
    'every step completes on a fact kept across windows',
  );
});
