// Registry mirror configuration on Windows nodes: diff, apply and verify, shared by the CLI and the
// VS Code commands.
//
// - WMCO clusters (OpenShift with WMCO): WMCO owns the files, so "apply" creates or updates the
//   ImageDigestMirrorSet / ImageTagMirrorSet objects through the API, then reads each node's tree
//   over SSH (when a key is given) and compares it with what WMCO should have written (renderer in
//   `wmco` mode): drift per node.
// - Other clusters: we own the files. Each Windows node gets a plan (read → stage → swap → config
//   → verify) run over SSH, nodes in parallel with a bound; a node that fails after its swap
//   started is rolled back to its backup. See src/core/windows/mirror-ops.ts for the swap itself.

import { createHash, randomBytes } from 'node:crypto';
import type { KubeClient } from '../cluster/kube-client';
import { ApiError } from '../cluster/errors';
import { loadManifest } from '../core/manifest/document';
import {
  credentialsFromPullSecret,
  mirrorEntriesOf,
  renderHostsToml,
  type MirrorMode,
  type RenderedFile,
  type RenderResult,
} from '../core/mirrors/render';
import { unifiedDiff } from '../core/unified-diff';
import { ensureDirectories } from '../core/windows/host-ops';
import {
  clearStaging,
  ensureConfigPath,
  readHostsTree,
  rollbackHostsTree,
  swapHostsTree,
  swapPaths,
  type RemoteTree,
} from '../core/windows/mirror-ops';
import type { WindowsHost } from '../remote/windows-host';
import { reachableAddress, windowsNodes } from '../cluster/nodes';
import {
  createMirrorSet,
  getMirrorSet,
  isMirrorSetKind,
  isOpenShift,
  mirrorSetObjects,
  pullSecretJson,
  replaceMirrorSet,
} from '../cluster/openshift';
import { wmcoCsv } from '../cluster/wmco';
import { runBounded } from './runner';
import { LAYOUT, WMCO_REGISTRY_DIR } from '../core/windows/layout';

export { WMCO_REGISTRY_DIR };
import type { Plan } from './plan';
import { prepare, type PreparedPlan } from './prepared';
import type { RunEvent, RunResult } from './runner';
import { delay } from '../core/delay';
import { UserError } from '../core/user-error';
import { counted } from '../core/plural';

export const DEFAULT_MIRROR_CONCURRENCY = 8;

/** A request that cannot be carried out as given (words for the user, no cluster error). */
class MirrorsInputError extends UserError {}

export interface MirrorTarget {
  node: string;
  /** InternalIP ('' when the node reports none). */
  address: string;
}

/** The Windows nodes and the address to reach each (InternalIP, else the first address). */
async function windowsNodeTargets(kube: KubeClient, signal?: AbortSignal): Promise<MirrorTarget[]> {
  return (await windowsNodes(kube, signal))
    .map((n) => ({ node: n.metadata.name, address: reachableAddress(n) }))
    .sort((a, b) => a.node.localeCompare(b.node));
}

/** OpenShift with WMCO installed: WMCO renders the nodes' hosts.toml from IDMS/ITMS. */
export async function isWmcoCluster(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  if (!(await isOpenShift(kube, signal))) return false;
  return (await wmcoCsv(kube, signal)) !== undefined;
}

/** Every IDMS and ITMS of the cluster (IDMS first, as WMCO reads them); empty when the API has none. */
export async function clusterMirrorObjects(kube: KubeClient, signal?: AbortSignal): Promise<unknown[]> {
  return mirrorSetObjects(kube, signal);
}

/** The pull secret WMCO reads headers from (openshift-config/pull-secret), as renderer credentials. */
async function clusterCredentials(
  kube: KubeClient,
  signal?: AbortSignal,
): Promise<ReturnType<typeof credentialsFromPullSecret> | undefined> {
  const json = await pullSecretJson(kube, signal);
  return json === undefined ? undefined : credentialsFromPullSecret(json);
}

// ---------------------------------------------------------------------------------------------
// Trees and diffs

/** The rendered files as a tree: Windows relative path (`dir\hosts.toml`) → content. */
export type DesiredTree = Map<string, string>;

export function desiredTree(files: readonly RenderedFile[]): DesiredTree {
  return new Map(files.map((f) => [`${f.dir}\\hosts.toml`, f.content]));
}

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

export interface FileChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
  /** Unified diff of the contents ('' when the current content was too large to read). */
  diff: string;
}

export interface TreeDiff {
  /** The live directory does not exist yet. */
  absent: boolean;
  changes: FileChange[];
  unchanged: string[];
}

/** What would change from the node's current tree to the desired one (paths compare as NTFS does). */
export function diffTree(current: RemoteTree, desired: DesiredTree): TreeDiff {
  const have = new Map(current.files.map((f) => [f.path.toLowerCase(), f]));
  const changes: FileChange[] = [];
  const unchanged: string[] = [];
  const label = (p: string) => p.replace(/\\/g, '/');
  for (const [path, content] of [...desired].sort(([a], [b]) => a.localeCompare(b))) {
    const cur = have.get(path.toLowerCase());
    have.delete(path.toLowerCase());
    if (!cur) changes.push({ path, change: 'added', diff: unifiedDiff('', content, '/dev/null', `b/${label(path)}`) });
    else if (cur.sha256 !== sha256(content)) {
      const before = cur.content === null ? undefined : Buffer.from(cur.content, 'base64').toString('utf8');
      changes.push({
        path,
        change: 'changed',
        diff: before === undefined ? '' : unifiedDiff(before, content, `a/${label(cur.path)}`, `b/${label(path)}`),
      });
    } else unchanged.push(path);
  }
  for (const cur of [...have.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    const before = cur.content === null ? '' : Buffer.from(cur.content, 'base64').toString('utf8');
    changes.push({
      path: cur.path,
      change: 'removed',
      diff: unifiedDiff(before, '', `a/${label(cur.path)}`, '/dev/null'),
    });
  }
  return { absent: !current.exists, changes, unchanged };
}

/** A short summary: "2 added, 1 changed, 0 removed, 3 unchanged". */
export function diffSummary(d: TreeDiff): string {
  const n = (c: FileChange['change']) => d.changes.filter((x) => x.change === c).length;
  return `${n('added')} added, ${n('changed')} changed, ${n('removed')} removed, ${d.unchanged.length} unchanged`;
}

// ---------------------------------------------------------------------------------------------
// Push to one node (clusters without WMCO)

export interface PushOptions {
  /** The live tree (default LAYOUT.registryHosts, containerd's config_path from kubeadm join). */
  root?: string;
  /** containerd's config.toml (default LAYOUT.containerdConfig). */
  configFile?: string;
  service?: string;
  /** Swap id (default random): names the staging directory and the swap marker. */
  id?: string;
}

interface PushState {
  current?: RemoteTree;
  diff?: TreeDiff;
  unchanged?: boolean;
  swapStarted?: boolean;
  configChanged?: boolean;
}

interface PushContext {
  host: WindowsHost;
  state: PushState;
}

/**
 * The per-node plan, ready to show and run: read → stage → swap (hashes verified first, backup kept) → config_path →
 * verify.
 */
function pushPlanFor(
  target: MirrorTarget,
  host: WindowsHost,
  desired: DesiredTree,
  options: PushOptions = {},
): { plan: PreparedPlan<PushState>; swapId: string; root: string } {
  const root = options.root ?? LAYOUT.registryHosts;
  const configFile = options.configFile ?? LAYOUT.containerdConfig;
  const id = options.id ?? randomBytes(4).toString('hex');
  const paths = swapPaths(root, id);
  const manifest = [...desired].map(([path, content]) => ({ path, sha256: sha256(content), content }));
  const label = target.node || target.address;
  const plan: Plan<PushContext> = {
    id: 'mirrors-push',
    title: `Push registry mirror configuration to ${label}`,
    target: label,
    steps: [
      {
        id: 'read',
        title: `Read ${root}`,
        preview: { powershell: [readHostsTree(root).script], check: 'always runs' },
        check: async () => 'todo',
        apply: async (ctx, signal, report) => {
          ctx.state.current = await ctx.host.run(readHostsTree(root), signal);
          ctx.state.diff = diffTree(ctx.state.current, desired);
          // Hash-equal: nothing is written (an absent directory with nothing to write is equal too).
          ctx.state.unchanged = ctx.state.diff.changes.length === 0 && (ctx.state.current.exists || desired.size === 0);
          report(ctx.state.unchanged ? 'already up to date' : diffSummary(ctx.state.diff));
        },
        verify: async (ctx) => (ctx.state.diff ? true : 'the tree was not read'),
      },
      {
        id: 'stage',
        title: `Upload ${counted(manifest.length, 'file')} to ${paths.staging}`,
        preview: {
          powershell: [clearStaging(root).script],
          notes: manifest.map((f) => `put ${paths.staging}\\${f.path} (sha256 ${f.sha256})`),
        },
        check: async (ctx) => (ctx.state.unchanged ? 'done' : 'todo'),
        apply: async (ctx, signal, report) => {
          await ctx.host.run(clearStaging(root), signal);
          // put() creates each file's directory; an empty tree still needs the staging directory.
          if (manifest.length === 0) await ctx.host.run(ensureDirectories([paths.staging]), signal);
          for (const [i, f] of manifest.entries()) {
            await ctx.host.put({ data: Buffer.from(f.content, 'utf8') }, `${paths.staging}\\${f.path}`, signal);
            report(`${i + 1}/${manifest.length} ${f.path}`, (i + 1) / manifest.length);
          }
        },
        verify: async () => true,
      },
      {
        id: 'swap',
        title: `Check the hashes and swap the tree in (the previous one kept as ${paths.backup})`,
        preview: { powershell: [swapHostsTree(root, id, manifest).script] },
        check: async (ctx) => (ctx.state.unchanged ? 'done' : 'todo'),
        apply: async (ctx, signal, report) => {
          // From here on a failure may have swapped: the node is rolled back (the marker says what to undo).
          ctx.state.swapStarted = true;
          const r = await ctx.host.run(swapHostsTree(root, id, manifest), signal);
          report(
            r.already
              ? 'already swapped'
              : r.previous
                ? `swapped; previous tree kept as ${paths.backup}`
                : 'swapped (there was no previous tree)',
          );
        },
        verify: async () => true,
      },
      {
        id: 'config',
        title: `Point containerd's config_path at ${root}`,
        preview: { powershell: [ensureConfigPath(configFile, root, options.service).script] },
        check: async () => 'todo',
        apply: async (ctx, signal, report) => {
          const r = await ctx.host.run(ensureConfigPath(configFile, root, options.service), signal);
          ctx.state.configChanged = r.changed;
          report(
            r.changed
              ? `config_path set in ${configFile}${r.restarted ? '; containerd restarted' : ''}`
              : 'config_path already set',
          );
        },
        verify: async () => true,
      },
      {
        id: 'verify',
        title: `Verify ${root}`,
        preview: { powershell: [readHostsTree(root).script] },
        check: async (ctx) => (ctx.state.unchanged ? 'done' : 'todo'),
        apply: async (ctx, signal) => {
          const d = diffTree(await ctx.host.run(readHostsTree(root), signal), desired);
          if (d.changes.length > 0)
            throw new Error(`after the swap ${root} still differs from the rendered configuration (${diffSummary(d)})`);
        },
        verify: async () => true,
      },
    ],
  };
  return { plan: prepare(plan, { host, state: {} }), swapId: id, root };
}

export type NodeStatus = 'changed' | 'unchanged' | 'failed' | 'drift' | 'converged' | 'skipped';

export interface NodeResult {
  node: string;
  address: string;
  status: NodeStatus;
  /** Why it failed (or drifted), in words. */
  reason?: string;
  diff?: TreeDiff;
  /** A failed node whose previous tree was put back. */
  rolledBack?: boolean;
  durationMs: number;
}

export interface PushRunOptions extends PushOptions {
  signal?: AbortSignal;
  onEvent?: (target: MirrorTarget, e: RunEvent) => void;
}

/** Runs the push plan on one node; on a failure after the swap started, rolls the node back. */
async function pushToNode(
  target: MirrorTarget,
  host: WindowsHost,
  desired: DesiredTree,
  options: PushRunOptions = {},
): Promise<NodeResult> {
  const started = Date.now();
  const { plan, swapId, root } = pushPlanFor(target, host, desired, options);
  const { state } = plan;
  let result: RunResult;
  try {
    result = await plan.run({
      ...(options.signal ? { signal: options.signal } : {}),
      onEvent: (e) => options.onEvent?.(target, e),
      backoffMs: 200,
    });
  } catch (err) {
    result = {
      planId: 'mirrors-push',
      outcome: 'failed',
      steps: [],
      durationMs: 0,
      error: { stepId: 'read', message: (err as Error).message },
    };
  }
  const base = { node: target.node, address: target.address, ...(state.diff ? { diff: state.diff } : {}) };
  if (result.outcome === 'done') {
    return {
      ...base,
      status: state.unchanged && !state.configChanged ? 'unchanged' : 'changed',
      durationMs: Date.now() - started,
    };
  }
  let reason = result.error?.message ?? result.outcome;
  let rolledBack = false;
  if (state.swapStarted) {
    // No signal: a cancelled push must still put the previous tree back.
    try {
      rolledBack = (await host.run(rollbackHostsTree(root, swapId))).restored;
      if (rolledBack) reason += '; the previous configuration was restored';
    } catch (err) {
      reason += `; rolling back failed too (${(err as Error).message}): run apply again`;
    }
  }
  try {
    await host.run(clearStaging(root));
  } catch {
    // Leftover staging directories are harmless and removed by the next run.
  }
  return { ...base, status: 'failed', reason, rolledBack, durationMs: Date.now() - started };
}

// ---------------------------------------------------------------------------------------------
// Apply, diff and verify over all Windows nodes

export interface MirrorsRequest {
  kube: KubeClient;
  /** IDMS / ITMS objects to apply (from files); undefined = the cluster's own (diff/verify only). */
  objects?: unknown[];
  /** wmco on WMCO clusters, ordered elsewhere, unless given. */
  mode?: MirrorMode;
  /** Force the WMCO path or the push path (default: detected). */
  wmco?: boolean;
  /** Builds the SSH host for a node; without it WMCO verification is skipped (and a push is impossible). */
  hostFor?: (target: MirrorTarget) => WindowsHost;
  concurrency?: number;
  /** Only these nodes (names or addresses). */
  only?: string[];
  signal?: AbortSignal;
  onEvent?: (target: MirrorTarget, e: RunEvent) => void;
  /** A line of progress that belongs to no node (API calls, waiting for WMCO). */
  onLog?: (line: string) => void;
  push?: PushOptions;
  /** WMCO path: how long to wait for the nodes to converge, and how often to look (default 0 / 5 s). */
  convergeTimeoutMs?: number;
  pollMs?: number;
}

export interface ObjectResult {
  kind: string;
  name: string;
  action: 'created' | 'updated' | 'unchanged' | 'skipped';
  reason?: string;
}

export interface MirrorsOutcome {
  wmco: boolean;
  mode: MirrorMode;
  render: RenderResult;
  objects: ObjectResult[];
  nodes: NodeResult[];
}

/** Creates or updates IDMS / ITMS objects (spec replaced, metadata kept); other kinds are skipped. */
async function applyMirrorObjects(
  kube: KubeClient,
  objects: readonly unknown[],
  signal?: AbortSignal,
): Promise<ObjectResult[]> {
  const out: ObjectResult[] = [];
  for (const o of objects) {
    const obj = o as { kind?: string; apiVersion?: string; metadata?: { name?: string }; spec?: unknown };
    const kind = obj.kind ?? '';
    const name = obj.metadata?.name ?? '';
    if (!isMirrorSetKind(kind)) {
      out.push({
        kind,
        name,
        action: 'skipped',
        reason:
          kind === 'ImageContentSourcePolicy'
            ? 'WMCO does not read ImageContentSourcePolicy; convert it to an ImageDigestMirrorSet (oc adm migrate icsp)'
            : `not a mirror set (${kind || 'no kind'})`,
      });
      continue;
    }
    if (!name) {
      out.push({ kind, name, action: 'skipped', reason: 'it has no metadata.name' });
      continue;
    }
    const existing = await getMirrorSet(kube, kind, name, signal);
    if (!existing) {
      await createMirrorSet(kube, kind, obj, signal);
      out.push({ kind, name, action: 'created' });
    } else if (JSON.stringify(existing.spec ?? {}) === JSON.stringify(obj.spec ?? {})) {
      out.push({ kind, name, action: 'unchanged' });
    } else {
      // PUT with the live resourceVersion: a concurrent edit fails (409) rather than being overwritten.
      await replaceMirrorSet(kube, kind, { ...existing, spec: obj.spec }, signal);
      out.push({ kind, name, action: 'updated' });
    }
  }
  return out;
}

function selectTargets(targets: MirrorTarget[], only: string[] | undefined): MirrorTarget[] {
  if (!only || only.length === 0) return targets;
  return targets.filter((t) => only.includes(t.node) || only.includes(t.address));
}

async function readNode(
  host: WindowsHost,
  root: string,
  desired: DesiredTree,
  signal?: AbortSignal,
): Promise<TreeDiff> {
  return diffTree(await host.run(readHostsTree(root), signal), desired);
}

/** What each node would get: its current tree read over SSH and diffed with the rendered one. */
export async function mirrorsDiff(r: MirrorsRequest): Promise<MirrorsOutcome> {
  const wmco = r.wmco ?? (await isWmcoCluster(r.kube, r.signal));
  const mode = r.mode ?? (wmco ? 'wmco' : 'ordered');
  const objects = wmco
    ? [
        ...(await clusterMirrorObjects(r.kube, r.signal)).filter((o) => !r.objects?.some((x) => sameObject(x, o))),
        ...(r.objects ?? []),
      ]
    : (r.objects ?? (await clusterMirrorObjects(r.kube, r.signal)));
  const credentials = wmco ? await clusterCredentials(r.kube, r.signal).catch(() => undefined) : undefined;
  const render = renderHostsToml(mirrorEntriesOf(objects), { mode, ...(credentials ? { credentials } : {}) });
  const desired = desiredTree(render.files);
  const root = wmco ? WMCO_REGISTRY_DIR : (r.push?.root ?? LAYOUT.registryHosts);
  const targets = selectTargets(await windowsNodeTargets(r.kube, r.signal), r.only);
  const nodes = await perNode(r, targets, async (t, host) => {
    const started = Date.now();
    const diff = await readNode(host, root, desired, r.signal);
    return {
      node: t.node,
      address: t.address,
      status: diff.changes.length === 0 ? 'unchanged' : 'changed',
      diff,
      durationMs: Date.now() - started,
    };
  });
  return { wmco, mode, render, objects: [], nodes };
}

/** Applies the mirror configuration: API objects on WMCO clusters, an SSH push elsewhere. */
export async function mirrorsApply(r: MirrorsRequest): Promise<MirrorsOutcome> {
  const wmco = r.wmco ?? (await isWmcoCluster(r.kube, r.signal));
  const mode = r.mode ?? (wmco ? 'wmco' : 'ordered');
  const targets = selectTargets(await windowsNodeTargets(r.kube, r.signal), r.only);
  if (wmco) {
    const objects = r.objects ? await applyMirrorObjects(r.kube, r.objects, r.signal) : [];
    for (const o of objects) r.onLog?.(`${o.kind} ${o.name}: ${o.action}${o.reason ? ` (${o.reason})` : ''}`);
    // WMCO renders every IDMS/ITMS of the cluster, not only ours: expect exactly that.
    const all = await clusterMirrorObjects(r.kube, r.signal);
    const credentials = await clusterCredentials(r.kube, r.signal).catch(() => undefined);
    const render = renderHostsToml(mirrorEntriesOf(all), { mode: 'wmco', ...(credentials ? { credentials } : {}) });
    const desired = desiredTree(render.files);
    const deadline = Date.now() + (r.convergeTimeoutMs ?? 0);
    const nodes = await perNode(r, targets, async (t, host) => {
      const started = Date.now();
      for (;;) {
        const diff = await readNode(host, WMCO_REGISTRY_DIR, desired, r.signal);
        if (diff.changes.length === 0)
          return { node: t.node, address: t.address, status: 'converged', diff, durationMs: Date.now() - started };
        if (Date.now() >= deadline)
          return {
            node: t.node,
            address: t.address,
            status: 'drift',
            reason: `${WMCO_REGISTRY_DIR} differs from what WMCO should write (${diffSummary(diff)})`,
            diff,
            durationMs: Date.now() - started,
          };
        r.onLog?.(`${t.node}: waiting for WMCO (${diffSummary(diff)})`);
        await delay(Math.min(r.pollMs ?? 5000, Math.max(0, deadline - Date.now())), r.signal);
      }
    });
    return { wmco, mode: 'wmco', render, objects, nodes };
  }
  const source = r.objects ?? (await clusterMirrorObjects(r.kube, r.signal));
  // Pushing "nothing" would wipe every node's mirrors: only when files say so explicitly.
  if (!r.objects && mirrorEntriesOf(source).length === 0) {
    throw new MirrorsInputError(
      'The cluster has no ImageDigestMirrorSet / ImageTagMirrorSet objects (plain Kubernetes does not serve them), so there is nothing to push; pass the YAML files that hold your mirror sets.',
    );
  }
  const render = renderHostsToml(mirrorEntriesOf(source), { mode });
  const desired = desiredTree(render.files);
  if (render.refused.length > 0) {
    // A refused source would be silently missing on every node: push nothing.
    const reason = `refused by the renderer: ${render.refused.map((x) => `${x.source} (${x.message})`).join('; ')}`;
    return {
      wmco,
      mode,
      render,
      objects: [],
      nodes: targets.map((t) => ({ node: t.node, address: t.address, status: 'skipped', reason, durationMs: 0 })),
    };
  }
  const nodes = await perNode(r, targets, (t, host) =>
    pushToNode(t, host, desired, {
      ...r.push,
      ...(r.signal ? { signal: r.signal } : {}),
      ...(r.onEvent ? { onEvent: r.onEvent } : {}),
    }),
  );
  return { wmco, mode, render, objects: [], nodes };
}

function sameObject(a: unknown, b: unknown): boolean {
  const x = a as { kind?: string; metadata?: { name?: string } };
  const y = b as { kind?: string; metadata?: { name?: string } };
  return x.kind === y.kind && x.metadata?.name === y.metadata?.name;
}

/** Runs fn per node with the bound; a node without an address, a host or a result is failed/skipped. */
async function perNode(
  r: MirrorsRequest,
  targets: MirrorTarget[],
  fn: (t: MirrorTarget, host: WindowsHost) => Promise<NodeResult>,
): Promise<NodeResult[]> {
  const limit = r.concurrency ?? DEFAULT_MIRROR_CONCURRENCY;
  const results = await runBounded(targets, limit, async (t) => {
    if (!t.address)
      return {
        node: t.node,
        address: '',
        status: 'failed' as const,
        reason: 'the node reports no InternalIP address',
        durationMs: 0,
      };
    if (!r.hostFor)
      return {
        node: t.node,
        address: t.address,
        status: 'skipped' as const,
        reason: 'no SSH key given: the node was not read',
        durationMs: 0,
      };
    const host = r.hostFor(t);
    try {
      return await fn(t, host);
    } finally {
      host.close();
    }
  });
  return results.map((x, i) =>
    x.ok
      ? x.value
      : {
          node: targets[i]!.node,
          address: targets[i]!.address,
          status: 'failed',
          reason: messageOf(x.error),
          durationMs: 0,
        },
  );
}

function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** The final table: one row per node (status, address, detail). */
export function resultTable(nodes: readonly NodeResult[]): string {
  const rows = nodes.map((n) => [n.node, n.address || '-', n.status, n.reason ?? (n.diff ? diffSummary(n.diff) : '')]);
  const head = ['NODE', 'ADDRESS', 'RESULT', 'DETAIL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

/** The IDMS / ITMS / ICSP objects of a YAML text (an editor's document); other objects are left out. */
export function mirrorObjectsOfText(text: string): unknown[] {
  const out: unknown[] = [];
  for (const doc of loadManifest(text).documents) {
    const kind = (doc.value as { kind?: unknown } | null)?.kind;
    if (
      doc.status === 'ok' &&
      typeof kind === 'string' &&
      /^(ImageDigestMirrorSet|ImageTagMirrorSet|ImageContentSourcePolicy)(List)?$/.test(kind)
    )
      out.push(doc.value);
  }
  return out;
}

/** Rendering alone, without a cluster (a preview when the cluster cannot be reached). */
export function mirrorsRenderOnly(objects: unknown[], mode: MirrorMode = 'ordered'): MirrorsOutcome {
  return { wmco: false, mode, render: renderHostsToml(mirrorEntriesOf(objects), { mode }), objects: [], nodes: [] };
}
