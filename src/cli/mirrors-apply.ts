// `kube-windows mirrors diff` and `kube-windows mirrors apply`: the mirror engine of
// src/bootstrap/mirrors-apply.ts from a terminal or CI, with the cluster and SSH options every
// command shares (./kit).

import { diffSummary, mirrorsApply, mirrorsDiff, resultTable, DEFAULT_MIRROR_CONCURRENCY, type MirrorsOutcome, type MirrorTarget } from '../bootstrap/mirrors-apply';
import type { RunEvent } from '../bootstrap/runner';
import { readObjects } from './files';
import {
  CLUSTER_HELP,
  CLUSTER_OPTIONS,
  EXIT,
  EXIT_CODES_HELP,
  HELP_OPTION,
  oneOf,
  out,
  parse,
  positiveInteger,
  positiveNumber,
  progressLine,
  refuse,
  seconds,
  SSH_HELP,
  SSH_OPTIONS,
  UsageError,
  userMessage,
  warn,
  withCancel,
  YES_HELP,
  YES_OPTION,
} from './kit';
import { canSsh, clusterFor, hostFor, sshOptions } from './kit-remote';

const MIRRORS_APPLY_HELP = `Usage:
  kube-windows mirrors diff  --context C [--mode wmco|ordered] [--key FILE] [--user U] [FILES...]
  kube-windows mirrors apply --context C [--concurrency N] [--key FILE] [--user U] [FILES...]

FILES hold ImageDigestMirrorSet / ImageTagMirrorSet objects (YAML); without them the cluster's own
IDMS/ITMS are used. On OpenShift with WMCO, apply creates or updates those objects through the API
(WMCO writes the nodes' files) and then compares each node's C:\\k\\containerd\\registries with what
WMCO should have written (when a key is given); elsewhere it pushes the hosts.toml tree to every
Windows node over SSH (staged, hash-checked, swapped atomically, previous tree kept as a backup,
rolled back on failure) and points containerd's config_path at it.

  --mode wmco|ordered    rendering (default: wmco on WMCO clusters, ordered elsewhere)
  --concurrency N        nodes at once (default ${DEFAULT_MIRROR_CONCURRENCY})
  --node NAME            only this node (repeatable; a name or an address)
  --wait SECONDS         WMCO clusters: wait this long for the nodes to converge (default 0)
  (apply has no --dry-run: diff shows what it would change)
Cluster options:
${CLUSTER_HELP}
SSH options (to each node's InternalIP, else its ExternalIP):
${SSH_HELP}
${YES_HELP}
diff exits 1 when there are changes to make; apply when a node failed or drifted.
${EXIT_CODES_HELP}`;

function printDiff(diff: MirrorsOutcome): boolean {
  const w = (s: string) => process.stdout.write(s);
  w(`Rendered (${diff.mode}${diff.wmco ? ', as WMCO writes it' : ''}): ${diff.render.files.length} file(s)\n`);
  for (const f of diff.render.files) w(`  ${f.path}\n`);
  for (const r of diff.render.refused) w(`  refused ${r.source}: ${r.message}\n`);
  let changes = diff.render.refused.length > 0;
  for (const n of diff.nodes) {
    if (!n.diff) {
      w(`\n${n.node} (${n.address || 'no address'}): ${n.status}${n.reason ? `: ${n.reason}` : ''}\n`);
      if (n.status === 'failed') changes = true;
      continue;
    }
    w(`\n${n.node} (${n.address}): ${n.diff.changes.length === 0 ? 'up to date' : diffSummary(n.diff)}${n.diff.absent ? ' (no tree yet)' : ''}\n`);
    for (const c of n.diff.changes) {
      changes = true;
      w(`  ${c.change} ${c.path}\n`);
      if (c.diff) w(c.diff.replace(/^/gm, '    ').replace(/ +$/gm, ''));
    }
  }
  return changes;
}

export async function runMirrorsApply(sub: 'diff' | 'apply', args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...CLUSTER_OPTIONS,
      ...SSH_OPTIONS,
      ...YES_OPTION,
      ...HELP_OPTION,
      mode: { type: 'string' },
      concurrency: { type: 'string' },
      node: { type: 'string', multiple: true },
      wait: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    true,
  );
  if (values.help) {
    process.stdout.write(MIRRORS_APPLY_HELP);
    return EXIT.OK;
  }
  refuse(values['dry-run'], `--dry-run: "kube-windows mirrors diff" shows what ${sub} would change, and changes nothing`);
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
  if (sub === 'diff' && !withSsh) throw new UsageError("diff reads each node's tree over SSH: give --key FILE (or run ssh-agent)");

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
      const bad = applied.nodes.filter((n) => n.status === 'failed' || n.status === 'drift' || (n.status === 'skipped' && !applied.wmco));
      return bad.length > 0 || applied.render.refused.length > 0 ? EXIT.FAILED : EXIT.OK;
    } catch (err) {
      if (signal.aborted) throw err;
      warn(userMessage(err, cluster.context));
      return EXIT.USAGE;
    }
  });
}
