// What the mirror ops of src/core/windows/mirror-ops.ts do to the simulated Windows machine, step
// for step as their PowerShell bodies: same checks, same order, same results and messages.
// Registered for its side effect (imported by test/support/windows-host-sim.ts).
import { OpError, registerSimOp } from './ops';
import type { PsLiteral } from './script';
import { leafOf, normalisePath, parentOf, sha256, SimFs, type SimHostState } from './state';

const str = (p: Record<string, PsLiteral>, name: string): string => {
  const v = p[name];
  if (typeof v !== 'string')
    throw new OpError(`The variable '$${name}' cannot be retrieved because it has not been set.`);
  return v;
};
const strArray = (p: Record<string, PsLiteral>, name: string): string[] => {
  const v = p[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
};

/** Files under a directory (recursive), as [relative path, full path]. */
function filesUnder(state: SimHostState, dir: string): [string, string][] {
  const base = normalisePath(dir).toLowerCase() + '\\';
  const out: [string, string][] = [];
  for (const [k, f] of state.files)
    if (k.startsWith(base)) out.push([normalisePath(f.path).slice(base.length), f.path]);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** [IO.Directory]::Move: fails when the destination exists or the source is missing; moves the whole subtree. */
export function moveDirectory(state: SimHostState, from: string, to: string): void {
  const fs = new SimFs(state);
  if (!fs.isDir(from)) throw new OpError(`Could not find a part of the path '${normalisePath(from)}'.`);
  if (fs.exists(to))
    throw new OpError(
      `Cannot create '${normalisePath(to)}' because a file or directory with the same name already exists.`,
    );
  const parent = parentOf(to);
  if (parent === undefined || !fs.isDir(parent))
    throw new OpError(`Could not find a part of the path '${normalisePath(to)}'.`);
  const src = normalisePath(from);
  const dst = normalisePath(to);
  const srcKey = src.toLowerCase();
  const under = (k: string) => k === srcKey || k.startsWith(srcKey + '\\');
  const rebase = (p: string) => dst + normalisePath(p).slice(src.length);
  for (const [k, path] of [...state.directories]) {
    if (!under(k)) continue;
    state.directories.delete(k);
    const n = rebase(path);
    state.directories.set(n.toLowerCase(), n);
  }
  for (const [k, f] of [...state.files]) {
    if (!under(k)) continue;
    state.files.delete(k);
    const n = rebase(f.path);
    state.files.set(n.toLowerCase(), { path: n, data: f.data });
  }
}

function treeProblem(state: SimHostState, dir: string, files: string[], hashes: string[]): string {
  const found = new Map(filesUnder(state, dir).map(([rel, full]) => [rel.toLowerCase(), full]));
  if (found.size !== files.length) return `it holds ${found.size} files, expected ${files.length}`;
  const fs = new SimFs(state);
  for (let i = 0; i < files.length; i++) {
    const full = found.get(files[i]!.toLowerCase());
    if (!full) return `${files[i]} is missing`;
    const h = sha256(fs.read(full));
    if (h !== hashes[i]) return `${files[i]} has SHA-256 ${h}, expected ${hashes[i]}`;
  }
  return '';
}

registerSimOp('read-hosts-tree', ({ state }, fs, p) => {
  const root = str(p, 'Root');
  const max = Number(p.MaxContent);
  if (!fs.isDir(root)) return { exists: false, files: [] };
  const files = filesUnder(state, root).map(([rel, full]) => {
    const data = fs.read(full);
    return {
      path: rel,
      size: data.length,
      content: data.length <= max ? data.toString('base64') : null,
      sha256: sha256(data),
    };
  });
  return { exists: true, files };
});

registerSimOp('swap-hosts-tree', ({ state }, fs, p) => {
  const root = str(p, 'Root');
  const staging = str(p, 'Staging');
  const backup = str(p, 'Backup');
  const marker = str(p, 'Marker');
  const id = str(p, 'Id');
  const files = strArray(p, 'Files');
  const hashes = strArray(p, 'Hashes');
  if (!fs.isDir(staging)) {
    if (fs.isDir(root) && treeProblem(state, root, files, hashes) === '')
      return { swapped: false, already: true, previous: false };
    throw new OpError(`The staging directory ${staging} is missing; ${root} was left as it was.`);
  }
  const problem = treeProblem(state, staging, files, hashes);
  if (problem)
    throw new OpError(
      `The staged mirror configuration in ${staging} does not match what was sent (${problem}); ${root} was left as it was.`,
    );
  if (fs.exists(backup)) fs.remove(backup);
  const had = fs.isDir(root);
  fs.write(marker, Buffer.from(`${id} ${had ? 'previous' : 'absent'}`));
  if (had) moveDirectory(state, root, backup);
  try {
    moveDirectory(state, staging, root);
  } catch (e) {
    if (had) moveDirectory(state, backup, root);
    fs.remove(marker);
    throw e;
  }
  return { swapped: true, already: false, previous: had };
});

registerSimOp('rollback-hosts-tree', ({ state }, fs, p) => {
  const root = str(p, 'Root');
  const backup = str(p, 'Backup');
  const marker = str(p, 'Marker');
  const discard = str(p, 'Discard');
  const id = str(p, 'Id');
  if (!fs.isFile(marker)) return { restored: false };
  const words = fs.read(marker).toString('utf8').trim().split(' ');
  if (words[0] !== id) return { restored: false };
  let restored = false;
  if (words[1] === 'previous') {
    if (fs.isDir(backup)) {
      if (fs.exists(root)) moveDirectory(state, root, discard);
      moveDirectory(state, backup, root);
      restored = true;
    }
  } else if (fs.exists(root)) {
    moveDirectory(state, root, discard);
    restored = true;
  }
  if (fs.exists(discard)) fs.remove(discard);
  fs.remove(marker);
  return { restored };
});

registerSimOp('clear-hosts-staging', (_ctx, fs, p) => {
  const root = str(p, 'Root');
  const parent = parentOf(root);
  const leaf = leafOf(root);
  const removed: string[] = [];
  if (parent && fs.isDir(parent)) {
    for (const c of fs.children(parent)) {
      if (c.directory && (c.name.startsWith(`${leaf}.kw-staging-`) || c.name.startsWith(`${leaf}.kw-discard-`))) {
        fs.remove(c.path);
        removed.push(c.name);
      }
    }
  }
  return { removed };
});

registerSimOp('ensure-config-path', ({ state }, fs, p) => {
  const config = str(p, 'Config');
  const dir = str(p, 'Dir');
  const service = str(p, 'Service');
  if (!fs.isFile(config))
    throw new OpError(
      `containerd has no configuration file at ${config}; install containerd first (kube-windows join does), or set its registry config_path to ${dir}.`,
    );
  const text = fs.read(config).toString('utf8');
  const quoted = '"' + dir.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const literal = `'${dir}'`;
  const pattern = /^([ \t]*)config_path[ \t]*=[ \t]*(.*?)[ \t]*\r?$/gm;
  const found = [...text.matchAll(pattern)];
  const previous = found.map((m) => m[2]!);
  const stale = previous.filter((v) => v !== quoted && v !== literal);
  if (found.length > 0 && stale.length === 0) return { changed: false, restarted: false, previous };
  // [Environment]::NewLine on Windows, and CRLF files keep CRLF.
  const nl = '\r\n';
  let next: string;
  if (found.length > 0) {
    next = text.replace(pattern, (_m, indent: string) => `${indent}config_path = ${quoted}`);
  } else {
    const v3 = /^[ \t]*version[ \t]*=[ \t]*3/m.test(text);
    const header = v3
      ? "[plugins.'io.containerd.cri.v1.images'.registry]"
      : '[plugins."io.containerd.grpc.v1.cri".registry]';
    const at = text.indexOf(header);
    if (at >= 0) {
      const end = text.indexOf(nl, at);
      next =
        end < 0
          ? `${text}${nl}  config_path = ${quoted}${nl}`
          : `${text.slice(0, end + nl.length)}  config_path = ${quoted}${nl}${text.slice(end + nl.length)}`;
    } else {
      next = `${text.trimEnd()}${nl}${nl}${header}${nl}  config_path = ${quoted}${nl}`;
    }
  }
  const temp = `${config}.kw-config.tmp`;
  fs.write(temp, Buffer.from(next, 'utf8'));
  fs.move(temp, config);
  let restarted = false;
  const svc = [...state.services].find(([n]) => n.toLowerCase() === service.toLowerCase());
  if (svc) {
    svc[1].status = 'Running';
    restarted = true;
  }
  return { changed: true, restarted, previous };
});

/** The tree under a directory as relative path → content (test helper). */
export function simTree(state: SimHostState, dir: string): Map<string, string> {
  const fs = new SimFs(state);
  return new Map(filesUnder(state, dir).map(([rel, full]) => [rel, fs.read(full).toString('utf8')]));
}
