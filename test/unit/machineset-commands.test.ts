// The Windows MachineSet commands of the VS Code extension against the fake vscode module: create
// (questions, refusals, the join command's WMCO setup, the untitled YAML draft with its CodeLens),
// apply from the editor (parse, errors asked about, server refusal, create, follow with progress and
// cancel), follow, scale and delete-machine on tree items. The engine's cluster calls are replaced
// through the registerMachineSetCommands seam; its pure parts (the builder, the YAML, the image and
// name checks, the text reader) are the real ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { MachineSetDeps } from '../../src/extension/machineset-commands';
import type { RunEvent, RunResult } from '../../src/bootstrap/runner';
import {
  buildWindowsMachineSet,
  imageHelp,
  imageProblem,
  machineSetFromText,
  machineSetYaml,
  MachineSetInputError,
  nameProblem,
  platformTitle,
  type MachineApiObject,
} from '../../src/core/openshift/windows-machineset';
import { machineView, scaleConsequence } from '../../src/core/openshift/machine-state';
import type { Finding } from '../../src/core/windows/findings';
import { Secret } from '../../src/bootstrap/plan';
import { CLUSTER, INFRA, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { BACK, createFakeVscode, hookVscodeModule, type FakeDocument, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());
const load = () => import('../../src/extension/machineset-commands');

const CLUSTER_ITEM = { id: 'ctx/ocp', contextValue: 'cluster.openshift', ref: { kind: 'cluster', context: 'ocp' } };
const MS = CLUSTER.AWS.windowsName;
const MS_ITEM = {
  id: `ctx/ocp/machineSet/${MS}`,
  contextValue: 'machineSet',
  ref: { kind: 'machineSet', context: 'ocp', machineSet: MS },
};
const MACHINE_ITEM = {
  id: `ctx/ocp/machineSet/${MS}/machine/${MS}-ab12c`,
  contextValue: 'machine',
  ref: { kind: 'machine', context: 'ocp', machineSet: MS, machine: `${MS}-ab12c` },
};
const AMI = CLUSTER.AWS.windowsImage;
const PEM =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAsecretsecret\n-----END OPENSSH PRIVATE KEY-----\n';

const result = (outcome: RunResult['outcome'], error?: RunResult['error']): RunResult => ({
  planId: 'machineset-follow',
  outcome,
  steps: [],
  durationMs: 1,
  ...(error ? { error } : {}),
});

interface H {
  calls: { name: string; args: unknown[] }[];
  run(command: string, arg?: unknown): Promise<void>;
  /** The calls of one dependency, in order. */
  of(name: string): unknown[][];
}

function makeContext() {
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalState: { get: (_k: string, d?: unknown) => d, update: async () => undefined, keys: () => [] },
  };
  return context as unknown as vscode.ExtensionContext;
}

/** A Windows MachineSet object as the engine builds it from the AWS seed. */
function built(o: { name?: string; replicas?: number } = {}) {
  return buildWindowsMachineSet({
    platform: 'AWS',
    infrastructureName: INFRA,
    from: linuxWorkerMachineSet('AWS') as unknown as MachineApiObject,
    image: AMI,
    ...(o.name ? { name: o.name } : {}),
    ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
  });
}

async function harness(
  overrides: Partial<MachineSetDeps> = {},
  runPlan: () => Promise<RunResult> = async () => result('done'),
): Promise<H> {
  fake = createFakeVscode();
  const { registerMachineSetCommands } = await load();
  const calls: H['calls'] = [];
  const record =
    <A extends unknown[], R>(name: string, fn: (...a: A) => R) =>
    (...a: A): R => {
      calls.push({ name, args: a });
      return fn(...a);
    };
  const deps: Partial<MachineSetDeps> = {
    contexts: async () => ({ ok: true, names: ['kind', 'ocp'], current: 'ocp' }),
    cluster: async () => ({ kube: {} as KubeClient }),
    machineSetSources: record('machineSetSources', async () => ({
      platform: 'AWS' as const,
      region: 'us-east-2',
      linuxWorkers: [CLUSTER.AWS.linuxName, `${INFRA}-worker-us-east-2b`],
      defaultNames: {
        [CLUSTER.AWS.linuxName]: CLUSTER.AWS.windowsName,
        [`${INFRA}-worker-us-east-2b`]: `${INFRA}-windows-worker-us-east-2b`,
      },
    })),
    creationRefusals: record('creationRefusals', async () => []),
    machineSetProxyFindings: record('machineSetProxyFindings', async () => []),
    prepareWindowsMachineSet: record(
      'prepareWindowsMachineSet',
      async (o: Parameters<MachineSetDeps['prepareWindowsMachineSet']>[0]) => {
        const b = built({
          ...(o.name ? { name: o.name } : {}),
          ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
        });
        return { built: b, yaml: machineSetYaml(b), refusals: [] };
      },
    ),
    machineSetFromText,
    createWindowsMachineSet: record('createWindowsMachineSet', async (_kube, ms, _signal, onStep) => {
      onStep?.(`The API server accepted MachineSet ${ms.name} in a dry run.`);
      onStep?.(`MachineSet ${ms.name} created.`);
      return ms.object;
    }),
    followMachineSet: record('followMachineSet', async (o) => {
      o.onEvent?.({
        type: 'log',
        stepId: 'machines',
        level: 'info',
        message: `${o.machineSet}-ab12c: created`,
      } as RunEvent);
      o.onEvent?.({ type: 'step-end', stepId: 'machines', outcome: 'applied' } as unknown as RunEvent);
      return { result: result('done'), machines: [], nodes: { [`${o.machineSet}-ab12c`]: `${o.machineSet}-ab12c` } };
    }),
    wmcoSetupPlan: record('wmcoSetupPlan', () => ({
      id: 'wmco-setup',
      title: 'Set up WMCO',
      target: 'ns',
      steps: [],
      state: undefined,
      run: record('runPlan', runPlan),
    })),
    getScale: record('getScale', async (_k: KubeClient, name: string) => ({
      metadata: { name },
      spec: { replicas: 1 },
    })),
    scaleMachineSet: record('scaleMachineSet', async (_k: KubeClient, name: string, replicas: number) => ({
      metadata: { name },
      spec: { replicas },
    })),
    getMachine: record('getMachine', async (_k: KubeClient, name: string) =>
      name === MACHINE_ITEM.ref.machine
        ? ({
            metadata: { name, labels: { 'machine.openshift.io/cluster-api-machineset': MS } },
            status: { phase: 'Running', nodeRef: { name: 'ip-10-0-1-2' } },
          } as MachineApiObject)
        : undefined,
    ),
    deleteMachine: record('deleteMachine', async () => undefined),
    imageHelp,
    imageProblem,
    nameProblem,
    platformTitle,
    machineView,
    scaleConsequence,
    secret: (v) => new Secret(v),
    ...overrides,
  };
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  }) as vscode.LogOutputChannel;
  registerMachineSetCommands(makeContext(), log, deps);
  return {
    calls,
    of: (name) => calls.filter((c) => c.name === name).map((c) => c.args),
    run: async (command, arg) => {
      await fake.commands.get(command)?.(arg);
    },
  };
}

const refreshes = () => fake.executed.filter((e) => e[0] === 'kubeWindows.refreshMachineSets');
const draft = (): FakeDocument | undefined => fake.documents.find((d) => d.languageId === 'yaml');
const lenses = (doc: FakeDocument) =>
  fake.codeLensProviders.flatMap(
    (p) => p.provider.provideCodeLenses({ uri: doc.uri as NonNullable<FakeDocument['uri']> }) ?? [],
  );

test('createMachineSet: asks the Linux MachineSet (first is the default), the image in the platform form, name and replicas; opens the YAML draft with a "Create in <context>" lens', async () => {
  const h = await harness();
  fake.replies.push(CLUSTER.AWS.linuxName, 'rhcos-418.94-x86_64', 'ami-12', AMI, 'WinWorker', '', 'x', '2');
  fake.answers.push(undefined); // the notification is dismissed: nothing is created yet
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);

  const [from, image, name, replicas] = fake.questions;
  assert.equal(from?.kind, 'quickPick');
  assert.deepEqual(from?.items, [CLUSTER.AWS.linuxName, `${INFRA}-worker-us-east-2b`]);
  assert.match(from?.text ?? '', /Linux worker MachineSet .*\(ocp\)/);
  assert.equal(image?.kind, 'input');
  assert.match(image?.text ?? '', /Windows Server image on AWS/);
  assert.match(
    String(image?.options.prompt),
    /aws ec2 describe-images --region us-east-2/,
    'the prompt says how to find an AMI of the region',
  );
  assert.equal(image?.rejected?.length, 2, 'an RHCOS image and a short AMI id are refused in the box');
  assert.match(image?.rejected?.[0] ?? '', /Linux \(RHCOS\) image/);
  assert.match(image?.rejected?.[1] ?? '', /AMI id/);
  assert.deepEqual(name?.rejected?.length, 1, 'an uppercase name is refused');
  // The real default name is in the box (not a <infrastructure>-windows-worker-<zone> placeholder).
  assert.equal(name?.options.value, CLUSTER.AWS.windowsName);
  assert.match(String(name?.options.prompt), new RegExp(`^Default ${CLUSTER.AWS.windowsName}, after the Linux one`));
  assert.doesNotMatch(JSON.stringify(fake.questions.map((q) => q.options)), /<infrastructure>|<zone>/);
  assert.deepEqual(
    fake.questions.map((q) => [q.step, q.totalSteps]),
    [
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ],
    'one multi-step input',
  );
  assert.equal(replicas?.options.value, '1');
  assert.deepEqual(replicas?.rejected, ['A whole number, 0 or more.']);

  const [opts] = h.of('prepareWindowsMachineSet')[0] as [Record<string, unknown>];
  assert.equal(opts.image, AMI);
  assert.equal(opts.from, CLUSTER.AWS.linuxName);
  assert.equal(opts.replicas, 2);
  assert.equal('name' in opts, false, 'an empty name leaves the default');

  const doc = draft();
  assert.ok(doc, 'an untitled YAML document');
  assert.equal(doc.uri?.toString(), `untitled:windows-machineset-${CLUSTER.AWS.windowsName}.yaml`, 'a real title');
  assert.equal(doc.shown, 1);
  assert.match(doc.content, /userDataSecret:\n\s+name: windows-user-data/);
  assert.match(doc.content, /^# Windows MachineSet for AWS/m, 'with its review comments');
  const [lens] = lenses(doc);
  assert.equal(lens?.command?.title, '$(cloud-upload) Create in ocp');
  assert.equal(lens?.command?.command, 'kubeWindows.applyMachineSet');
  const note = fake.shown.at(-1);
  assert.deepEqual(note?.items, ['Create in ocp']);
  assert.match(note?.message ?? '', new RegExp(`review the Windows MachineSet ${CLUSTER.AWS.windowsName}`));
  assert.equal(h.of('createWindowsMachineSet').length, 0, 'nothing created before the user says so');

  fake.closeDocument(doc);
  assert.deepEqual(lenses(doc), [], 'a closed draft has no lens');
});

test('createMachineSet from the palette asks the cluster first; "Create in <context>" on the notification creates, follows and refreshes the tree', async () => {
  const h = await harness();
  fake.replies.push('ocp', CLUSTER.AWS.linuxName, AMI, '', '1');
  fake.answers.push('Create in ocp');
  await h.run('kubeWindows.createMachineSet');
  assert.deepEqual(fake.questions[0]?.items, ['ocp', 'kind'], 'the current context first');
  const [created] = h.of('createWindowsMachineSet');
  assert.equal((created?.[1] as { name: string }).name, CLUSTER.AWS.windowsName);
  const [followed] = h.of('followMachineSet') as [{ machineSet: string; expected: number }][];
  assert.equal(followed?.[0].machineSet, CLUSTER.AWS.windowsName);
  assert.equal(followed?.[0].expected, 1);
  assert.ok(refreshes().length >= 3, 'after creation, per follow event and at the end');
  assert.deepEqual(refreshes()[0], ['kubeWindows.refreshMachineSets', 'ocp', CLUSTER.AWS.windowsName]);
  const run = fake.progressRuns.find((p) => /following the Machines/.test(p.title));
  assert.equal(run?.options.cancellable, true);
  assert.ok(
    fake.logs.some(
      (l) =>
        l.name === `kube-windows: machineset ${MS}` && l.lines.some((x) => /accepted .* in a dry run/.test(x.text)),
    ),
  );
  assert.match(
    fake.shown.at(-1)?.message ?? '',
    new RegExp(`every Machine of ${MS} is a Ready Windows node \\(${MS}-ab12c → ${MS}-ab12c\\)`),
  );
  assert.deepEqual(lenses(draft() as FakeDocument), [], 'the created draft has no lens any more');
});

test('createMachineSet refusals: a platform none of the five, or not OpenShift, is one message and no question', async () => {
  const h = await harness({
    machineSetSources: async () => {
      throw new MachineSetInputError(
        'Windows MachineSets are made on AWS, Azure, GCP, vSphere and Nutanix; this cluster\'s platform is "BareMetal". Add Windows nodes with Bring-Your-Own-Host instead.',
        'refused',
      );
    },
  });
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.equal(fake.questions.length, 0);
  assert.equal(fake.shown.length, 1);
  assert.equal(fake.shown[0]?.kind, 'error');
  assert.match(
    fake.shown[0]?.message ?? '',
    /^kube-windows: cannot create a Windows MachineSet in ocp: .*platform is "BareMetal".*Bring-Your-Own-Host/,
  );
  assert.equal(h.of('creationRefusals').length, 0);
});

test("createMachineSet: WMCO missing offers the join command's WMCO install; declined, nothing else is asked", async () => {
  const h = await harness({
    creationRefusals: async () => [
      {
        offer: 'install-wmco',
        message: 'WMCO is not installed in namespace openshift-windows-machine-config-operator',
      },
    ],
  });
  fake.answers.push(undefined);
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.equal(fake.shown[0]?.kind, 'error');
  assert.match(
    fake.shown[0]?.message ?? '',
    /a Windows MachineSet cannot be created in ocp: WMCO is not installed.*which update approval\?/,
  );
  assert.deepEqual(fake.shown[0]?.items, ['Install WMCO (Automatic)', 'Install WMCO (Manual)']);
  assert.equal(fake.questions.length, 0);
  assert.equal(h.of('wmcoSetupPlan').length, 0);
});

test('createMachineSet: WMCO missing, "Install WMCO (Automatic)" runs the WMCO setup plan with progress, then the questions follow', async () => {
  const answers = [[{ offer: 'install-wmco' as const, message: 'WMCO is not installed' }], []];
  const h = await harness({ creationRefusals: async () => answers.shift() ?? [] });
  fake.answers.push('Install WMCO (Automatic)');
  fake.replies.push(undefined); // then cancels at the first question
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  const [setup] = h.of('wmcoSetupPlan') as [{ installWmco?: { approval: string } }][];
  assert.deepEqual(setup?.[0].installWmco, { approval: 'Automatic' });
  assert.equal(h.of('runPlan').length, 1);
  assert.ok(fake.progressRuns.some((p) => /setting up WMCO in ocp/.test(p.title) && p.options.cancellable === true));
  assert.equal(fake.questions.length, 1, 'the Linux MachineSet is asked next');
  assert.equal(draft(), undefined, 'cancelled: no draft');
});

test('createMachineSet: cloud-private-key missing offers to create it from a key file; the key never reaches a log or message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ms-key-'));
  try {
    const keyFile = join(dir, 'wmco_key');
    writeFileSync(keyFile, PEM);
    const answers = [[{ offer: 'create-key-secret' as const, message: 'Secret cloud-private-key is missing' }], []];
    const h = await harness({ creationRefusals: async () => answers.shift() ?? [] });
    fake.answers.push('Create cloud-private-key…');
    fake.replies.push(keyFile, undefined);
    await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
    assert.deepEqual(fake.shown[0]?.items, ['Create cloud-private-key…']);
    assert.equal(fake.questions[0]?.kind, 'open');
    const [setup] = h.of('wmcoSetupPlan') as [{ privateKey?: { pem: Secret; source: string } }][];
    assert.equal(setup?.[0].privateKey?.source, keyFile);
    assert.equal(setup?.[0].privateKey?.pem.reveal(), PEM);
    const everything = JSON.stringify([fake.shown, fake.logs.map((l) => l.lines)]);
    assert.ok(!everything.includes('secretsecret'), 'the key is nowhere in messages or logs');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('createMachineSet: a failed WMCO setup is one error with "Show log", and no question', async () => {
  const h = await harness(
    { creationRefusals: async () => [{ offer: 'install-wmco', message: 'WMCO is not installed' }] },
    async () => result('failed', { stepId: 'wmco-csv', message: 'WMCO failed to install: no catalog' }),
  );
  fake.answers.push('Install WMCO (Manual)', undefined);
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.match(fake.shown.at(-1)?.message ?? '', /the WMCO setup of ocp failed: WMCO failed to install: no catalog/);
  assert.deepEqual(fake.shown.at(-1)?.items, ['Show log']);
  assert.equal(fake.questions.length, 0);
});

test('createMachineSet: Escape at the image, the name or the replicas ends quietly without a draft', async () => {
  for (const replies of [
    [CLUSTER.AWS.linuxName, undefined],
    [CLUSTER.AWS.linuxName, AMI, undefined],
    [CLUSTER.AWS.linuxName, AMI, '', undefined],
  ]) {
    const h = await harness();
    fake.replies.push(...replies);
    await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
    assert.equal(draft(), undefined);
    assert.equal(h.of('prepareWindowsMachineSet').length, 0);
    assert.equal(fake.shown.length, 0);
  }
});

test('createMachineSet: a name the builder refuses is an error message (no draft)', async () => {
  const h = await harness({
    prepareWindowsMachineSet: async () => {
      throw new MachineSetInputError('--name "x": taken', 'usage');
    },
  });
  fake.replies.push(CLUSTER.AWS.linuxName, AMI, 'x', '1');
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.equal(draft(), undefined);
  assert.match(fake.shown.at(-1)?.message ?? '', /cannot create a Windows MachineSet in ocp: --name "x": taken/);
});

/** Opens a draft as the create command does and returns it (notification dismissed). */
async function openDraft(h: H): Promise<FakeDocument> {
  fake.replies.push(CLUSTER.AWS.linuxName, AMI, '', '1');
  fake.answers.push(undefined);
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  const doc = draft();
  assert.ok(doc);
  fake.shown.length = 0;
  return doc;
}

test('applyMachineSet reads the edited text: the lens creates what the editor holds now', async () => {
  const h = await harness();
  const doc = await openDraft(h);
  doc.content = doc.content.replace(/replicas: 1/, 'replicas: 3');
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  const [created] = h.of('createWindowsMachineSet');
  assert.equal(((created?.[1] as { object: MachineApiObject }).object.spec as { replicas: number }).replicas, 3);
  const [followed] = h.of('followMachineSet') as [{ expected: number }][];
  assert.equal(followed?.[0].expected, 3);
  assert.ok(fake.progressRuns.some((p) => /creating MachineSet .* in ocp/.test(p.title)));
});

test('applyMachineSet: errors in the editor are asked about in a modal first; declined, nothing is sent', async () => {
  const h = await harness();
  const doc = await openDraft(h);
  doc.content = doc.content.replace('windows-user-data', 'worker-user-data');
  fake.diagnostics.set(String(doc.uri), [
    {
      message: 'The Linux user data worker-user-data boots a VM that never becomes a node.',
      severity: 0,
      code: 'WIN087',
    },
    { message: 'warn', severity: 1 },
  ]);
  fake.answers.push(undefined);
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  const modal = fake.shown.at(-1);
  assert.equal(modal?.options?.modal, true);
  assert.match(modal?.message ?? '', /has 1 error \(WIN087\)\. Create it in ocp anyway\?/);
  assert.deepEqual(modal?.items, ['Create anyway']);
  assert.equal(h.of('createWindowsMachineSet').length, 0);

  fake.answers.push('Create anyway');
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  assert.equal(h.of('createWindowsMachineSet').length, 1);
});

test('applyMachineSet: a text that is not one MachineSet says what it is, and nothing is sent', async () => {
  const h = await harness();
  const doc = await openDraft(h);
  for (const [text, why] of [
    ['apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n', /not a MachineSet .* it is apps\/v1 Deployment/],
    ['a: [\n', /not valid YAML/],
    [
      'apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  name: a\n---\napiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  name: b\n',
      /2 YAML documents/,
    ],
    [
      'apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  name: a\n  namespace: default\n',
      /namespace openshift-machine-api, not default/,
    ],
  ] as const) {
    doc.content = text;
    await h.run('kubeWindows.applyMachineSet', doc.uri);
    assert.match(fake.shown.at(-1)?.message ?? '', why);
  }
  assert.equal(h.of('createWindowsMachineSet').length, 0);
});

test('applyMachineSet: the API server refusing it is one error with "Show log"; no follow', async () => {
  const h = await harness({
    createWindowsMachineSet: async () => {
      throw new Error(
        'MachineSet.machine.openshift.io "winworker" is invalid: spec.selector: Invalid value: selector does not match template labels',
      );
    },
  });
  const doc = await openDraft(h);
  fake.answers.push(undefined);
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  assert.equal(fake.shown.at(-1)?.kind, 'error');
  assert.match(
    fake.shown.at(-1)?.message ?? '',
    /the API server did not create MachineSet .* in ocp: .*selector does not match template labels/,
  );
  assert.deepEqual(fake.shown.at(-1)?.items, ['Show log']);
  assert.equal(h.of('followMachineSet').length, 0);
  assert.equal(lenses(doc).length, 1, 'the draft keeps its lens to try again');
});

test('applyMachineSet: refused at create time (WMCO gone meanwhile) without sending anything', async () => {
  let n = 0;
  const h = await harness({
    creationRefusals: async () => (n++ === 0 ? [] : [{ offer: 'install-wmco', message: 'WMCO is not installed' }]),
  });
  const doc = await openDraft(h);
  fake.answers.push(undefined);
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  assert.match(fake.shown.at(-1)?.message ?? '', /cannot be created in ocp: WMCO is not installed/);
  assert.equal(h.of('createWindowsMachineSet').length, 0);
});

test('applyMachineSet on a YAML editor that is no draft asks the cluster; without an editor it says what to do', async () => {
  const h = await harness();
  await h.run('kubeWindows.applyMachineSet');
  assert.match(fake.shown.at(-1)?.message ?? '', /open a Windows MachineSet in the editor first/);
  const doc = await (fake.module.workspace as unknown as typeof vscode.workspace).openTextDocument({
    language: 'yaml',
    content: machineSetYaml(built({ name: `${INFRA}-win-b` })),
  });
  fake.replies.push('ocp');
  await h.run('kubeWindows.applyMachineSet', (doc as unknown as FakeDocument).uri);
  assert.deepEqual(fake.questions.at(-1)?.items, ['ocp', 'kind']);
  assert.equal((h.of('createWindowsMachineSet')[0]?.[1] as { name: string }).name, `${INFRA}-win-b`);
});

test('followMachineSet: cancelling the notification stops following (the MachineSet stays); "Follow again" follows again', async () => {
  let runs = 0;
  const h = await harness({
    followMachineSet: async (o) => {
      runs++;
      if (runs > 1) return { result: result('done'), machines: [], nodes: {} };
      await new Promise<void>((res) => o.signal?.addEventListener('abort', () => res()));
      return { result: result('cancelled'), machines: [], nodes: {} };
    },
  });
  fake.answers.push('Follow again');
  const running = h.run('kubeWindows.followMachineSet', MS_ITEM);
  for (let i = 0; i < 50 && !fake.progressRuns.length; i++) await new Promise((r) => setTimeout(r, 5));
  fake.progressRuns[0]?.cancel();
  await running;
  const stopped = fake.shown.find((s) => /stopped following/.test(s.message));
  assert.equal(stopped?.kind, 'information');
  assert.match(stopped?.message ?? '', new RegExp(`stopped following ${MS}; the MachineSet stays`));
  assert.deepEqual(stopped?.items, ['Show log', 'Follow again']);
  assert.equal(runs, 2);
  assert.match(fake.shown.at(-1)?.message ?? '', /every Machine of .* is a Ready Windows node/);
});

test('followMachineSet: a failed Machine is an error with the reasons the follow found', async () => {
  const h = await harness({
    followMachineSet: async () => ({
      result: result('failed', {
        stepId: 'provisioned',
        message: `Machine ${MS}-ab12c failed.\nThe cloud refused to create the VM (InvalidAMIID.NotFound).`,
      }),
      machines: [],
      nodes: {},
    }),
  });
  fake.answers.push(undefined);
  await h.run('kubeWindows.followMachineSet', MS_ITEM);
  assert.equal(fake.shown.at(-1)?.kind, 'error');
  assert.match(fake.shown.at(-1)?.message ?? '', new RegExp(`${MS}: Machine ${MS}-ab12c failed\\.$`));
  assert.ok(
    fake.logs[0]?.lines.some((l) => l.level === 'error' && /InvalidAMIID/.test(l.text)),
    'the reasons are in the log',
  );
});

test('followMachineSet, scaleMachineSet and deleteMachine need their tree item', async () => {
  const h = await harness();
  await h.run('kubeWindows.followMachineSet', CLUSTER_ITEM);
  await h.run('kubeWindows.scaleMachineSet', MACHINE_ITEM);
  await h.run('kubeWindows.deleteMachine', MS_ITEM);
  assert.deepEqual(
    fake.shown.map((s) => s.message),
    [
      'kube-windows: run "Follow" on a Windows MachineSet in the Clusters view.',
      'kube-windows: run "Scale" on a Windows MachineSet in the Clusters view.',
      'kube-windows: run "Delete Machine" on a Machine of a Windows MachineSet in the Clusters view.',
    ],
  );
  assert.equal(h.calls.length, 0);
});

test('scaleMachineSet: asks the replicas (now 1), confirms in a modal, scales through the engine, refreshes the tree and offers to follow', async () => {
  const h = await harness();
  fake.replies.push('three', '3');
  fake.answers.push('Scale', 'Follow');
  await h.run('kubeWindows.scaleMachineSet', MS_ITEM);
  assert.match(fake.questions[0]?.text ?? '', new RegExp(`replicas of ${MS} \\(now 1\\)`));
  assert.equal(fake.questions[0]?.options.value, '1');
  assert.deepEqual(fake.questions[0]?.rejected, ['A whole number, 0 or more.']);
  const modal = fake.shown[0];
  assert.equal(modal?.options?.modal, true);
  assert.equal(modal?.message, `Scale MachineSet ${MS} from 1 to 3 replicas in ocp?`);
  assert.match(modal?.options?.detail ?? '', /makes 2 Machines; WMCO configures them/);
  assert.deepEqual(h.of('scaleMachineSet')[0]?.slice(1), [MS, 3]);
  assert.deepEqual(refreshes()[0], ['kubeWindows.refreshMachineSets', 'ocp', MS]);
  const [followed] = h.of('followMachineSet') as [{ expected: number }][];
  assert.equal(followed?.[0].expected, 3);
});

test('scaleMachineSet: declining the modal changes nothing; the same count says so; scaling down says what goes', async () => {
  const h = await harness();
  fake.replies.push('0');
  fake.answers.push(undefined);
  await h.run('kubeWindows.scaleMachineSet', MS_ITEM);
  assert.match(fake.shown[0]?.options?.detail ?? '', /deletes 1 Machine and its node \(drained first\)/);
  assert.equal(h.of('scaleMachineSet').length, 0);
  fake.replies.push('1');
  await h.run('kubeWindows.scaleMachineSet', MS_ITEM);
  assert.equal(fake.shown.at(-1)?.message, `kube-windows: MachineSet ${MS} already has 1 replica.`);
  assert.equal(h.of('scaleMachineSet').length, 0);
});

test('scaleMachineSet: a MachineSet gone meanwhile is an error and a refresh of the group', async () => {
  const h = await harness({ getScale: async () => undefined });
  await h.run('kubeWindows.scaleMachineSet', MS_ITEM);
  assert.match(fake.shown[0]?.message ?? '', new RegExp(`no MachineSet ${MS} in ocp any more`));
  assert.deepEqual(refreshes()[0], ['kubeWindows.refreshMachineSets', 'ocp', undefined]);
});

test('deleteMachine: a modal confirmation naming the node and the MachineSet; declined, nothing is deleted; confirmed, deleted and the MachineSet refreshed', async () => {
  const h = await harness();
  fake.answers.push(undefined);
  await h.run('kubeWindows.deleteMachine', MACHINE_ITEM);
  const modal = fake.shown[0];
  assert.equal(modal?.options?.modal, true);
  assert.equal(modal?.message, `Delete Machine ${MS}-ab12c (node ip-10-0-1-2) in ocp?`);
  assert.match(
    modal?.options?.detail ?? '',
    new RegExp(`drains the node and deletes the VM; MachineSet ${MS} then makes a new Machine`),
  );
  assert.deepEqual(modal?.items, ['Delete Machine']);
  assert.equal(h.of('deleteMachine').length, 0);

  fake.answers.push('Delete Machine');
  await h.run('kubeWindows.deleteMachine', MACHINE_ITEM);
  assert.deepEqual(h.of('deleteMachine')[0]?.slice(1), [`${MS}-ab12c`]);
  assert.deepEqual(refreshes().at(-1), ['kubeWindows.refreshMachineSets', 'ocp', MS]);
  assert.match(fake.shown.at(-1)?.message ?? '', /Machine .* \(node ip-10-0-1-2\) deleted\./);
});

test('deleteMachine: a Machine already gone is an error, not a question', async () => {
  const h = await harness();
  await h.run('kubeWindows.deleteMachine', { ...MACHINE_ITEM, ref: { ...MACHINE_ITEM.ref, machine: 'gone-xyz12' } });
  assert.equal(fake.shown.length, 1);
  assert.match(fake.shown[0]?.message ?? '', /no Machine gone-xyz12 in ocp any more/);
  assert.equal(h.of('deleteMachine').length, 0);
});

test('createMachineSet: a read that fails (the refusal check included) is one error line, never a stack', async () => {
  const h = await harness({
    creationRefusals: async () => {
      throw new Error(
        'secrets "cloud-private-key" is forbidden: User "dev" cannot get resource "secrets"\n    at KubeClient.request (client.ts:1:1)',
      );
    },
  });
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.equal(fake.shown.length, 1);
  assert.equal(
    fake.shown[0]?.message,
    'kube-windows: cannot create a Windows MachineSet in ocp: secrets "cloud-private-key" is forbidden: User "dev" cannot get resource "secrets"',
  );
  assert.equal(fake.questions.length, 0);
});

test('createMachineSet: Back to the Linux MachineSet changes the default name to the one made from it', async () => {
  const h = await harness();
  const other = `${INFRA}-worker-us-east-2b`;
  fake.replies.push(CLUSTER.AWS.linuxName, AMI, BACK, BACK, other, AMI, '', '1');
  fake.answers.push(undefined);
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  const names = fake.questions.filter((q) => /name of the Windows MachineSet/.test(q.text));
  assert.deepEqual(
    names.map((q) => q.options.value),
    [CLUSTER.AWS.windowsName, `${INFRA}-windows-worker-us-east-2b`],
  );
  const from = fake.questions.filter((q) => /Linux worker MachineSet/.test(q.text));
  assert.deepEqual(from[1]?.options.activeItems, [CLUSTER.AWS.linuxName], 'Back shows the earlier answer');
  const [opts] = h.of('prepareWindowsMachineSet')[0] as [Record<string, unknown>];
  assert.equal(opts.from, other);
  assert.equal(draft()?.uri?.toString(), `untitled:windows-machineset-${CLUSTER.AWS.windowsName}.yaml`);
});

// ---------------------------------------------------------------------------------------------
// The proxy preflight: a proxy no Machine could use refuses before anything is created (as the CLI does)

const BLOCKING: Finding = {
  id: 'proxy-no-proxy',
  severity: 'error',
  title: 'NO_PROXY of proxies.config.openshift.io/cluster leaves out api-int.ocp.example.com',
  fix: 'Add api-int.ocp.example.com to spec.noProxy',
};
const WARNING: Finding = {
  id: 'proxy-ca',
  severity: 'warning',
  title: 'The trusted CA bundle user-ca-bundle holds 0 certificates',
  fix: 'Put the proxy CA in openshift-config/user-ca-bundle',
};
const LATER: Finding = {
  id: 'proxy-reach-later',
  severity: 'info',
  title: 'Not checked until a Machine exists: that its VM reaches the proxy http://proxy.corp:3128',
};
const proxyLog = () => fake.logs.find((l) => l.name === 'kube-windows: proxy preflight ocp');

test('createMachineSet on a proxy no Machine could use: refused before any question, nothing created; the message names the first blocking finding and its fix, the button shows every finding', async () => {
  const h = await harness({ machineSetProxyFindings: async () => [BLOCKING, WARNING, LATER] });
  fake.answers.push('Show proxy findings');
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  assert.equal(fake.questions.length, 0, 'not one question before the refusal');
  assert.equal(h.of('prepareWindowsMachineSet').length, 0);
  assert.equal(h.of('createWindowsMachineSet').length, 0);
  assert.equal(draft(), undefined);
  const refusal = fake.shown.at(-1);
  assert.equal(refusal?.kind, 'error');
  assert.equal(
    refusal?.message,
    "kube-windows: a Windows MachineSet cannot be created in ocp: the cluster's proxy would stall its Machines: NO_PROXY of proxies.config.openshift.io/cluster leaves out api-int.ocp.example.com. Add api-int.ocp.example.com to spec.noProxy",
  );
  assert.deepEqual(refusal?.items, ['Show proxy findings']);
  const log = proxyLog();
  assert.equal(log?.shown, 1, 'the button shows the channel');
  const text = log?.lines.map((l) => l.text).join('\n') ?? '';
  assert.match(text, /✗ NO_PROXY of .* leaves out api-int\.ocp\.example\.com\n {4}fix: Add api-int/);
  assert.match(text, /! The trusted CA bundle user-ca-bundle holds 0 certificates/);
  assert.match(text, /✓ Not checked until a Machine exists/);
});

test('createMachineSet: what the proxy preflight found that does not block is in the review message and the channel', async () => {
  const h = await harness({
    machineSetProxyFindings: async () => [WARNING, LATER],
    prepareWindowsMachineSet: async () => {
      const b = built();
      return { built: b, yaml: machineSetYaml(b), refusals: [], proxy: [WARNING, LATER] };
    },
  });
  fake.replies.push(CLUSTER.AWS.linuxName, AMI, '', '1');
  fake.answers.push('Show proxy findings');
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  const note = fake.shown.at(-1);
  assert.equal(note?.kind, 'information');
  assert.deepEqual(note?.items, ['Create in ocp', 'Show proxy findings']);
  assert.match(
    note?.message ?? '',
    /then create it with "Create in ocp" above its first line or here\. The cluster's proxy preflight: nothing blocks; 1 warning and 1 note: The trusted CA bundle user-ca-bundle holds 0 certificates\. Put the proxy CA in openshift-config\/user-ca-bundle \("Show proxy findings"\)\.$/,
  );
  assert.equal(proxyLog()?.shown, 1);
  assert.match(
    proxyLog()
      ?.lines.map((l) => l.text)
      .join('\n') ?? '',
    /✓ Not checked until a Machine exists/,
  );
  assert.equal(h.of('createWindowsMachineSet').length, 0, 'showing the findings creates nothing');
  assert.ok(draft(), 'the draft is open to review');
});

test("createMachineSet: the engine's refusals after the questions are honoured: the draft stays open, nothing is created, the reason is one error line", async () => {
  const h = await harness({
    prepareWindowsMachineSet: async () => {
      const b = built();
      return {
        built: b,
        yaml: machineSetYaml(b),
        refusals: [
          `${BLOCKING.title}. ${BLOCKING.fix}`,
          'WMCO is not installed in namespace openshift-windows-machine-config-operator.',
        ],
        proxy: [BLOCKING, LATER],
      };
    },
  });
  fake.replies.push(CLUSTER.AWS.linuxName, AMI, '', '1');
  fake.answers.push('Show proxy findings');
  await h.run('kubeWindows.createMachineSet', CLUSTER_ITEM);
  const refusal = fake.shown.at(-1);
  assert.equal(refusal?.kind, 'error');
  assert.equal(
    refusal?.message,
    `kube-windows: MachineSet ${MS} cannot be created in ocp now: ${BLOCKING.title}. ${BLOCKING.fix} (1 other reason). The draft stays open; "Create in ocp" checks again.`,
  );
  assert.deepEqual(refusal?.items, ['Show proxy findings']);
  assert.equal(h.of('createWindowsMachineSet').length, 0);
  assert.ok(draft(), 'the answers are not lost');
  const text =
    proxyLog()
      ?.lines.map((l) => l.text)
      .join('\n') ?? '';
  assert.match(text, /✗ NO_PROXY of /);
  assert.match(text, /Creating it is refused now: 1 reason:\n✗ WMCO is not installed/, 'the other reason, once');
  assert.equal(proxyLog()?.shown, 1);
});

test('applyMachineSet: a proxy that turned unusable after the draft was made refuses "Create in <context>" without sending anything', async () => {
  let findings: Finding[] = [LATER];
  const h = await harness({ machineSetProxyFindings: async () => findings });
  const doc = await openDraft(h);
  findings = [WARNING, BLOCKING, LATER];
  fake.answers.push(undefined);
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  assert.equal(
    fake.shown.at(-1)?.message,
    `kube-windows: MachineSet ${MS} cannot be created in ocp: the cluster's proxy would stall its Machines: ${BLOCKING.title}. ${BLOCKING.fix}`,
  );
  assert.equal(h.of('createWindowsMachineSet').length, 0);
  assert.equal(lenses(doc).length, 1, 'the draft keeps its lens to try again');

  // Fixed on the cluster: the same lens creates it.
  findings = [LATER];
  await h.run('kubeWindows.applyMachineSet', doc.uri);
  assert.equal(h.of('createWindowsMachineSet').length, 1);
});
