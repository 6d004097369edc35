// When kube-windows last saw a node's proxy settings equal to its cluster's: WMCO reconciles drift
// periodically, so how long a node has been off is what a reader needs. Kept per context and node
// in a small JSON file under the user's state folder, shared by the CLI and VS Code.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

function proxySeenPath(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'kube-windows', 'proxy-seen.json');
}

function load(path: string): Record<string, string> {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/**
 * Records what was seen now and answers when the settings were last seen equal (now, when equal).
 * A file that cannot be written only loses the memory, never the answer.
 */
export function recordProxySeen(
  key: { context: string; node: string },
  equal: boolean,
  now = new Date(),
  path = proxySeenPath(),
): string | undefined {
  const all = load(path);
  const k = `${key.context}/${key.node}`;
  if (!equal) return all[k];
  all[k] = now.toISOString();
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, JSON.stringify(all, null, 1));
    renameSync(`${path}.tmp`, path);
  } catch {
    // read-only home: the next reading says "never seen equal", which is honest
  }
  return all[k];
}
