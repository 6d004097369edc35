// Kubeconfig loading as kubectl does it: an explicit path (the kubeWindows.kubeconfig setting) wins,
// else every file of KUBECONFIG merged (first file wins for a duplicate name, current-context from the
// first file that sets one), else ~/.kube/config. Errors come back as plain messages, never thrown.
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, resolve } from 'node:path';

/** The parsed kubeconfig type, for modules outside cluster/ (only cluster/ imports the client library). */
export type { KubeConfig };

export type KubeconfigOrigin = 'setting' | 'KUBECONFIG' | 'default';

export interface KubeconfigLocation {
  files: string[];
  origin: KubeconfigOrigin;
}

export interface LocateOptions {
  /** The kubeWindows.kubeconfig setting; overrides KUBECONFIG and the default. */
  explicit?: string;
  env?: Record<string, string | undefined>;
  home?: string;
}

export interface ContextInfo {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
  /** The cluster's API server URL, when the context's cluster exists. */
  server?: string;
  /** The file the context came from. */
  file?: string;
}

export type KubeconfigLoad =
  | {
      ok: true;
      config: KubeConfig;
      location: KubeconfigLocation;
      contexts: ContextInfo[];
      currentContext?: string;
      warnings: string[];
    }
  | { ok: false; location: KubeconfigLocation; message: string };

/** Which files make up the kubeconfig, in kubectl's order of precedence. */
export function locateKubeconfig(options: LocateOptions = {}): KubeconfigLocation {
  const home = options.home ?? homedir();
  const expand = (p: string) => resolve(p.startsWith('~') ? home + p.slice(1) : p);
  const explicit = options.explicit?.trim();
  if (explicit) return { files: [expand(explicit)], origin: 'setting' };
  const env = options.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list && list.trim()) {
    const files: string[] = [];
    for (const part of list.split(delimiter)) {
      const p = part.trim();
      if (p && !files.includes(expand(p))) files.push(expand(p));
    }
    if (files.length) return { files, origin: 'KUBECONFIG' };
  }
  return { files: [resolve(home, '.kube', 'config')], origin: 'default' };
}

/** Loads and merges the kubeconfig files. Never throws. */
export function loadKubeconfig(options: LocateOptions = {}): KubeconfigLoad {
  const location = locateKubeconfig(options);
  // kubectl ignores the missing entries of a KUBECONFIG list, but not a file named on its own.
  const present = location.files.filter((f) => existsSync(f));
  if (present.length === 0) {
    return { ok: false, location, message: `no kubeconfig at ${location.files.join(', ')}` };
  }
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  const contextFile = new Map<string, string>();
  let current: string | undefined;
  const warnings: string[] = [];
  for (const file of present) {
    const one = new KubeConfig();
    try {
      const text = readFileSync(file, 'utf8');
      if (text.trim() === '') continue;
      one.loadFromString(text);
      one.makePathsAbsolute(dirname(file));
    } catch (err) {
      return { ok: false, location, message: `kubeconfig ${file} cannot be read: ${reasonOf(err)}` };
    }
    for (const c of one.clusters ?? []) if (!clusters.some((x) => x.name === c.name)) clusters.push(c);
    for (const u of one.users ?? []) if (!users.some((x) => x.name === u.name)) users.push(u);
    for (const c of one.contexts ?? []) {
      if (!contexts.some((x) => x.name === c.name)) {
        contexts.push(c);
        contextFile.set(c.name, file);
      }
    }
    if (!current && one.currentContext) current = one.currentContext;
  }
  const config = new KubeConfig();
  config.loadFromOptions({ clusters, users, contexts, currentContext: current ?? '' });
  if (current && !contexts.some((c) => c.name === current))
    warnings.push(`current-context "${current}" is not defined in ${present.join(', ')}`);
  const infos = listContexts(config).map((c) => ({ ...c, file: contextFile.get(c.name) }));
  return { ok: true, config, location, contexts: infos, currentContext: current || undefined, warnings };
}

function listContexts(config: KubeConfig): ContextInfo[] {
  return config.getContexts().map((c) => {
    const info: ContextInfo = { name: c.name, cluster: c.cluster, user: c.user };
    if (c.namespace) info.namespace = c.namespace;
    const server = config.getCluster(c.cluster)?.server;
    if (server) info.server = server;
    return info;
  });
}

/** A copy of the config with `context` as its current context (sessions never share mutable state). */
export function configForContext(config: KubeConfig, context: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: config.clusters,
    users: config.users,
    contexts: config.contexts,
    currentContext: context,
  });
  return kc;
}

function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  // js-yaml messages carry a code excerpt; keep the first line (the reason and position) only,
  // so that a token on the offending line never reaches a message.
  return text.split('\n')[0].trim();
}

export interface KubeconfigWatcher {
  close(): void;
}

/**
 * Calls `onChange` (debounced) when one of the files is written, replaced, created or removed.
 * Watches the directories, not the files: editors and `kubectl config` replace the file by renaming,
 * which ends a watch on the file itself.
 */
export function watchKubeconfig(
  files: string[],
  onChange: () => void,
  options: { debounceMs?: number } = {},
): KubeconfigWatcher {
  const debounceMs = options.debounceMs ?? 300;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const fire = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, debounceMs);
  };
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const dir = dirname(f);
    if (!byDir.has(dir)) byDir.set(dir, new Set());
    byDir.get(dir)?.add(basename(f));
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || names.has(name.toString())) fire();
      });
      w.on('error', () => undefined);
      watchers.push(w);
    } catch {
      // A directory that does not exist: nothing to watch until it does.
    }
  }
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
