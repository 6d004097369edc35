// `kube-windows machineset create|follow|scale|delete-machine`: Windows MachineSets on OpenShift from
// a terminal. create builds one from the cluster's own Linux worker MachineSet (bootstrap/machineset-create),
// shows it, asks, creates it (server-side dry run first) and follows its Machines to Ready nodes
// (bootstrap/machineset-follow); scale goes through the scale subresource; delete-machine deletes one
// Machine, which its MachineSet replaces.

import { ApiError } from '../cluster/errors';
import { deleteMachine, getMachine, getMachineSet, getScale, scaleMachineSet } from '../cluster/machinesets';
import {
  createWindowsMachineSet,
  MachineSetInputError,
  prepareWindowsMachineSet,
} from '../bootstrap/machineset-create';
import { followMachineSet } from '../bootstrap/machineset-follow';
import type { RunEvent } from '../bootstrap/runner';
import { machineView, scaleConsequence } from '../core/openshift/machine-state';
import { formatFindings } from '../core/windows/findings';
import { isWindowsMachineSet } from '../core/openshift/windows-machineset';
import {
  confirm,
  EXIT,
  out,
  positiveInteger,
  positiveNumber,
  progressLine,
  UsageError,
  userMessage,
  warn,
  withCancel,
  commandLine,
  resumeLine,
} from './kit';
import { actionOf, commandHelp, parseCommand } from './declare';
import { MACHINESET_COMMAND } from './commands';
import { clusterFor, type Cluster } from './kit-remote';
import { counted } from '../core/plural';

type Values = ReturnType<typeof parseCommand<(typeof MACHINESET_COMMAND)['options']>>['values'];

/** 0 or more, or undefined when absent. */
function replicasOf(value: string | undefined): number | undefined {
  const n = positiveNumber('replicas', value, true);
  if (n !== undefined && !Number.isInteger(n)) throw new UsageError('--replicas must be a whole number, 0 or more');
  return n;
}

export async function runMachineSet(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(MACHINESET_COMMAND, args);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(commandHelp(MACHINESET_COMMAND));
    return EXIT.OK;
  }
  const { action } = actionOf(MACHINESET_COMMAND, positionals, values);
  const name = positionals[1];
  if (action === 'create') {
    if (name !== undefined)
      throw new UsageError(`machineset create takes no NAME argument (use --name), not "${name}"`);
    if (values.image === undefined)
      throw new UsageError(
        "machineset create needs --image, the Windows Server image in the platform's own form (see --help)",
      );
  } else {
    if (!name)
      throw new UsageError(
        `machineset ${action} needs the ${action === 'delete-machine' ? 'Machine' : 'MachineSet'} name`,
      );
  }
  if (action === 'scale' && values.replicas === undefined) throw new UsageError('machineset scale needs --replicas N');
  const replicas = replicasOf(values.replicas);
  const timeoutMin = positiveNumber('timeout', values.timeout);
  const pollMs = positiveInteger('poll-interval', values['poll-interval']);
  const cluster = clusterFor(values);

  return withCancel(
    'the cluster keeps what was created; "kube-windows machineset follow NAME" follows again',
    async (signal) => {
      try {
        switch (action) {
          case 'create':
            return await create(cluster, values, replicas, { timeoutMin, pollMs }, signal);
          case 'follow':
            return await follow(cluster, name as string, values, { timeoutMin, pollMs }, signal);
          case 'scale':
            return await scale(cluster, name as string, replicas as number, values.yes, signal);
          case 'delete-machine':
            return await removeMachine(cluster, name as string, values.yes, signal);
        }
      } catch (err) {
        if (signal.aborted || err instanceof UsageError) throw err;
        if (err instanceof MachineSetInputError) {
          warn(err.message);
          return err.kind === 'usage' ? EXIT.USAGE : EXIT.FAILED;
        }
        warn(userMessage(err, cluster.context));
        // The server refusing a change (422 invalid, 409 exists, 403 forbidden) is the answer "no"; the rest is the
        // cluster being unusable.
        return err instanceof ApiError &&
          err.status >= 400 &&
          err.status < 500 &&
          err.status !== 401 &&
          err.status !== 404
          ? EXIT.FAILED
          : EXIT.USAGE;
      }
    },
  );
}

/** After a cancel during the create: whether the MachineSet exists (a create is all or nothing) and what to run. */
async function saySettledCreate(cluster: Cluster, name: string): Promise<void> {
  const exists = await getMachineSet(cluster.kube, name, AbortSignal.timeout(5000)).then(
    (ms) => (ms ? true : false),
    () => undefined,
  );
  const again = commandLine(process.argv.slice(2));
  const follow = commandLine(['machineset', 'follow', name, '--context', cluster.context]);
  warn(
    exists === false
      ? `cancelled before MachineSet ${name} was created: nothing was changed. To resume, run: ${again}`
      : exists
        ? `MachineSet ${name} was created before the cancel took hold: its Machines are being made. To follow them: ${follow}`
        : `cancelled while MachineSet ${name} was being created; whether it exists could not be read. ${follow} follows it if it does.`,
  );
}

interface FollowSettings {
  timeoutMin: number | undefined;
  pollMs: number | undefined;
}

async function create(
  cluster: Cluster,
  values: Values,
  replicas: number | undefined,
  f: FollowSettings,
  signal: AbortSignal,
): Promise<number> {
  const prepared = await prepareWindowsMachineSet({
    kube: cluster.kube,
    image: values.image as string,
    ...(values.from !== undefined ? { from: values.from } : {}),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(replicas !== undefined ? { replicas } : {}),
    ...(values['wmco-namespace'] ? { wmcoNamespace: values['wmco-namespace'] } : {}),
    signal,
  });
  const { built } = prepared;
  // The proxy preflight's lines go to stderr: standard output carries the YAML alone.
  if (prepared.proxy?.length) warn(`proxy preflight:\n${formatFindings(prepared.proxy)}`);
  if (values['dry-run']) {
    // Standard output carries the YAML alone, so that it can be piped or saved.
    process.stdout.write(prepared.yaml);
    warn(`MachineSet ${built.name} (${built.platform}, from ${built.from}) not created (--dry-run).`);
    for (const r of prepared.refusals) warn(`creating it would be refused now: ${r}`);
    return EXIT.OK;
  }
  for (const r of prepared.refusals) warn(r);
  if (prepared.refusals.length > 0) return EXIT.FAILED;
  process.stdout.write(prepared.yaml);
  if (
    !(await confirm(
      `\nCreate the Windows MachineSet ${built.name} with ${counted(Number(built.object.spec?.replicas ?? 1), 'replica')} in context ${cluster.context}?`,
      values.yes,
    ))
  ) {
    out('Not created.');
    return EXIT.FAILED;
  }
  try {
    await createWindowsMachineSet(cluster.kube, built, signal, (m) => out(m));
  } catch (err) {
    if (signal.aborted) await saySettledCreate(cluster, built.name);
    throw err;
  }
  // From here the MachineSet exists: creating it again would be refused, so a stop resumes with `follow`.
  const resume = [
    'machineset',
    'follow',
    built.name,
    '--context',
    cluster.context,
    ...(values.kubeconfig ? ['--kubeconfig', values.kubeconfig] : []),
    ...(values['wmco-namespace'] ? ['--wmco-namespace', values['wmco-namespace']] : []),
    ...(values.timeout ? ['--timeout', values.timeout] : []),
    ...(values['poll-interval'] ? ['--poll-interval', values['poll-interval']] : []),
  ];
  const replicasOfBuilt = (built.object.spec?.replicas as number | undefined) ?? 1;
  return follow(cluster, built.name, values, f, signal, replicasOfBuilt, resume);
}

async function follow(
  cluster: Cluster,
  name: string,
  values: Values,
  f: FollowSettings,
  signal: AbortSignal,
  expected?: number,
  resumeArgs?: string[],
): Promise<number> {
  if (expected === undefined) {
    const ms = await getMachineSet(cluster.kube, name, signal);
    if (!ms) {
      warn(`there is no MachineSet "${name}" in openshift-machine-api (context ${cluster.context})`);
      return EXIT.USAGE;
    }
    if (!isWindowsMachineSet(ms))
      warn(
        `MachineSet ${name} is not a Windows one (no machine.openshift.io/os-id: Windows on its template); following it anyway`,
      );
  }
  if (expected === 0) {
    out(`MachineSet ${name} has 0 replicas: no Machine to follow.`);
    return EXIT.OK;
  }
  const { result, nodes } = await followMachineSet({
    kube: cluster.kube,
    machineSet: name,
    ...(expected !== undefined ? { expected } : {}),
    ...(values['wmco-namespace'] ? { wmcoNamespace: values['wmco-namespace'] } : {}),
    ...(f.pollMs ? { pollMs: f.pollMs } : {}),
    ...(f.timeoutMin ? { stageTimeoutMs: Math.round(f.timeoutMin * 60_000) } : {}),
    signal,
    onEvent: (e: RunEvent) => {
      const line = progressLine('', e, 'every Machine is a Ready node');
      if (line) out(line);
    },
  });
  const list = Object.entries(nodes);
  if (result.outcome === 'done' && list.length > 0) out(list.map(([m, n]) => `${m} → node ${n}`).join('\n'));
  const resume = resumeLine(result, resumeArgs);
  if (resume) warn(resume);
  return result.outcome === 'done' ? EXIT.OK : EXIT.FAILED;
}

async function scale(
  cluster: Cluster,
  name: string,
  replicas: number,
  yes: boolean,
  signal: AbortSignal,
): Promise<number> {
  const current = await getScale(cluster.kube, name, signal);
  if (!current) {
    warn(`there is no MachineSet "${name}" in openshift-machine-api (context ${cluster.context})`);
    return EXIT.USAGE;
  }
  const from = current.spec?.replicas ?? 0;
  if (from === replicas) {
    out(`MachineSet ${name} already has ${counted(replicas, 'replica')}.`);
    return EXIT.OK;
  }
  const down = replicas < from ? ` ${scaleConsequence(from, replicas)}` : '';
  if (
    !(await confirm(
      `Scale MachineSet ${name} from ${from} to ${counted(replicas, 'replica')} in context ${cluster.context}?${down}`,
      yes,
    ))
  ) {
    out('Not scaled.');
    return EXIT.FAILED;
  }
  const scaled = await scaleMachineSet(cluster.kube, name, replicas, signal);
  out(
    `MachineSet ${name} scaled from ${from} to ${counted(scaled.spec?.replicas ?? replicas, 'replica')}.${replicas > from ? ` Follow the new Machines: kube-windows machineset follow ${name} --context ${cluster.context}` : ''}`,
  );
  return EXIT.OK;
}

async function removeMachine(cluster: Cluster, name: string, yes: boolean, signal: AbortSignal): Promise<number> {
  const machine = await getMachine(cluster.kube, name, signal);
  if (!machine) {
    warn(`there is no Machine "${name}" in openshift-machine-api (context ${cluster.context})`);
    return EXIT.USAGE;
  }
  const view = machineView(machine);
  const what = `Machine ${name}${view.node ? ` (node ${view.node})` : ''}${view.machineSet ? ` of MachineSet ${view.machineSet}` : ''}`;
  const consequence = view.machineSet
    ? ' The machine controller drains the node and deletes the VM; the MachineSet then makes a new Machine.'
    : ' The machine controller drains the node and deletes the VM.';
  if (!(await confirm(`Delete ${what} in context ${cluster.context}?${consequence}`, yes))) {
    out('Not deleted.');
    return EXIT.FAILED;
  }
  await deleteMachine(cluster.kube, name, signal);
  out(`${what} deleted.`);
  return EXIT.OK;
}
