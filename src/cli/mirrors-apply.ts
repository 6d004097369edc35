// `kube-windows mirrors diff` and `kube-windows mirrors apply`: the mirror engine of
// src/bootstrap/mirrors-apply.ts from a terminal or CI. Same cluster and SSH options as `join`.

import { parseArgs } from 'node:util';
import { loadManifest } from '../core/manifest/document';
import { diffSummary, MirrorsInputError, mirrorsApply, mirrorsDiff, resultTable, DEFAULT_MIRROR_CONCURRENCY, type MirrorsOutcome, type MirrorTarget } from '../bootstrap/mirrors-apply';
import type { MirrorMode } from '../core/mirrors/render';
import { expandInputs, readText } from './files';
import { clusterFor, hostFor, JoinUsageError, progressLine, userMessage } from './join';

const EXIT_OK = 0;
const EXIT_CHANGES = 1;
const EXIT_USAGE = 2;

export const MIRRORS_APPLY_HELP = `Usage:
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
  --key FILE             private key for SSH (else the keys of ssh-agent, SSH_AUTH_SOCK)
  --user U               Windows account (default Administrator)
  --port N  --known-hosts FILE  --accept-new-host-key  --kubeconfig FILE   as for join
Exit codes: diff 0 nothing to change, 1 changes; apply 0 every node changed, unchanged or
converged, 1 a node failed or drifted; 2 usage, cluster or connection error.
`;

function readObjects(paths: string[]): unknown[] {
  const { files, errors } = expandInputs(paths);
  if (errors.length > 0) throw new JoinUsageError(errors.join('; '));
  const objects: unknown[] = [];
  for (const input of files) {
    const r = readText(input, 32 * 1048576);
    if (r.text === undefined) throw new JoinUsageError(`${input.path}: ${r.error ?? 'file too large'}`);
    const manifest = loadManifest(r.text);
    if (manifest.skipped) throw new JoinUsageError(`${input.path}: ${manifest.skipped}`);
    for (const doc of manifest.documents) {
      if (doc.status === 'ok') objects.push(doc.value);
      // Half an input set would push a misleading tree: stop before touching anything.
      else if (doc.status !== 'empty') throw new JoinUsageError(`${input.path}: document ${doc.index + 1} not read: ${doc.reason ?? doc.status}`);
    }
  }
  if (objects.length === 0) throw new JoinUsageError('the files hold no objects');
  return objects;
}

function printDiff(out: MirrorsOutcome): boolean {
  const w = (s: string) => process.stdout.write(s);
  w(`Rendered (${out.mode}${out.wmco ? ', as WMCO writes it' : ''}): ${out.render.files.length} file(s)\n`);
  for (const f of out.render.files) w(`  ${f.path}\n`);
  for (const r of out.render.refused) w(`  refused ${r.source}: ${r.message}\n`);
  let changes = out.render.refused.length > 0;
  for (const n of out.nodes) {
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

export async function runMirrorsApply(sub: string, args: string[]): Promise<number> {
  try {
    return await run(sub, args);
  } catch (err) {
    if (err instanceof JoinUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kube-windows: ${(err as Error).message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`kube-windows: ${(err as Error)?.message ?? String(err)}\n`);
    return EXIT_USAGE;
  }
}

async function run(sub: string, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      context: { type: 'string' },
      kubeconfig: { type: 'string' },
      mode: { type: 'string' },
      concurrency: { type: 'string', default: String(DEFAULT_MIRROR_CONCURRENCY) },
      node: { type: 'string', multiple: true },
      wait: { type: 'string', default: '0' },
      user: { type: 'string', default: 'Administrator' },
      key: { type: 'string' },
      port: { type: 'string' },
      'known-hosts': { type: 'string' },
      'accept-new-host-key': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(MIRRORS_APPLY_HELP);
    return EXIT_OK;
  }
  if (values.mode !== undefined && values.mode !== 'wmco' && values.mode !== 'ordered') throw new JoinUsageError(`--mode must be wmco or ordered, not "${values.mode}"`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new JoinUsageError('--concurrency must be a positive whole number');
  const waitS = Number(values.wait);
  if (!Number.isFinite(waitS) || waitS < 0) throw new JoinUsageError('--wait takes a number of seconds');
  const objects = positionals.length > 0 ? readObjects(positionals) : undefined;
  const cluster = clusterFor(values);
  const canSsh = Boolean(values.key || process.env.SSH_AUTH_SOCK);
  if (sub === 'diff' && !canSsh) throw new JoinUsageError("diff reads each node's tree over SSH: give --key FILE (or run ssh-agent)");
  // Checked before anything runs: a bad --port is a usage error, not forty failed nodes.
  if (canSsh) hostFor('127.0.0.1', values.user, values).close();

  const ctl = new AbortController();
  const onSigint = () => {
    process.stderr.write('kube-windows: cancelling (nodes being changed are rolled back)\n');
    ctl.abort(new Error('cancelled by the user'));
  };
  process.once('SIGINT', onSigint);
  const request = {
    kube: cluster.kube,
    ...(objects ? { objects } : {}),
    ...(values.mode ? { mode: values.mode as MirrorMode } : {}),
    ...(canSsh ? { hostFor: (t: MirrorTarget) => hostFor(t.address, values.user, values) } : {}),
    concurrency,
    ...(values.node ? { only: values.node } : {}),
    signal: ctl.signal,
    convergeTimeoutMs: waitS * 1000,
    onLog: (line: string) => process.stdout.write(`${line}\n`),
    onEvent: (t: MirrorTarget, e: Parameters<typeof progressLine>[1]) => {
      // One line per node when it ends, and the failing step: 50 nodes stay readable.
      if (e.type === 'plan-end' || (e.type === 'step-end' && e.outcome === 'failed')) {
        const line = e.type === 'plan-end' ? `[${t.node}] ${e.outcome === 'done' ? 'done' : e.outcome} (${(e.durationMs / 1000).toFixed(1)} s)` : progressLine(t.node, e);
        if (line) process.stdout.write(`${line}\n`);
      }
    },
  };
  try {
    if (sub === 'diff') {
      const out = await mirrorsDiff(request);
      return printDiff(out) ? EXIT_CHANGES : EXIT_OK;
    }
    const out = await mirrorsApply(request);
    for (const r of out.render.refused) process.stderr.write(`kube-windows: refused ${r.source}: ${r.message}\n`);
    if (out.objects.length > 0) {
      process.stdout.write('\n');
      for (const o of out.objects) process.stdout.write(`${o.kind}/${o.name}: ${o.action}${o.reason ? ` (${o.reason})` : ''}\n`);
    }
    if (out.nodes.length === 0) process.stdout.write('The cluster has no Windows nodes.\n');
    else process.stdout.write(`\n${resultTable(out.nodes)}`);
    const bad = out.nodes.filter((n) => n.status === 'failed' || n.status === 'drift' || (n.status === 'skipped' && !out.wmco));
    return bad.length > 0 || out.render.refused.length > 0 ? EXIT_CHANGES : EXIT_OK;
  } catch (err) {
    process.stderr.write(`kube-windows: ${err instanceof MirrorsInputError ? err.message : userMessage(err, cluster.context)}\n`);
    return EXIT_USAGE;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
