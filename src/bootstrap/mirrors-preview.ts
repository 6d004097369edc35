// What the mirror commands show a person: the preview as a Markdown document (the rendered tree, each hosts.toml as
// a fenced TOML block, each node's changes as a fenced diff), which case the cluster is (WMCO renders the files
// from ImageDigestMirrorSet / ImageTagMirrorSet, or kube-windows pushes hosts.toml itself), and after an apply what
// it did and what to do about drift. Pure wording over the outcome of mirrors-apply.ts.
import { diffSummary, type MirrorsOutcome, type NodeResult } from './mirrors-apply';
import { LAYOUT, WMCO_REGISTRY_DIR } from '../core/windows/layout';
import { counted } from '../core/plural';

/** Credentials never reach a preview: the header value is masked (files on nodes keep it). */
const maskAuth = (text: string) => text.replace(/(authorization\s*=\s*"Basic )[^"]*"/g, '$1•••"');

/** A fence longer than any backtick run in the text, so that no content can close it early. */
function fenced(language: string, text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, text.trimEnd(), fence];
}

/** Which case a cluster is, in one sentence: who writes the nodes' hosts.toml and what applying does. */
export function mirrorsCase(wmco: boolean): string {
  return wmco
    ? `OpenShift with WMCO: WMCO writes each Windows node's ${WMCO_REGISTRY_DIR} from the cluster's ImageDigestMirrorSets / ImageTagMirrorSets. Applying creates or updates those objects through the API; kube-windows writes no file on the nodes, and then checks that WMCO converged.`
    : `No WMCO: kube-windows owns each Windows node's ${LAYOUT.registryHosts}. Applying pushes the rendered hosts.toml tree to every node over SSH (the previous tree kept as certs.d.kw-backup) and points containerd at it.`;
}

/** The preview document (Markdown): the case, the tree, each file, then what each node would change. */
export function mirrorsPreviewMarkdown(out: MirrorsOutcome, heading: string): string {
  const root = out.wmco ? WMCO_REGISTRY_DIR : LAYOUT.registryHosts;
  const tree = [`${root}\\`];
  out.render.files.forEach((f, i) =>
    tree.push(`${i === out.render.files.length - 1 ? '└──' : '├──'} ${f.dir}\\hosts.toml`),
  );
  if (out.render.files.length === 0) tree.push('    (no files: no mirror sets)');
  const lines = [
    `# ${heading}`,
    '',
    `Rendering mode: \`${out.mode}\`. ${mirrorsCase(out.wmco)}`,
    '',
    ...fenced('text', tree.join('\n')),
  ];
  for (const r of out.render.refused) lines.push('', `> **Refused** \`${r.source}\`: ${r.message}`);
  for (const f of out.render.files)
    lines.push('', `## \`${f.dir}\\hosts.toml\``, '', ...fenced('toml', maskAuth(f.content) || '# (empty)'));
  if (out.nodes.length > 0) lines.push('', '## Nodes');
  for (const n of out.nodes) {
    const state = n.diff ? (n.diff.changes.length === 0 ? 'up to date' : diffSummary(n.diff)) : n.status;
    lines.push('', `### ${n.node} (${n.address || 'no address'}): ${state}${n.reason ? ` — ${n.reason}` : ''}`);
    for (const c of n.diff?.changes ?? []) {
      lines.push('', `${c.change} \`${c.path}\``);
      if (c.diff) lines.push('', ...fenced('diff', maskAuth(c.diff)));
    }
  }
  return lines.join('\n') + '\n';
}

export interface ApplySummary {
  /** One sentence: what changed. */
  text: string;
  /** What to do next (drift, failures), or '' when there is nothing to do. */
  advice: string;
  /** Whether something needs the user's attention. */
  attention: boolean;
}

/** What an apply did, and what to do about drift or failures. */
export function mirrorsApplySummary(out: MirrorsOutcome): ApplySummary {
  const count = (s: NodeResult['status']) => out.nodes.filter((n) => n.status === s).length;
  const changedSets = out.objects.filter((o) => o.action === 'created' || o.action === 'updated').length;
  const drift = count('drift');
  const failed = count('failed');
  const skipped = count('skipped');
  const advice: string[] = [];
  let text: string;
  if (out.wmco) {
    text = `${counted(changedSets, 'mirror set')} changed; ${counted(count('converged'), 'node')} converged, ${drift} drifting`;
    if (drift > 0)
      advice.push(
        `WMCO has not written what the mirror sets say on ${counted(drift, 'node')} yet: it reconciles on its own, so run Preview mirror config in a few minutes to see what still differs; if it stays, read WMCO's log (openshift-windows-machine-config-operator namespace). Do not edit ${WMCO_REGISTRY_DIR} by hand: WMCO overwrites it.`,
      );
    if (skipped > 0)
      advice.push(`${counted(skipped, 'node')} not read (no SSH key): convergence there is not verified.`);
  } else {
    text = `${counted(count('changed'), 'node')} changed, ${count('unchanged')} unchanged, ${failed} failed`;
    if (skipped > 0 && out.render.refused.length === 0)
      advice.push(`${counted(skipped, 'node')} not reached (no SSH key): they keep their old mirrors.`);
    advice.push(
      `kube-windows does not watch the nodes: a hosts.toml edited by hand, or a node joined later, drifts from the mirror sets; Preview mirror config shows the drift and Apply mirror config again repairs it (nodes already up to date are left alone).`,
    );
  }
  if (failed > 0)
    advice.unshift(
      `${counted(failed, 'node')} failed and kept ${failed === 1 ? 'its' : 'their'} previous tree: fix the cause in the log and apply again.`,
    );
  if (out.render.refused.length > 0)
    advice.unshift(
      `${counted(out.render.refused.length, 'source')} refused by the renderer (see the log): nothing was pushed.`,
    );
  const attention = failed + drift + (out.wmco ? 0 : skipped) + out.render.refused.length > 0;
  return { text, advice: advice.join(' '), attention };
}
