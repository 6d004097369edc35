// The rule engine's promise, checked against the real kube-apiserver: every rule that says the API
// server rejects something gets example objects, created with server-side dry run (?dryRun=All).
// The server must reject them, with the very message the rule quotes (field path, error type, value
// and detail), and must accept the version the rule's own fixes produce (or a hand-written fix
// where the rule offers none). The objects are sent as the YAML text the engine read, so the
// server's YAML decoder, not ours, decides what a scalar means.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { RULES } from '../../src/core/rules/registry';
import type { Finding } from '../../src/core/rules/types';
import { splitDocuments } from '../../src/core/manifest/split';
import { applyFix, findings } from '../support/check';
import { matchAt, quotesCause } from '../support/api-quotes';
import {
  collectionPath,
  ensureNamespace,
  ROOT,
  uniqueName,
  useApiServer,
  type ApiResponse,
  type RealApiServer,
  type Status,
} from '../support/real-apiserver';

let api: RealApiServer;
let serverVersion = '';
const NS = uniqueName('kw-rules');
const NS_BASELINE = uniqueName('kw-rules-baseline');
const NS_RESTRICTED = uniqueName('kw-rules-restricted');

before(async () => {
  api = await useApiServer();
  serverVersion = ((await api.request<{ gitVersion: string }>('/version')).body.gitVersion ?? '').trim();
  await ensureNamespace(api, NS);
  await ensureNamespace(api, NS_BASELINE, { 'pod-security.kubernetes.io/enforce': 'baseline' });
  await ensureNamespace(api, NS_RESTRICTED, {
    'pod-security.kubernetes.io/enforce': 'restricted',
    'pod-security.kubernetes.io/enforce-version': 'v1.30',
  });
});

after(async () => {
  await api?.stop();
});

// ---------------------------------------------------------------------------------------------
// Manifests

const indent = (text: string, by: number) => text.replace(/^(?=.)/gm, ' '.repeat(by));

/** The pod spec (YAML at column 0) inside an object of `kind`, named `name`. */
function workload(kind: string, name: string, podSpec: string, namespace?: string): string {
  const meta = `metadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}`;
  const tpl = (by: number, restartNever = false) =>
    `${indent(`metadata:\n  labels: {app: ${name}}\nspec:\n${indent((restartNever ? 'restartPolicy: Never\n' : '') + podSpec, 2)}`, by)}`;
  const sel = `  selector:\n    matchLabels: {app: ${name}}\n`;
  switch (kind) {
    case 'Pod':
      return `apiVersion: v1\nkind: Pod\n${meta}spec:\n${indent(podSpec, 2)}`;
    case 'PodTemplate':
      return `apiVersion: v1\nkind: PodTemplate\n${meta}template:\n${tpl(2)}`;
    case 'ReplicationController':
      return `apiVersion: v1\nkind: ReplicationController\n${meta}spec:\n  selector: {app: ${name}}\n  template:\n${tpl(4)}`;
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
      return `apiVersion: apps/v1\nkind: ${kind}\n${meta}spec:\n${sel}  template:\n${tpl(4)}`;
    case 'StatefulSet':
      return `apiVersion: apps/v1\nkind: StatefulSet\n${meta}spec:\n  serviceName: ${name}\n${sel}  template:\n${tpl(4)}`;
    case 'Job':
      return `apiVersion: batch/v1\nkind: Job\n${meta}spec:\n  template:\n${tpl(4, true)}`;
    case 'CronJob':
      return `apiVersion: batch/v1\nkind: CronJob\n${meta}spec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n${tpl(8, true)}`;
    default:
      throw new Error(`no template for ${kind}`);
  }
}

const ALL_KINDS = [
  'Pod',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
  'ReplicationController',
  'PodTemplate',
];

const WINDOWS = `os: {name: windows}\nnodeSelector: {kubernetes.io/os: windows}\n`;
const NANO = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';
const HPC = 'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0';

// ---------------------------------------------------------------------------------------------
// Talking to the server

interface Doc {
  text: string;
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

function docsOf(text: string): Doc[] {
  return splitDocuments(text).map((span) => {
    const docText = text.slice(span.start, span.end);
    const v = load(docText) as { apiVersion: string; kind: string; metadata?: { name?: string; namespace?: string } };
    return {
      text: docText,
      apiVersion: v.apiVersion,
      kind: v.kind,
      name: v.metadata?.name ?? '',
      namespace: v.metadata?.namespace,
    };
  });
}

/** Sends one document's YAML text as a create, dry run unless told otherwise. */
async function create(
  doc: Doc,
  options: { dryRun?: boolean; fieldValidation?: 'Strict' | 'Warn' | 'Ignore' } = {},
): Promise<ApiResponse<Status & Record<string, unknown>>> {
  const ns = doc.namespace ?? NS;
  const path = await collectionPath(api, doc.apiVersion, doc.kind, ns);
  if (!path) {
    // Not served: what a client gets when it posts to that version anyway.
    const group = doc.apiVersion.includes('/') ? `/apis/${doc.apiVersion}` : `/api/${doc.apiVersion}`;
    return api.request(`${group}/${doc.kind.toLowerCase()}s`, {
      body: doc.text,
      contentType: 'application/yaml',
      query: { dryRun: 'All' },
    });
  }
  return api.request(path, {
    body: doc.text,
    contentType: 'application/yaml',
    query: { dryRun: options.dryRun === false ? undefined : 'All', fieldValidation: options.fieldValidation },
  });
}

/** The server's answer as texts: the whole message, and `field: message` per cause. */
function answer(r: ApiResponse<Status>): { message: string; causes: string[] } {
  const body = typeof r.body === 'string' ? ({ message: r.body } as Status) : r.body;
  const causes = (body.details?.causes ?? []).map((c) =>
    c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? ''),
  );
  return { message: body.message ?? '', causes };
}

const rejected = (r: ApiResponse) => r.status >= 400;

// ---------------------------------------------------------------------------------------------
// Matching a rule's message against the server's

/**
 * The rule's message must open with one or more of the server's causes, joined by "; " and ended
 * by "." (then the rule's advice) or the end. Returns the causes it quotes.
 */
function leadingQuotes(f: Finding, causes: string[]): string[] {
  const used: string[] = [];
  let pos = 0;
  for (;;) {
    let end = -1;
    const hit = causes.find((c) => !used.includes(c) && (end = matchAt(f.message, pos, c)) >= 0);
    if (!hit) {
      assert.fail(
        `${f.ruleId} quotes a message the API server does not give.\n  rule says:   ${f.message.slice(pos, pos + 300)}\n  server says: ${causes.join('\n               ') || '(no causes)'}`,
      );
    }
    used.push(hit);
    pos = end;
    if (f.message.startsWith('; ', pos)) {
      pos += 2;
      continue;
    }
    assert.ok(
      pos === f.message.length || f.message[pos] === '.',
      `${f.ruleId}: the quoted server message ends at "${f.message.slice(pos, pos + 40)}"`,
    );
    return used;
  }
}

/** Applies the first fix of findings of `rules` until none is left with a fix. */
function fixAll(text: string, rules: string[]): string {
  for (let i = 0; i < 50; i++) {
    const f = findings(text).find((x) => rules.includes(x.ruleId) && x.fixes.length > 0);
    if (!f) return text;
    text = applyFix(text, f);
  }
  throw new Error(`fixes of ${rules.join(', ')} did not converge:\n${text}`);
}

// ---------------------------------------------------------------------------------------------
// Cases

interface Case {
  title: string;
  /** Rules under test: each must report at least one finding here. */
  rules: string[];
  /** YAML; its last document is the object sent, earlier ones (Namespaces) are facts for the engine only. */
  yaml: string;
  /**
   * How the rule's message relates to the server's answer. `causes` (default): each finding opens
   * with the server's `field: message` causes. `custom`: the case checks it in `verify`.
   */
  quotes?: 'causes' | 'custom';
  verify?: (fs: Finding[], r: ApiResponse<Status>, doc: Doc) => Promise<void> | void;
  /** Server causes no finding of any rule quotes, with the reason (default: none allowed). */
  unclaimed?: RegExp[];
  /** The accepted version: default, the rules' own fixes applied. */
  fixed?: string;
}

const cases: Case[] = [];
const covered = new Map<string, string[]>();
const cover = (id: string, title: string) => covered.set(id, [...(covered.get(id) ?? []), title]);

// WIN001: every pod-level field validateWindows forbids, in one Pod.
cases.push({
  title: 'WIN001 every forbidden pod-level field (Pod)',
  rules: ['WIN001'],
  yaml: workload(
    'Pod',
    'win001-all',
    `${WINDOWS}hostUsers: true
hostPID: true
hostIPC: true
shareProcessNamespace: false
securityContext:
  appArmorProfile: {type: RuntimeDefault}
  seLinuxOptions: {level: "s0:c1,c2"}
  seccompProfile: {type: RuntimeDefault}
  fsGroup: 2000
  fsGroupChangePolicy: OnRootMismatch
  sysctls: [{name: net.ipv4.ip_local_port_range, value: "1024 65535"}]
  runAsUser: 1000
  runAsGroup: 3000
  supplementalGroups: []
  supplementalGroupsPolicy: Strict
  seLinuxChangePolicy: Recursive
containers:
- name: app
  image: ${NANO}
`,
  ),
});

// WIN002: every forbidden container field, in an init container and a container (Deployment).
cases.push({
  title: 'WIN002 every forbidden container field, init container too (Deployment)',
  rules: ['WIN002'],
  yaml: workload(
    'Deployment',
    'win002-all',
    `${WINDOWS}initContainers:
- name: setup
  image: ${NANO}
  securityContext: {privileged: false, allowPrivilegeEscalation: false, readOnlyRootFilesystem: false}
containers:
- name: app
  image: ${NANO}
  securityContext:
    appArmorProfile: {type: RuntimeDefault}
    seLinuxOptions: {level: "s0:c1,c2"}
    seccompProfile: {type: RuntimeDefault}
    capabilities: {}
    readOnlyRootFilesystem: true
    privileged: true
    allowPrivilegeEscalation: true
    procMount: Default
    runAsUser: 0
    runAsGroup: 0
`,
  ),
});

// WIN001 + WIN002 in every kind that holds a pod spec: the API's field-path prefixes.
for (const kind of ALL_KINDS) {
  cases.push({
    title: `WIN001 and WIN002 field paths in a ${kind}`,
    rules: ['WIN001', 'WIN002'],
    yaml: workload(
      kind,
      `paths-${kind.toLowerCase()}`,
      `${WINDOWS}hostPID: true
securityContext:
  runAsUser: 1000
containers:
- name: app
  image: ${NANO}
  securityContext: {privileged: false, runAsUser: 1}
`,
    ),
  });
}

// WIN003: windowsOptions on a linux pod, pod level ({} counts) and container level (StatefulSet).
cases.push({
  title: 'WIN003 windowsOptions on a linux pod (StatefulSet)',
  rules: ['WIN003'],
  yaml: workload(
    'StatefulSet',
    'win003',
    `os: {name: linux}
securityContext:
  windowsOptions: {}
containers:
- name: app
  image: nginx
  securityContext:
    windowsOptions: {runAsUserName: ContainerUser}
`,
  ),
});

// WIN004: the three ways spec.os can be wrong.
cases.push({
  title: 'WIN004 os.name with a capital (ReplicationController)',
  rules: ['WIN004'],
  yaml: workload(
    'ReplicationController',
    'win004-case',
    `os: {name: Windows}\nnodeSelector: {kubernetes.io/os: windows}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
});
cases.push({
  title: 'WIN004 os.name empty (PodTemplate)',
  rules: ['WIN004'],
  yaml: workload(
    'PodTemplate',
    'win004-empty',
    `os: {name: ""}\nnodeSelector: {kubernetes.io/os: windows}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
});
cases.push({
  title: 'WIN004 os without a name (Job)',
  rules: ['WIN004'],
  yaml: workload(
    'Job',
    'win004-missing',
    `os: {}\nnodeSelector: {kubernetes.io/os: windows}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
});

// HostProcess: WIN010, WIN011, WIN012.
cases.push({
  title: 'WIN010 a normal init container in a HostProcess pod (DaemonSet)',
  rules: ['WIN010'],
  yaml: workload(
    'DaemonSet',
    'win010',
    `${WINDOWS}hostNetwork: true
securityContext:
  windowsOptions: {runAsUserName: "NT AUTHORITY\\\\Local service"}
initContainers:
- name: setup
  image: ${NANO}
containers:
- name: agent
  image: ${HPC}
  securityContext:
    windowsOptions: {hostProcess: true}
`,
  ),
});
cases.push({
  title: 'WIN011 HostProcess pod without hostNetwork (Pod)',
  rules: ['WIN011'],
  yaml: workload(
    'Pod',
    'win011-missing',
    `${WINDOWS}securityContext:\n  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}\ncontainers:\n- name: agent\n  image: ${HPC}\n`,
  ),
});
cases.push({
  title: 'WIN011 HostProcess pod with hostNetwork: false (Job)',
  rules: ['WIN011'],
  yaml: workload(
    'Job',
    'win011-false',
    `${WINDOWS}hostNetwork: false\nsecurityContext:\n  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}\ncontainers:\n- name: agent\n  image: ${HPC}\n`,
  ),
});
cases.push({
  title: 'WIN012 container hostProcess contradicts the pod (Pod)',
  rules: ['WIN012'],
  yaml: workload(
    'Pod',
    'win012',
    `${WINDOWS}hostNetwork: true
securityContext:
  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
containers:
- name: agent
  image: ${HPC}
- name: helper
  image: ${HPC}
  securityContext:
    windowsOptions: {hostProcess: false}
`,
  ),
  // The server also counts the contradicting container as a normal one in a HostProcess pod;
  // WIN010 leaves that cause to WIN012 on purpose (one error per cause).
  unclaimed: [
    /^spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers$/,
  ],
});

// WIN015: Pod Security admission (the API server's built-in PodSecurity plugin).
const psaNamespace = (name: string, labels: Record<string, string>) =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n  labels:\n${Object.entries(labels)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n')}\n---\n`;
const hpSpec = (extra = '') => `${WINDOWS}hostNetwork: true
securityContext:
  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
${extra}containers:
- name: agent
  image: ${HPC}
`;

/** WIN015 quotes PodSecurity's reasons from `violates PodSecurity` up to the hostProcess reason. */
function psaQuote(f: Finding): string {
  const m = /violates PodSecurity "[^"]+": .*?hostProcess \([^)]*\)/.exec(f.message);
  assert.ok(m, `WIN015 quotes no PodSecurity reason: ${f.message}`);
  return m[0];
}
const verifyPsa = (fs: Finding[], r: ApiResponse<Status>) => {
  assert.equal(r.status, 403, JSON.stringify(r.body));
  for (const f of fs) {
    const quote = psaQuote(f);
    assert.ok(
      answer(r).message.includes(quote),
      `WIN015 quotes a PodSecurity message the API server does not give.\n  rule says:   ${quote}\n  server says: ${answer(r).message}`,
    );
  }
};
cases.push({
  title: 'WIN015 HostProcess pod in a baseline namespace (Pod)',
  rules: ['WIN015'],
  yaml:
    psaNamespace(NS_BASELINE, { 'pod-security.kubernetes.io/enforce': 'baseline' }) +
    workload('Pod', 'win015-baseline', hpSpec(), NS_BASELINE),
  quotes: 'custom',
  verify: verifyPsa,
  fixed: workload('Pod', 'win015-baseline', hpSpec(), NS),
});
cases.push({
  title: 'WIN015 HostProcess pod with hostPath volumes and a hostPort in a baseline namespace (Pod)',
  rules: ['WIN015'],
  yaml:
    psaNamespace(NS_BASELINE, { 'pod-security.kubernetes.io/enforce': 'baseline' }) +
    workload(
      'Pod',
      'win015-hostpath',
      `${WINDOWS}hostNetwork: true
securityContext:
  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
volumes:
- name: logs
  hostPath: {path: 'C:\\var\\log'}
- name: kube
  hostPath: {path: 'C:\\k'}
containers:
- name: agent
  image: ${HPC}
  ports: [{containerPort: 9182, hostPort: 9182}, {containerPort: 10250, hostPort: 10250}]
  volumeMounts: [{name: logs, mountPath: 'C:\\logs'}, {name: kube, mountPath: 'C:\\k'}]
`,
      NS_BASELINE,
    ),
  quotes: 'custom',
  verify: verifyPsa,
  fixed: workload('Pod', 'win015-hostpath', hpSpec(), NS),
});
cases.push({
  title: 'WIN015 HostProcess containers and a hostPath volume in a restricted namespace (Pod)',
  rules: ['WIN015'],
  yaml:
    psaNamespace(NS_RESTRICTED, {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'v1.30',
    }) +
    workload(
      'Pod',
      'win015-restricted',
      `${WINDOWS}hostNetwork: true
volumes:
- name: logs
  hostPath: {path: 'C:\\var\\log'}
- name: scratch
  emptyDir: {}
initContainers:
- name: setup
  image: ${HPC}
  securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
containers:
- name: agent
  image: ${HPC}
  securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
  volumeMounts: [{name: logs, mountPath: 'C:\\logs'}]
`,
      NS_RESTRICTED,
    ),
  quotes: 'custom',
  verify: verifyPsa,
  fixed: workload(
    'Pod',
    'win015-restricted',
    `${WINDOWS}hostNetwork: true
volumes:
- name: logs
  hostPath: {path: 'C:\\var\\log'}
securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
containers:
- name: agent
  image: ${HPC}
  volumeMounts: [{name: logs, mountPath: 'C:\\logs'}]
`,
    NS,
  ),
});
cases.push({
  title: 'WIN015 HostProcess DaemonSet in a baseline namespace: admitted with a warning, its pods are not',
  rules: ['WIN015'],
  yaml:
    psaNamespace(NS_BASELINE, { 'pod-security.kubernetes.io/enforce': 'baseline' }) +
    workload('DaemonSet', 'win015-ds', hpSpec(), NS_BASELINE),
  quotes: 'custom',
  verify: async (fs, r) => {
    // Workloads are admitted; PodSecurity warns, and rejects the pods their controller creates.
    assert.equal(r.status, 201, JSON.stringify(r.body));
    for (const f of fs) {
      const quote = psaQuote(f);
      const warned = r.warnings.find((w) => w.includes(quote.replace(/^violates/, 'would violate')));
      assert.ok(warned, `WIN015: no PodSecurity warning holds "${quote}"; warnings: ${r.warnings.join(' | ')}`);
      const pod = await create(docsOf(workload('Pod', 'win015-ds-pod', hpSpec(), NS_BASELINE))[0]);
      assert.equal(pod.status, 403);
      assert.ok(answer(pod).message.includes(quote), `${quote}\n${answer(pod).message}`);
    }
  },
  fixed: workload('DaemonSet', 'win015-ds', hpSpec(), NS),
});

// windowsOptions.runAsUserName: WIN020-WIN026, one example each, plus the YAML quoting pitfalls.
const userPod = (name: string, users: string[], level: 'container' | 'pod' = 'container') =>
  workload(
    'CronJob',
    name,
    `${WINDOWS}${level === 'pod' ? `securityContext:\n  windowsOptions: {runAsUserName: ${users[0]}}\n` : ''}containers:
${(level === 'pod' ? [users[0]] : users).map((u, i) => `- name: c${i}\n  image: ${NANO}\n${level === 'container' ? `  securityContext:\n    windowsOptions:\n      runAsUserName: ${u}\n` : ''}`).join('')}`,
  );
cases.push({
  title: 'WIN020 empty runAsUserName at pod level (CronJob)',
  rules: ['WIN020'],
  yaml: userPod('win020', ['""'], 'pod'),
});
cases.push({
  title: 'WIN021 control characters: a tab, the newline of a block scalar, a DEL (CronJob)',
  rules: ['WIN021'],
  yaml: workload(
    'CronJob',
    'win021',
    `${WINDOWS}containers:
- name: tab
  image: ${NANO}
  securityContext: {windowsOptions: {runAsUserName: "Container\\tUser"}}
- name: block
  image: ${NANO}
  securityContext:
    windowsOptions:
      runAsUserName: |
        ContainerUser
- name: del
  image: ${NANO}
  securityContext: {windowsOptions: {runAsUserName: "Container\\x7fUser"}}
`,
  ),
});
cases.push({
  title: 'WIN022 doubled backslash in single quotes and plain scalars (CronJob)',
  rules: ['WIN022'],
  yaml: userPod('win022', ["'NT AUTHORITY\\\\SYSTEM'", 'NT AUTHORITY\\\\Local service', '"a\\\\b\\\\c"']),
  // The rule offers no fix for three parts; the single- and double-backslash forms are accepted.
  fixed: userPod('win022', ["'NT AUTHORITY\\SYSTEM'", '"NT AUTHORITY\\\\Local service"', '"b\\\\c"']),
});
cases.push({
  title: 'WIN023 and WIN024 a 256-character domain (CronJob)',
  rules: ['WIN023', 'WIN024'],
  yaml: userPod('win023', [`'${'d'.repeat(256)}\\user'`]),
  fixed: userPod('win023', [`'${'d'.repeat(63)}.example.com\\user'`]),
});
cases.push({
  title: 'WIN024 domains that are neither NetBIOS nor DNS (CronJob)',
  rules: ['WIN024'],
  yaml: userPod('win024', ["'.corp\\user'", "'bad*domain\\user'", "'-corp.example.com\\user'"]),
  fixed: userPod('win024', ["'corp\\user'", "'BADDOMAIN\\user'", "'corp.example.com\\user'"]),
});
cases.push({
  title: 'WIN025 empty and 105-character user parts (CronJob)',
  rules: ['WIN025'],
  yaml: userPod('win025', ["'CORP\\'", `'${'u'.repeat(105)}'`]),
  fixed: userPod('win025', ["'CORP\\user'", `'${'u'.repeat(104)}'`]),
});
cases.push({
  title: 'WIN026 user of periods only, a UPN, a slash for the backslash (CronJob)',
  rules: ['WIN026'],
  yaml: userPod('win026', ["'...'", 'user@corp.example.com', "'NT AUTHORITY/SYSTEM'", "'CORP\\a;b'"]),
  fixed: userPod('win026', ['ContainerUser', "'CORP\\user'", "'NT AUTHORITY\\SYSTEM'", "'CORP\\ab'"]),
});

// gMSA: WIN027, WIN028.
cases.push({
  title: 'WIN027 gmsaCredentialSpecName with capitals, as in the upstream docs (Deployment)',
  rules: ['WIN027'],
  yaml: workload(
    'Deployment',
    'win027',
    `${WINDOWS}securityContext:\n  windowsOptions: {gmsaCredentialSpecName: gmsa-WebApp1}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
});
cases.push({
  title: 'WIN027 gmsaCredentialSpecName over 253 characters (Pod)',
  rules: ['WIN027'],
  yaml: workload(
    'Pod',
    'win027-long',
    `${WINDOWS}containers:\n- name: app\n  image: ${NANO}\n  securityContext:\n    windowsOptions: {gmsaCredentialSpecName: ${'a'.repeat(254)}}\n`,
  ),
  fixed: workload(
    'Pod',
    'win027-long',
    `${WINDOWS}containers:\n- name: app\n  image: ${NANO}\n  securityContext:\n    windowsOptions: {gmsaCredentialSpecName: ${'a'.repeat(253)}}\n`,
  ),
});
cases.push({
  title: 'WIN028 empty gmsaCredentialSpec (Pod)',
  rules: ['WIN028'],
  yaml: workload(
    'Pod',
    'win028-empty',
    `${WINDOWS}containers:\n- name: app\n  image: ${NANO}\n  securityContext:\n    windowsOptions: {gmsaCredentialSpecName: webapp1, gmsaCredentialSpec: ""}\n`,
  ),
});
cases.push({
  title: 'WIN028 gmsaCredentialSpec over 64 KiB (Pod)',
  rules: ['WIN028'],
  yaml: workload(
    'Pod',
    'win028-large',
    `${WINDOWS}containers:\n- name: app\n  image: ${NANO}\n  securityContext:\n    windowsOptions:\n      gmsaCredentialSpecName: webapp1\n      gmsaCredentialSpec: '{"Pad": "${'x'.repeat(65536)}"}'\n`,
  ),
});

// Inferred Windows pods (no spec.os.name): accepted as they are, rejected once os.name is set.
const inferred = `nodeSelector: {kubernetes.io/os: windows}\ntolerations: [{key: os, operator: Equal, value: Windows, effect: NoSchedule}]\n`;
const declare = (yaml: string) =>
  yaml.replace(
    /^( *)nodeSelector: \{kubernetes.io\/os: windows\}/m,
    '$1os: {name: windows}\n$1nodeSelector: {kubernetes.io/os: windows}',
  );
/** The field a WIN040/WIN056/WIN058 finding names first must get the server's Forbidden cause once spec.os.name is set. */
const verifyOnceDeclared = (detail: string) => async (fs: Finding[], r: ApiResponse<Status>, doc: Doc) => {
  assert.ok(r.status === 201, `the API server rejects the pod even without spec.os.name: ${answer(r).message}`);
  const declared = await create(docsOf(declare(doc.text))[0]);
  assert.equal(declared.status, 422, 'adding spec.os.name: windows must make the server reject it');
  const causes = answer(declared).causes;
  for (const f of fs) {
    const field = /^(\S+?):? /.exec(f.message)?.[1] ?? '';
    assert.ok(
      causes.includes(`${field}: Forbidden: ${detail}`),
      `${f.ruleId} says ${field} is rejected once spec.os.name is set; the server says: ${causes.join(' | ')}`,
    );
  }
};
cases.push({
  title: 'WIN040 Linux-only fields on an inferred Windows pod (Deployment)',
  rules: ['WIN040'],
  yaml: workload(
    'Deployment',
    'win040',
    `${inferred}securityContext:
  runAsUser: 1000
  fsGroup: 2000
  seccompProfile: {type: RuntimeDefault}
containers:
- name: app
  image: ${NANO}
  securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
`,
  ),
  quotes: 'custom',
  verify: verifyOnceDeclared('cannot be set for a windows pod'),
});
cases.push({
  title: 'WIN056 shareProcessNamespace on an inferred Windows pod (Deployment)',
  rules: ['WIN056'],
  yaml: workload(
    'Deployment',
    'win056',
    `${inferred}shareProcessNamespace: false\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
  quotes: 'custom',
  verify: verifyOnceDeclared('cannot be set for a windows pod'),
});

// WIN058: pod-level resources.
cases.push({
  title: 'WIN058 pod-level resources on a Windows pod (ReplicaSet)',
  rules: ['WIN058'],
  yaml: workload(
    'ReplicaSet',
    'win058',
    `${WINDOWS}resources:\n  limits: {cpu: "1", memory: 1Gi}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
});

cases.push({
  title: 'WIN058 pod-level resources on an inferred Windows pod (Deployment)',
  rules: ['WIN058'],
  yaml: workload(
    'Deployment',
    'win058-inferred',
    `${inferred}resources:\n  requests: {cpu: 500m}\ncontainers:\n- name: app\n  image: ${NANO}\n`,
  ),
  quotes: 'custom',
  verify: verifyOnceDeclared('may not be set for a windows pod'),
});

// WIN074: wrongly-cased toleration fields: dropped by default, rejected by strict field validation.
const tolerationYaml = workload(
  'Deployment',
  'win074',
  `${WINDOWS}tolerations:
- key: os
  Operator: Equal
  Value: Windows
  Effect: NoSchedule
- key: os
  operator: Exists
  effect: NoSchedule
  Seconds: 30
containers:
- name: app
  image: ${NANO}
`,
);
cases.push({
  title: 'WIN074 wrongly-cased and unknown toleration fields (Deployment)',
  rules: ['WIN074'],
  yaml: tolerationYaml,
  quotes: 'custom',
  verify: async (fs, r, doc) => {
    // No fieldValidation: the server drops the fields and says so in warnings.
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const kept = (r.body as unknown as { spec: { template: { spec: { tolerations: Record<string, unknown>[] } } } })
      .spec.template.spec.tolerations;
    assert.deepEqual(kept[0], { key: 'os' }, 'the misspelt fields are dropped');
    const strict = await create(doc, { fieldValidation: 'Strict' });
    assert.equal(strict.status, 400);
    for (const f of fs) {
      const quote = /unknown field "[^"]+"/.exec(f.message)?.[0] ?? '';
      assert.ok(r.warnings.includes(quote), `${f.ruleId} quotes ${quote}; the server warns: ${r.warnings.join(' | ')}`);
      assert.ok(
        answer(strict).message.includes(quote),
        `${f.ruleId} quotes ${quote}; strict validation says: ${answer(strict).message}`,
      );
    }
  },
  // Seconds has no fix (the rule cannot know what was meant): the fixed version drops it by hand.
  fixed: fixAll(tolerationYaml, ['WIN074']).replace(/\n\s+Seconds: 30/, ''),
});

// MIR005: duplicate mirrors in an ImageDigestMirrorSet / ImageTagMirrorSet (real CRD schemas).
for (const [kind, field] of [
  ['ImageDigestMirrorSet', 'imageDigestMirrors'],
  ['ImageTagMirrorSet', 'imageTagMirrors'],
]) {
  cases.push({
    title: `MIR005 duplicate mirror in an ${kind}`,
    rules: ['MIR005'],
    yaml: `apiVersion: config.openshift.io/v1
kind: ${kind}
metadata:
  name: ${uniqueName(`mir005-${kind.toLowerCase()}`)}
spec:
  ${field}:
  - source: registry.example.com/team/app
    mirrors: [mirror.example.com/team/app]
  - source: mcr.microsoft.com/windows/servercore
    mirrors:
    - mirror.example.com/windows/servercore
    - mirror.example.com/windows/servercore
`,
  });
}

// MIR009: sources and mirrors the CRDs' patterns refuse (real CRD schemas), in the server's words.
for (const [kind, field] of [
  ['ImageDigestMirrorSet', 'imageDigestMirrors'],
  ['ImageTagMirrorSet', 'imageTagMirrors'],
]) {
  const name = uniqueName(`mir009-${kind.toLowerCase()}`);
  const yaml = (source: string, mirror: string) => `apiVersion: config.openshift.io/v1
kind: ${kind}
metadata:
  name: ${name}
spec:
  ${field}:
  - source: ${source}
    mirrors: [${mirror}]
`;
  cases.push({
    title: `MIR009 invalid source and mirror in an ${kind}`,
    rules: ['MIR009'],
    yaml: yaml('registry..example.com/team/app', '"mirror.example.com/Team/App $(id)"'),
    fixed: yaml('registry.example.com/team/app', 'mirror.example.com/team/app'),
  });
}

// RTC003: RuntimeClass versions the server no longer serves.
cases.push({
  title: 'RTC003 node.k8s.io/v1beta1 RuntimeClass',
  rules: ['RTC003'],
  yaml: `apiVersion: node.k8s.io/v1beta1\nkind: RuntimeClass\nmetadata:\n  name: ${uniqueName('rtc003')}\nhandler: runhcs-wcow-process\nscheduling:\n  nodeSelector: {kubernetes.io/os: windows}\n  tolerations: [{key: os, operator: Exists, effect: NoSchedule}]\n`,
  quotes: 'custom',
  verify: (_fs, r) => assert.equal(r.status, 404, 'the server serves no node.k8s.io/v1beta1'),
});
cases.push({
  title: 'RTC003 node.k8s.io/v1alpha1 RuntimeClass',
  rules: ['RTC003'],
  yaml: `apiVersion: node.k8s.io/v1alpha1\nkind: RuntimeClass\nmetadata:\n  name: rtc003-alpha\nspec:\n  runtimeHandler: runhcs-wcow-process\n`,
  quotes: 'custom',
  verify: (_fs, r) => assert.equal(r.status, 404, 'the server serves no node.k8s.io/v1alpha1'),
  fixed: `apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: rtc003-alpha\nhandler: runhcs-wcow-process\n`,
});

// WIN053: Bidirectional mount propagation needs privileged, which a Windows pod may not set.
cases.push({
  title: 'WIN053 Bidirectional mount propagation on a declared Windows pod (DaemonSet)',
  rules: ['WIN053'],
  yaml: workload(
    'DaemonSet',
    'win053-bidirectional',
    `${WINDOWS}containers:
- name: app
  image: ${NANO}
  volumeMounts:
  - {name: kubelet-dir, mountPath: 'C:\\var\\lib\\kubelet', mountPropagation: Bidirectional}
volumes:
- name: kubelet-dir
  hostPath: {path: 'C:\\var\\lib\\kubelet', type: Directory}
`,
  ),
});

/** Rules that say the API server rejects something (title or message): each must be covered above. */
const API_CLAIMS = [
  'WIN001',
  'WIN002',
  'WIN003',
  'WIN004',
  'WIN010',
  'WIN011',
  'WIN012',
  'WIN015',
  'WIN020',
  'WIN021',
  'WIN022',
  'WIN023',
  'WIN024',
  'WIN025',
  'WIN026',
  'WIN027',
  'WIN028',
  'WIN040',
  'WIN053',
  'WIN056',
  'WIN058',
  'WIN074',
  'MIR005',
  'MIR009',
  'RTC003',
];

// ---------------------------------------------------------------------------------------------
// Running them

for (const c of cases) {
  test(c.title, async () => {
    const fs = findings(c.yaml).filter((f) => c.rules.includes(f.ruleId));
    for (const id of c.rules)
      assert.ok(
        fs.some((f) => f.ruleId === id),
        `${id} reports nothing on:\n${c.yaml}\nfindings: ${findings(c.yaml)
          .map((f) => `${f.ruleId} ${f.message}`)
          .join('\n')}`,
      );
    const docs = docsOf(c.yaml);
    const doc = docs[docs.length - 1];
    const r = await create(doc);
    if (c.quotes === 'custom') {
      await c.verify?.(fs, r, doc);
    } else {
      assert.ok(rejected(r), `the API server accepts what ${c.rules.join(', ')} report as rejected:\n${doc.text}`);
      const { causes } = answer(r);
      const quoted = new Set<string>();
      for (const f of fs) for (const q of leadingQuotes(f, causes)) quoted.add(q);
      // Everything the server rejects here is something the engine reports (any rule).
      const all = findings(c.yaml);
      for (const cause of causes) {
        if (quoted.has(cause)) continue;
        const claimedElsewhere = all.some((f) => quotesCause(f.message, cause));
        assert.ok(
          claimedElsewhere || (c.unclaimed ?? []).some((re) => re.test(cause)),
          `the API server also rejects this, and no rule says so: ${cause}`,
        );
      }
    }
    // The fixed version: no finding of these rules, and the server accepts it.
    const fixed = c.fixed ?? fixAll(c.yaml, c.rules);
    const left = findings(fixed).filter((f) => c.rules.includes(f.ruleId));
    assert.deepEqual(
      left.map((f) => f.message),
      [],
      `the fixed version still has findings:\n${fixed}`,
    );
    const fixedDocs = docsOf(fixed);
    const ok = await create(fixedDocs[fixedDocs.length - 1]);
    assert.equal(
      ok.status,
      201,
      `the API server rejects the fixed version: ${answer(ok).message}\n${fixedDocs[fixedDocs.length - 1].text}`,
    );
    for (const id of c.rules) cover(id, c.title);
  });
}

test('every rule that says the API server rejects something is checked against it', (t) => {
  // A rule whose title says so and is not in the list above means a case is missing here.
  const claims = new Set(API_CLAIMS);
  for (const r of RULES) {
    if (/rejected by the API server|API server (forbids|rejects)|API server drops|no longer serves/i.test(r.title))
      assert.ok(claims.has(r.id), `${r.id} (${r.title}) has no case here`);
  }
  const missing = API_CLAIMS.filter((id) => !covered.has(id));
  assert.deepEqual(missing, [], 'rules with no passing case');
  const summary = `${covered.size} rules checked against kube-apiserver ${serverVersion}: ${[...covered.keys()].sort().join(', ')}`;
  t.diagnostic(summary);
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'test-results', 'apiserver-rule-messages.json'),
    `${JSON.stringify({ kubeApiserver: serverVersion, rules: covered.size, cases: cases.length, covered: Object.fromEntries([...covered].sort()) }, null, 2)}\n`,
  );
});
