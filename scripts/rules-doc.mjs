// Regenerates the rule table in docs/rule-table.md (between the rules markers) and docs/rules.md from the
// rule registry, via the built CLI (`kube-windows rules --format json`). `--check` only verifies.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const rules = JSON.parse(
  execFileSync(process.execPath, ['dist/cli.js', 'rules', '--format', 'json'], { encoding: 'utf8' }),
);
const failures = JSON.parse(
  execFileSync(process.execPath, ['dist/cli.js', 'rules', '--failures', '--format', 'json'], { encoding: 'utf8' }),
);
const check = process.argv.includes('--check');
const esc = (s) => s.replace(/\|/g, '\\|');

/** The admission column: enforced by the generated policies, or the reason's code (rules.md says it in words). */
const admissionCell = (r) => (r.admission.enforceable ? 'yes' : r.admission.why);

export function readmeTable(list) {
  const rows = list.map(
    (r) => `| [${r.id}](rules.md#${r.id.toLowerCase()}) | ${r.severity} | ${admissionCell(r)} | ${esc(r.title)} |`,
  );
  return ['| Rule | Severity | Admission | What it catches and why |', '|---|---|---|---|', ...rows].join('\n');
}

function failuresSection(list) {
  const out = [
    '## Failure signatures (live pods)',
    '',
    "What `kube-windows check --context` (and the explorer) explains when a Windows pod fails: each signature is recognised in the pod's container states, its events or its node's conditions, by the texts shown (recorded from the issue thread or documentation named as the source), and worded with the facts at hand (the node's Windows build, the image's, the cluster's taints, RuntimeClasses and mirror sets). Findings carry the id; `--disable` and `--enable` take it as they take rule ids.",
    '',
  ];
  for (const f of list) {
    out.push(
      `### ${f.id}`,
      '',
      `Severity: ${f.severity}.`,
      '',
      f.title,
      '',
      `Cause: ${f.cause}`,
      '',
      `Fix: ${f.fix}`,
      '',
      `Source: \`${f.source}\``,
      '',
      'Recognised texts, for example:',
      '',
    );
    for (const e of f.examples) out.push(`- \`${e.replace(/`/g, "'")}\``);
    out.push('');
  }
  return out;
}

export function failuresTable(list) {
  const rows = list.map((f) => `| [${f.id}](rules.md#${f.id.toLowerCase()}) | ${f.severity} | ${esc(f.title)} |`);
  return ['| Signature | Severity | What failed |', '|---|---|---|', ...rows].join('\n');
}

// Documented Windows limits deliberately left without a rule, and why (kept here: docs/rules.md is generated).
const NOT_COVERED = [
  [
    '`terminationMessagePath` and `terminationMessagePolicy`',
    "The Windows guide's limit (\"Windows doesn't support mapping single files\") is Docker's; containerd, the only runtime since Kubernetes 1.24, mounts single files, and the default `/dev/termination-log` works. A rule would flag manifests that work.",
  ],
  [
    '`terminationGracePeriodSeconds`',
    'Documented as "requires containerD", which every supported Windows node runs. How long Windows itself waits after CTRL_SHUTDOWN_EVENT is set inside the image (WaitToKillServiceTimeout), which a manifest does not show. When the node itself shuts down or restarts, the limit is the kubelet\'s: from Kubernetes 1.34 Windows graceful node shutdown (beta, on by default) stops the pods with their grace periods first, but only within the kubelet\'s `shutdownGracePeriod` (`shutdownGracePeriodCriticalPods` for critical pods; 0, the default, turns it off), so a longer grace period is cut short; before 1.34 the pods are killed with the host. That is node configuration, not in a manifest; `kube-windows nodes reboot` drains first and says which applies to the node.',
  ],
  [
    'Tekton `Task`',
    'A Task has no pod template; the TaskRun or PipelineRun that runs it carries the node selector, and OCP002 checks those.',
  ],
  [
    '`ServiceMonitor` selecting Windows pods',
    "A ServiceMonitor selects Services, not pods: telling whether they lead to Windows pods needs every Service matched against every workload's labels. OCP002 checks PodMonitors, which select pods directly. The live check (`check --context`) does not read monitors.",
  ],
  [
    'odo devfiles',
    'A devfile is not a Kubernetes object and names no node: odo creates the pods itself, and kube-windows reads Kubernetes objects. (The openshift-docs known-limitations module keeps "Red Hat OpenShift Developer CLI (odo)" in its list of features not supported on Windows nodes commented out, so the published list does not name it.) Check the Deployments odo creates with `check --context`.',
  ],
  ['`flexVolume`', 'Supported on Windows (deprecated since Kubernetes 1.23): not reported.'],
  ['`gitRepo` volumes', 'Deprecated upstream; the Windows storage guide says nothing either way, so no rule guesses.'],
  [
    'Namespace `LimitRange` defaults for WIN062',
    'Files do not show which LimitRange the namespace has; WIN062 names the possibility. Live objects (`check --context`, the Windows workload problems view) already carry the defaults the API server applied.',
  ],
];

function notCoveredSection() {
  const out = [
    '## Documented limits without a rule',
    '',
    'Limits from the Kubernetes "Windows containers in Kubernetes" guide and OpenShift "Windows Container Support" left out on purpose:',
    '',
  ];
  for (const [what, why] of NOT_COVERED) out.push(`- ${what}: ${why}`);
  out.push('');
  return out;
}

/** The severity, and for errors whether the API server refuses the object (JSON and SARIF say `apiRejects`). */
function severityLine(r) {
  if (r.severity !== 'error') return `${r.severity}.`;
  return r.apiRejects
    ? 'error — the API server rejects the object (`apiRejects: true`).'
    : 'error — accepted by the API server, but it can never run as written (`apiRejects: false`).';
}

function rulesDoc(list) {
  const families = [...new Set(list.map((r) => r.family))];
  const out = [
    '# kube-windows rules',
    '',
    'Generated from the rule registry by `node scripts/rules-doc.mjs`; do not edit by hand.',
    '',
    'Severity: **error** = the API server rejects it, or it can never run; **warning** = it fails or is silently ignored at runtime; **info** = worth knowing.',
    'Each error says which of the two it is; `check --format json` and `--format sarif` carry it per finding as `apiRejects` (true: rejected by the API server; false: accepted, never runs as written).',
    '',
    "Kubernetes releases: some rules decide by the release of the cluster (what its API server rejects, drops or refuses differs from one release to the next). The release is the one given with `check --kubernetes-version 1.N`, else the cluster's (`--context`, `--snapshot`, the editor's cluster: its API server's version, or on OpenShift 4.N its Kubernetes 1.(N+13)), else 1.37, the newest release kube-windows is tested against. Each rule below says which releases it holds for; the findings name the release they were decided by.",
    'Admission: each rule says whether `kube-windows policy` enforces it in the cluster with a generated ValidatingAdmissionPolicy, or why not (see [admission policies](admission-policies.md)).',
    'Disable a rule for one line with `# kube-windows-disable-next-line RULE`, for the rest of a document with `# kube-windows-disable RULE`, or for a run with `--disable RULE`.',
    '',
  ];
  for (const fam of families) {
    out.push(`## ${fam}`, '');
    for (const r of list.filter((x) => x.family === fam))
      out.push(
        `### ${r.id}`,
        '',
        `Severity: ${severityLine(r)}`,
        '',
        `Kubernetes releases: ${r.releases}.`,
        '',
        r.admission.enforceable
          ? 'Admission: enforceable — `kube-windows policy export|apply` generates its ValidatingAdmissionPolicy validation ([admission policies](admission-policies.md)).'
          : `Admission: not enforceable — ${r.admission.text.replace(/^no: /, '')}.`,
        '',
        r.title,
        '',
      );
  }
  out.push(...notCoveredSection());
  out.push(...failuresSection(failures));
  return out.join('\n');
}

const TABLE = 'docs/rule-table.md';
const readme = readFileSync(TABLE, 'utf8');
const start = readme.indexOf('<!-- rules:start -->');
const end = readme.indexOf('<!-- rules:end -->');
if (start === -1 || end === -1)
  throw new Error('docs/rule-table.md lacks the <!-- rules:start --> / <!-- rules:end --> markers');
const withRules = `${readme.slice(0, start)}<!-- rules:start -->\n${readmeTable(rules)}\n${readme.slice(end)}`;
const fStart = withRules.indexOf('<!-- failures:start -->');
const fEnd = withRules.indexOf('<!-- failures:end -->');
if (fStart === -1 || fEnd === -1)
  throw new Error('docs/rule-table.md lacks the <!-- failures:start --> / <!-- failures:end --> markers');
const nextReadme = `${withRules.slice(0, fStart)}<!-- failures:start -->\n${failuresTable(failures)}\n${withRules.slice(fEnd)}`;
const nextDoc = rulesDoc(rules);
if (check) {
  let ok = true;
  if (nextReadme !== readme) {
    console.error('docs/rule-table.md is out of date: run node scripts/rules-doc.mjs');
    ok = false;
  }
  let current = '';
  try {
    current = readFileSync('docs/rules.md', 'utf8');
  } catch {
    /* missing */
  }
  if (current !== nextDoc) {
    console.error('docs/rules.md is out of date: run node scripts/rules-doc.mjs');
    ok = false;
  }
  process.exit(ok ? 0 : 1);
}
writeFileSync(TABLE, nextReadme);
mkdirSync('docs', { recursive: true });
writeFileSync('docs/rules.md', nextDoc);
console.log(
  `${rules.length} rules and ${failures.length} failure signatures written to docs/rule-table.md and docs/rules.md`,
);
