import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, type Plan } from '../../src/bootstrap/plan';
import { renderLog, renderPlan } from '../../src/bootstrap/render';
import type { RunEvent } from '../../src/bootstrap/runner';

const root = join(__dirname, '..', '..', '..');
const token = new Secret('eyJhbGciOi-TOKEN');
const password = 'P@ssw0rd!';

const noop = {
  check: async () => 'todo' as const,
  apply: async () => undefined,
  verify: async () => true as const,
};

const plan: Plan<unknown> = {
  id: 'join-byoh',
  title: 'Join win-1 through WMCO BYOH',
  target: 'win-1.example.com',
  steps: [
    {
      id: 'enable-containers',
      title: 'Enable the Containers feature',
      description: 'Windows needs the Containers feature before containerd can run.\nA reboot may follow.',
      ...noop,
      preview: {
        check: '(Get-WindowsFeature Containers).Installed',
        powershell: [
          `Install-WindowsFeature -Name Containers\n$pw = ConvertTo-SecureString '${password}' -AsPlainText -Force`,
        ],
        notes: ['May reboot the host.'],
      },
      retries: 2,
      timeoutMs: 60000,
    },
    {
      id: 'byoh-configmap',
      title: 'Register the host with WMCO',
      ...noop,
      preview: {
        api: [
          {
            verb: 'patch',
            path: '/api/v1/namespaces/openshift-windows-machine-config-operator/configmaps/windows-instances',
            body: { data: { '10.0.0.5': 'username=Administrator' }, token },
          },
          { verb: 'GET', path: '/api/v1/nodes/win-1' },
        ],
      },
    },
    {
      id: 'push-key',
      title: 'Push the public key',
      ...noop,
      preview: {
        powershell: [
          'Set-Content C:\\ProgramData\\ssh\\administrators_authorized_keys -Value $key',
          `Write-Host ${token.reveal()}`,
        ],
        api: [{ verb: 'POST', path: '/api/v1/namespaces/x/secrets', body: `password: ${password}` }],
      },
    },
  ],
};

test('the rendered plan shows each step, its PowerShell fences, API calls and notes', () => {
  const text = renderPlan(plan, { secrets: [password, token] });
  assert.match(text, /^# kube-windows plan: Join win-1 through WMCO BYOH$/m);
  assert.match(text, /^# target: win-1\.example\.com$/m);
  assert.match(text, /^STEP 1\/3 {2}enable-containers {2}Enable the Containers feature$/m);
  assert.match(text, /^STEP 2\/3 {2}byoh-configmap {2}Register the host with WMCO$/m);
  assert.match(text, /^STEP 3\/3 {2}push-key {2}Push the public key$/m);
  assert.match(text, /^ {2}Windows needs the Containers feature/m);
  assert.match(text, /^ {2}A reboot may follow\.$/m);
  assert.match(text, /^ {2}check: \(Get-WindowsFeature Containers\)\.Installed$/m);
  assert.equal(text.match(/^ {2}```powershell$/gm)?.length, 3);
  assert.equal(text.match(/^ {2}```$/gm)?.length, 3);
  assert.match(text, /^ {2}```powershell\n {2}Install-WindowsFeature -Name Containers\n/m);
  assert.match(
    text,
    /^ {2}API PATCH \/api\/v1\/namespaces\/openshift-windows-machine-config-operator\/configmaps\/windows-instances$/m,
  );
  assert.match(text, /^ {2}API GET \/api\/v1\/nodes\/win-1$/m);
  // Bodies as YAML, indented under their call.
  assert.match(text, /^ {4}data:\n {6}10\.0\.0\.5: username=Administrator\n {4}token: •••$/m);
  assert.match(text, /^ {2}note: May reboot the host\.$/m);
  assert.match(text, /^ {2}retries: 2/m);
  // Step order follows the plan.
  assert.ok(
    text.indexOf('enable-containers') < text.indexOf('byoh-configmap') &&
      text.indexOf('byoh-configmap') < text.indexOf('push-key'),
  );
});

test('secrets never appear in the rendered plan or log', () => {
  const text = renderPlan(plan, { secrets: [password] });
  assert.ok(!text.includes(password), text);
  assert.match(text, /^ {4}token: •••$/m, 'a Secret in an API body is always hidden');
  const withToken = renderPlan(plan, { secrets: [password, token] });
  assert.ok(!withToken.includes(token.reveal()));
  assert.match(withToken, /Write-Host •••/);
  assert.match(withToken, /^ {4}token: •••$/m);

  const log = renderLog([{ type: 'log', time: 0, level: 'info', message: `pw ${password}` }], {
    secrets: [password],
    utc: true,
  });
  assert.equal(log, '[00:00:00]   INFO pw •••\n');
});

test('the log has timestamped STEP lines with statuses', () => {
  const t = Date.UTC(2026, 0, 1, 9, 5, 7);
  const events: RunEvent[] = [
    { type: 'plan-start', time: t, planId: 'join', title: 'Join', target: 'win-1', steps: [] },
    { type: 'step-start', time: t, stepId: 'a', title: 'A', index: 1, total: 4 },
    { type: 'step-check', time: t, stepId: 'a', result: 'todo', reason: 'missing' },
    { type: 'step-apply', time: t, stepId: 'a', attempt: 1, attempts: 1 },
    { type: 'step-verify', time: t, stepId: 'a', ok: true },
    { type: 'step-end', time: t + 1500, stepId: 'a', outcome: 'applied', durationMs: 1500 },
    { type: 'step-end', time: t, stepId: 'b', outcome: 'skipped', durationMs: 3, message: 'already done' },
    { type: 'step-end', time: t, stepId: 'c', outcome: 'failed', durationMs: 3, message: 'boom' },
    {
      type: 'step-end',
      time: t,
      stepId: 'd',
      outcome: 'cancelled',
      durationMs: 3,
      message: 'Cancelled during step d.',
    },
    { type: 'log', time: t, level: 'warn', stepId: 'a', message: 'retrying' },
    { type: 'plan-end', time: t, planId: 'join', outcome: 'failed', durationMs: 10, message: 'boom' },
  ];
  const lines = renderLog(events, { utc: true }).trimEnd().split('\n');
  assert.ok(lines.every((l) => /^\[\d{2}:\d{2}:\d{2}\] /.test(l)));
  assert.equal(lines[0], '[09:05:07] PLAN join RUNNING  Join on win-1 (0 steps)');
  assert.equal(lines[1], '[09:05:07] STEP a RUNNING  1/4 A');
  assert.equal(lines[2], '[09:05:07]   check: todo (missing)');
  assert.equal(lines[5], '[09:05:08] STEP a OK  1.5 s');
  assert.equal(lines[6], '[09:05:07] STEP b SKIPPED  3 ms');
  assert.equal(lines[7], '[09:05:07] STEP c FAILED  3 ms  boom');
  assert.equal(lines[8], '[09:05:07] STEP d CANCELLED  3 ms  Cancelled during step d.');
  assert.equal(lines[9], '[09:05:07]   WARN retrying');
  assert.equal(lines[10], '[09:05:07] PLAN join FAILED  10 ms  boom');
});

interface GrammarRule {
  match?: string;
  begin?: string;
  end?: string;
  while?: string;
  name?: string;
  contentName?: string;
  include?: string;
  patterns?: GrammarRule[];
  captures?: Record<string, GrammarRule>;
  beginCaptures?: Record<string, GrammarRule>;
  endCaptures?: Record<string, GrammarRule>;
  repository?: Record<string, GrammarRule>;
}

test('the grammar is valid JSON, uses the contributed scope names, and its regexes compile', () => {
  const grammar = JSON.parse(
    readFileSync(join(root, 'syntaxes', 'kube-windows-plan.tmLanguage.json'), 'utf8'),
  ) as GrammarRule & { scopeName: string };
  assert.equal(grammar.scopeName, 'source.kube-windows-plan');

  const regexes: string[] = [];
  const includes: string[] = [];
  const names: string[] = [];
  const walk = (rule: GrammarRule) => {
    for (const key of ['match', 'begin', 'end', 'while'] as const) if (rule[key] !== undefined) regexes.push(rule[key]);
    if (rule.include) includes.push(rule.include);
    if (rule.name) names.push(rule.name);
    if (rule.contentName) names.push(rule.contentName);
    for (const child of rule.patterns ?? []) walk(child);
    for (const group of [rule.captures, rule.beginCaptures, rule.endCaptures, rule.repository])
      for (const child of Object.values(group ?? {})) walk(child);
  };
  walk(grammar);

  assert.ok(regexes.length >= 10);
  for (const source of regexes) assert.doesNotThrow(() => new RegExp(source), source);
  for (const inc of includes.filter((i) => i.startsWith('#')))
    assert.ok(grammar.repository?.[inc.slice(1)], `missing repository entry ${inc}`);
  assert.ok(includes.includes('source.powershell'));
  assert.ok(names.includes('meta.embedded.block.powershell'));
  for (const scope of [
    'keyword.control.step.kube-windows-plan',
    'constant.numeric.timestamp.kube-windows-plan',
    'support.function.http-verb.kube-windows-plan',
    'markup.inserted.status.ok.kube-windows-plan',
    'markup.deleted.status.failed.kube-windows-plan',
  ]) {
    assert.ok(names.includes(scope), scope);
  }

  // The regexes recognise the lines the renderer writes.
  const rx = (key: string) =>
    new RegExp(grammar.repository?.[key]?.match ?? grammar.repository?.[key]?.begin ?? '(?!)');
  const text = renderPlan(plan);
  assert.ok(text.split('\n').filter((l) => rx('plan-step').test(l)).length === 3);
  assert.ok(text.split('\n').filter((l) => rx('powershell-fence').test(l)).length === 3);
  assert.ok(text.split('\n').filter((l) => rx('api').test(l)).length === 3);
  assert.ok(rx('header').test(text.split('\n')[0] ?? ''));
  assert.ok(rx('log-line').test('[09:05:07] STEP a OK  1.5 s'));
  assert.ok(new RegExp(grammar.repository?.['powershell-fence']?.end ?? '').test('  ```'));

  // package.json contributes the language and grammar with the same names.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: {
      languages?: { id: string; extensions?: string[] }[];
      grammars?: { language: string; scopeName: string; path: string; embeddedLanguages?: Record<string, string> }[];
    };
  };
  const language = pkg.contributes.languages?.find((l) => l.id === 'kube-windows-plan');
  assert.deepEqual(language?.extensions, ['.kwplan']);
  const contributed = pkg.contributes.grammars?.find((g) => g.language === 'kube-windows-plan');
  assert.equal(contributed?.scopeName, grammar.scopeName);
  assert.equal(contributed?.path, './syntaxes/kube-windows-plan.tmLanguage.json');
  assert.equal(contributed?.embeddedLanguages?.['meta.embedded.block.powershell'], 'powershell');
});
