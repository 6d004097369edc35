// `kube-windows mirrors diff` and `kube-windows mirrors apply`: the mirror engine of
// src/bootstrap/mirrors-apply.ts from a terminal or CI, with the cluster and SSH options every
// command shares (./kit).

import {
  diffSummary,
  mirrorsApply,
  mirrorsDiff,
  resultTable,
  DEFAULT_MIRROR_CONCURRENCY,
  type MirrorsOutcome,
  type MirrorTarget,
} from '../bootstrap/mirrors-apply';
import type { RunEvent } from '../bootstrap/runner';
import { readObjects } from './files';
import {
  EXIT,
  oneOf,
  out,
  positiveInteger,
  positiveNumber,
  progressLine,
  refuse,
  seconds,
  UsageError,
  userMessage,
  warn,
  withCancel,
  commandLine,
} from './kit';
import { commandHelp, parseCommand } from './declare';
import { MIRRORS_APPLY_COMMAND, MIRRORS_DIFF_COMMAND } from './commands';
import { canSsh, clusterFor, hostFor, sshOptions } from './kit-remote';
import { counted } from '../core/plural';

function printDiff(diff: MirrorsOutcome): boolean {
  const w = (s: string) => process.stdout.write(s);
  w(`Rendered (${diff.mode}${diff.wmco ? ', as WMCO writes it' : ''}): ${counted(diff.render.files.length, 'file')}\n`);
  for (const f of diff.render.files) w(`  ${f.path}\n`);
  for (const r of diff.render.refused) w(`  refused ${r.source}: ${r.message}\n`);
  let changes = diff.render.refused.length > 0;
  for (const n of diff.nodes) {
    if (!n.diff) {
      w(`\n${n.node} (${n.address || 'no address'}): ${n.status}${n.reason ? `: ${n.reason}` : ''}\n`);
      if (n.status === 'failed') changes = true;
      continue;
    }
    w(
      `\n${n.node} (${n.address}): ${n.diff.changes.length === 0 ? 'up to date' : diffSummary(n.diff)}${n.diff.absent ? ' (no tree yet)' : ''}\n`,
    );
    for (const c of n.diff.changes) {
      changes = true;
      w(`  ${c.change} ${c.path}\n`);
      if (c.diff) w(c.diff.replace(/^/gm, '    ').replace(/ +$/gm, ''));
    }
  }
  return changes;
}

export async function runMirrorsApply(sub: 'diff' | 'apply', args: string[]): Promise<number> {
  const decl = sub === 'diff' ? MIRRORS_DIFF_COMMAND : MIRRORS_APPLY_COMMAND;
  const { values, positionals } = parseCommand(decl, args);
  if (values.help) {
    process.stdout.write(commandHelp(decl, { concurrency: DEFAULT_MIRROR_CONCURRENCY }));
    return EXIT.OK;
  }
  refuse(
    values['dry-run'],
    `--dry-run: "kube-windows mirrors diff" shows what ${sub} would change, and changes nothing`,
  );
  const mode = oneOf('mode', values.mode, ['ordered', 'wmco']);
  const concurrency = positiveInteger('concurrency', values.concurrency) ?? DEFAULT_MIRROR_CONCURRENCY;
  const waitS = positiveNumber('wait', values.wait, true) ?? 0;
  const ssh = sshOptions(values);
  let objects: unknown[] | undefined;
  if (positionals.length > 0) {
    const read = readObjects(positionals);
    // Half an input set would push a misleading tree: stop before touching anything.
    for (const e of read.errors) warn(e);
    if (read.errors.length > 0) return EXIT.USAGE;
    if (read.objects.length === 0) throw new UsageError('the files hold no objects');
    objects = read.objects;
  }
  const cluster = clusterFor(values);
  const withSsh = canSsh(ssh);
  if (sub === 'diff' && !withSsh)
    throw new UsageError("diff reads each node's tree over SSH: give --key FILE (or run ssh-agent)");

  return withCancel('nodes being changed are rolled back', async (signal) => {
    const request = {
      kube: cluster.kube,
      ...(objects ? { objects } : {}),
      ...(mode ? { mode } : {}),
      ...(withSsh ? { hostFor: (t: MirrorTarget) => hostFor(t.address, ssh) } : {}),
      concurrency,
      ...(values.node ? { only: values.node } : {}),
      signal,
      convergeTimeoutMs: waitS * 1000,
      onLog: (line: string) => out(line),
      onEvent: (t: MirrorTarget, e: RunEvent) => {
        // One line per node when it ends, and the failing step: 50 nodes stay readable.
        if (e.type === 'plan-end') out(`[${t.node}] ${e.outcome} (${seconds(e.durationMs)})`);
        else if (e.type === 'step-end' && e.outcome === 'failed') out(progressLine(t.node, e) as string);
      },
    };
    try {
      if (sub === 'diff') {
        const diff = await mirrorsDiff(request);
        return printDiff(diff) ? EXIT.FAILED : EXIT.OK;
      }
      const applied = await mirrorsApply(request);
      for (const r of applied.render.refused) warn(`refused ${r.source}: ${r.message}`);
      // Each object's outcome was printed as it happened (onLog): not again here.
      if (applied.nodes.length === 0) out('The cluster has no Windows nodes.');
      else process.stdout.write(`\n${resultTable(applied.nodes)}`);
      const bad = applied.nodes.filter(
        (n) => n.status === 'failed' || n.status === 'drift' || (n.status === 'skipped' && !applied.wmco),
      );
      if (bad.some((n) => n.status === 'failed'))
        warn(
          `${counted(bad.length, 'node')} not done. To resume, run: ${commandLine(process.argv.slice(2))} (nodes already done are read and left as they are)`,
        );
      return bad.length > 0 || applied.render.refused.length > 0 ? EXIT.FAILED : EXIT.OK;
    } catch (err) {
      if (signal.aborted) throw err;
      warn(userMessage(err, cluster.context));
      return EXIT.USAGE;
    }
  });
}
