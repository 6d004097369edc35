import { getAt, pathString, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import {
  containerdHostDir,
  hostPort,
  isWildcard,
  keepsSourcePath,
  registryHost,
  repositoryPath,
  windowsPullPath,
  wmcoMirrorHost,
  wmcoMirrorOrder,
} from '../../mirrors/paths';
import type { ObjectContext, ObjectRule, Reporter, Rule } from '../types';
import { acceptedReference, MIRROR_LIST_KEY, MIRROR_PATTERN, SOURCE_PATTERN, specEntries } from '../../mirrors/spec';

const KINDS = ['ImageDigestMirrorSet', 'ImageTagMirrorSet'];

/** Image references are short by API pattern, but never trust a file: cap them in messages. */
function ref(s: string): string {
  return preview(s, 240);
}

interface Entry {
  path: Path;
  source: string | undefined;
  mirrors: { value: string; path: Path }[];
  /** The mirrors key exists (even if empty). */
  mirrorsPath: Path;
  policy: unknown;
}

/** The entries of an IDMS (`spec.imageDigestMirrors`) or ITMS (`spec.imageTagMirrors`), with their paths. */
function entriesOf(ctx: ObjectContext): Entry[] {
  const { object } = ctx;
  if (!object.apiVersion.startsWith('config.openshift.io/')) return [];
  const kind = object.kind === 'ImageDigestMirrorSet' ? 'ImageDigestMirrorSet' : 'ImageTagMirrorSet';
  const listKey = MIRROR_LIST_KEY[kind];
  // An entry the API server would reject (MIR009) is not reasoned about by the other rules.
  return specEntries(kind, getAt(object.value, ['spec']))
    .filter((e) => !e.invalid)
    .map((e) => {
      const path = [...object.path, 'spec', listKey, e.index];
      return {
        path,
        source: e.source,
        mirrors: e.mirrors.map((m) => ({ value: m.value, path: [...path, 'mirrors', m.index] })),
        mirrorsPath: [...path, 'mirrors'],
        policy: e.policy,
      };
    });
}

function objectRule(
  id: string,
  severity: ObjectRule['severity'],
  title: string,
  check: (e: Entry[], ctx: ObjectContext, report: Reporter) => void,
  meta: Pick<ObjectRule, 'apiRejects'> = {},
): ObjectRule {
  return {
    id,
    scope: 'object',
    family: 'mirrors',
    severity,
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about image mirror sets' },
    ...meta,
    title,
    kinds: KINDS,
    check(ctx, report) {
      const entries = entriesOf(ctx);
      if (entries.length > 0) check(entries, ctx, report);
    },
  };
}

const MIR001 = objectRule(
  'MIR001',
  'warning',
  'Mirror does not end with the source repository path: WMCO drops the source path, so Windows nodes pull a different repository than Linux nodes.',
  (entries, _ctx, report) => {
    for (const e of entries) {
      if (!e.source || isWildcard(e.source) || !repositoryPath(e.source)) continue;
      const source = e.source;
      for (const m of e.mirrors) {
        if (keepsSourcePath(source, m.value)) continue;
        const pulled = windowsPullPath(source, m.value);
        const fallback =
          e.policy === 'NeverContactSource'
            ? 'with NeverContactSource the pull fails'
            : `they fall back to ${ref(registryHost(source))}`;
        report({
          path: m.path,
          target: 'value',
          message: `Windows nodes pull ${ref(source)} from ${ref(pulled)}, not from this mirror, because WMCO keeps only the source registry and appends the whole image path (${fallback} if that repository is missing). If Windows nodes pull from this source, use a mirror ending in ${ref(`/${repositoryPath(source)}`)}, e.g. ${ref(pulled)}.`,
        });
      }
    }
  },
);

const MIR002 = objectRule(
  'MIR002',
  'warning',
  'Wildcard mirror source (*.example.com): WMCO writes it as an illegal NTFS directory name and containerd has no wildcard hosts, so Windows nodes get no mirror.',
  (entries, _ctx, report) => {
    for (const e of entries) {
      if (!e.source || !isWildcard(e.source)) continue;
      report({
        path: [...e.path, 'source'],
        target: 'value',
        message: `WMCO writes the mirrors of ${ref(e.source)} to a directory named ${ref(registryHost(e.source))}, which is not a legal NTFS name, and containerd has no wildcard host directories, so Windows nodes never use these mirrors. For registries Windows nodes pull from, add one entry per registry host instead of a wildcard.`,
      });
    }
  },
);

const MIR003 = objectRule(
  'MIR003',
  'warning',
  'Mirror source with a port: WMCO names the hosts.toml directory host:port, illegal on NTFS, while containerd on Windows looks for host_port_.',
  (entries, _ctx, report) => {
    for (const e of entries) {
      if (!e.source || isWildcard(e.source)) continue;
      const host = registryHost(e.source);
      if (hostPort(host) === undefined) continue;
      report({
        path: [...e.path, 'source'],
        target: 'value',
        message: `WMCO writes the mirrors of ${ref(host)} to a directory named ${ref(host)}, but ':' is not allowed in NTFS names and containerd on Windows looks for ${ref(containerdHostDir(host))}, so Windows nodes do not get these mirrors. Keep Windows images off this source, or check C:\\k\\containerd\\registries on a Windows node.`,
      });
    }
  },
);

const MIR004 = objectRule(
  'MIR004',
  'error',
  'mirrorSourcePolicy NeverContactSource without mirrors: images from the source can be pulled from nowhere.',
  (entries, _ctx, report) => {
    for (const e of entries) {
      if (e.policy !== 'NeverContactSource' || e.mirrors.length > 0) continue;
      report({
        path: [...e.path, 'mirrorSourcePolicy'],
        target: 'value',
        message: `NeverContactSource forbids pulling from ${e.source ? ref(e.source) : 'the source'} but no mirror is listed, so its images cannot be pulled at all. Add a mirror, or remove mirrorSourcePolicy.`,
      });
    }
  },
);

const MIR005 = objectRule(
  'MIR005',
  'error',
  'Duplicate mirror in one entry (rejected: mirrors is a set) or duplicate source across entries (merged, order and policy unclear).',
  (entries, ctx, report) => {
    const sources = new Map<string, Entry>();
    for (const e of entries) {
      const seen = new Map<string, Path>();
      for (const m of e.mirrors) {
        const first = seen.get(m.value);
        if (!first) {
          seen.set(m.value, m.path);
          continue;
        }
        // The API server's own words (the CRD declares mirrors a set), with the field path it prints.
        const field = pathString(m.path.slice(ctx.object.path.length));
        report({
          path: m.path,
          target: 'value',
          message: `${field}: Duplicate value: ${ref(m.value)}. mirrors is a set, so the API server rejects the ${ctx.object.kind}; remove the repeated mirror.`,
          fixes: [
            {
              title: 'Remove the duplicate mirror',
              kind: 'safe', // mirrors is a set: the same set, without the repetition the API server rejects
              ops: [{ op: 'delete', path: m.path, keep: e.path.length + 1 }],
            },
          ],
          related: [{ path: first, target: 'value', message: 'first listed here' }],
        });
      }
      if (!e.source) continue;
      const earlier = sources.get(e.source);
      if (!earlier) {
        sources.set(e.source, e);
        continue;
      }
      report({
        path: [...e.path, 'source'],
        target: 'value',
        severity: 'warning',
        message: `Source ${ref(e.source)} is listed twice; the entries are merged (and on Windows nodes WMCO re-sorts the mirrors and lets NeverContactSource win), so the resulting order and policy are not what either entry says. Put all mirrors of this source in one entry.`,
        related: [{ path: [...earlier.path, 'source'], target: 'value', message: 'first listed here' }],
      });
    }
  },
  { apiRejects: true },
);

const MIR006 = objectRule(
  'MIR006',
  'info',
  'Several mirrors not in alphabetical order: WMCO sorts mirrors alphabetically on Windows nodes, so the written priority order is lost there.',
  (entries, _ctx, report) => {
    for (const e of entries) {
      if (!e.source || isWildcard(e.source) || e.mirrors.length < 2) continue;
      const written: string[] = [];
      for (const m of e.mirrors) {
        const host = wmcoMirrorHost(e.source, m.value);
        if (!written.includes(host)) written.push(host);
      }
      const sorted = wmcoMirrorOrder(
        e.source,
        e.mirrors.map((m) => m.value),
      );
      if (written.length < 2 || written.every((h, i) => h === sorted[i])) continue;
      const never =
        e.policy === 'NeverContactSource'
          ? ` and, with NeverContactSource, ${ref(sorted[0])} also replaces the source as fallback`
          : '';
      report({
        path: e.mirrorsPath,
        message: `Windows nodes try these mirrors in alphabetical order (${sorted.map(ref).join(', ')}), not in the order written${never}, because WMCO sorts them. Order them alphabetically if the priority matters for Windows nodes.`,
      });
    }
  },
);

const MIR007: ObjectRule = {
  id: 'MIR007',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about image mirror sets' },
  scope: 'object',
  family: 'mirrors',
  severity: 'warning',
  title:
    'ImageContentSourcePolicy: WMCO reads only ImageDigestMirrorSet and ImageTagMirrorSet, so Windows nodes ignore these mirrors.',
  kinds: ['ImageContentSourcePolicy'],
  check({ object }, report) {
    if (!object.apiVersion.startsWith('operator.openshift.io/')) return;
    const list = getAt(object.value, ['spec', 'repositoryDigestMirrors']);
    if (!Array.isArray(list) || list.length === 0) return;
    report({
      path: [...object.path, 'kind'],
      target: 'value',
      message:
        'WMCO configures Windows nodes only from ImageDigestMirrorSet and ImageTagMirrorSet objects, so Windows nodes ignore the mirrors of this ImageContentSourcePolicy and pull from the sources. Convert it to an ImageDigestMirrorSet (oc adm migrate icsp).',
    });
  },
};

const MIR008 = objectRule(
  'MIR008',
  'warning',
  'Entries for different repositories of one source registry with different mirrorSourcePolicy: WMCO writes one hosts.toml per registry, so on Windows nodes one policy applies to all of them.',
  (entries, _ctx, report) => {
    // Entries grouped by source registry host, in order, as WMCO merges them (WMCO pkg/registries/registries.go
    // mergeMirrorSets).
    const groups = new Map<string, Entry[]>();
    for (const e of entries) {
      if (!e.source || isWildcard(e.source)) continue;
      const host = registryHost(e.source);
      groups.set(host, [...(groups.get(host) ?? []), e]);
    }
    for (const [host, group] of groups) {
      if (group.length < 2 || new Set(group.map((e) => e.source)).size < 2) continue;
      // WMCO: the first entry's policy, replaced only while it is AllowContactingSource.
      let effective: unknown = group[0].policy ?? '';
      let decidedBy = group[0];
      for (const e of group.slice(1)) {
        if (effective === 'AllowContactingSource') {
          effective = e.policy ?? '';
          decidedBy = e;
        }
      }
      const never = effective === 'NeverContactSource';
      for (const e of group) {
        const own = e.policy === 'NeverContactSource';
        if (own === never || e.source === decidedBy.source) continue;
        const related = [
          {
            path: [...decidedBy.path, 'source'],
            target: 'value' as const,
            message: never ? 'NeverContactSource comes from this entry' : 'this entry decides the policy',
          },
        ];
        report({
          path: [...e.path, 'source'],
          target: 'value',
          related,
          message: never
            ? `On Windows nodes ${ref(e.source ?? '')} also never contacts ${ref(host)}: WMCO writes one hosts.toml per source registry, so the NeverContactSource of ${ref(decidedBy.source ?? '')} applies to every image of ${ref(host)}, and images on no mirror cannot be pulled there. Give these sources the same mirrorSourcePolicy, or move one to its own registry mirror set if Windows nodes pull from it.`
            : `WMCO ignores this NeverContactSource on Windows nodes: it writes one hosts.toml for ${ref(host)} and keeps the policy of the earlier entry ${ref(decidedBy.source ?? '')}${decidedBy.policy === undefined ? ', which sets none' : ''}, so Windows nodes still contact ${ref(host)}. Set mirrorSourcePolicy: NeverContactSource on every entry of ${ref(host)} (or AllowContactingSource on the earlier ones) if Windows nodes must not contact it.`,
        });
      }
    }
  },
);

const MIR009: ObjectRule = {
  id: 'MIR009',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about image mirror sets' },
  scope: 'object',
  family: 'mirrors',
  severity: 'error',
  apiRejects: true,
  title:
    'Mirror source or mirror that the API server rejects (not a registry host with an optional port and a lowercase repository path).',
  kinds: KINDS,
  check(ctx, report) {
    const { object } = ctx;
    if (!object.apiVersion.startsWith('config.openshift.io/')) return;
    const listKey =
      MIRROR_LIST_KEY[object.kind === 'ImageDigestMirrorSet' ? 'ImageDigestMirrorSet' : 'ImageTagMirrorSet'];
    const list = getAt(object.value, ['spec', listKey]);
    if (!Array.isArray(list)) return;
    const invalid = (path: Path, value: unknown, field: 'source' | 'mirror') => {
      if (typeof value !== 'string' || acceptedReference(value, field)) return;
      // The API server's own words (the CRD's pattern), with the field path it prints.
      const where = pathString(path.slice(object.path.length));
      const pattern = field === 'source' ? SOURCE_PATTERN : MIRROR_PATTERN;
      report({
        path,
        target: 'value',
        message: `${where}: Invalid value: ${JSON.stringify(value)}: ${where} in body should match '${pattern}'. The API server rejects the ${object.kind}: a ${field} is a registry host with an optional :port, then a lowercase repository path${field === 'source' ? ' (or a *.domain wildcard)' : ''}; spaces, "..", quotes and "$(" are refused. Until it is fixed no other mirror rule reads this entry.`,
      });
    };
    list.forEach((item, i) => {
      const base = [...object.path, 'spec', listKey, i];
      invalid([...base, 'source'], getAt(item, ['source']), 'source');
      const mirrors = getAt(item, ['mirrors']);
      if (Array.isArray(mirrors)) mirrors.forEach((m, j) => invalid([...base, 'mirrors', j], m, 'mirror'));
    });
  },
};

export const mirrorRules: Rule[] = [MIR001, MIR002, MIR003, MIR004, MIR005, MIR006, MIR007, MIR008, MIR009];
