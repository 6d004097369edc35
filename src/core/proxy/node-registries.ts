// The registries a Windows node of an OpenShift cluster pulls from, for the join preflights: the
// pause image WMCO's containerd configuration names (every pod needs it), the registry of the
// OpenShift release payload (ClusterVersion status.desired.image), and every mirror the cluster's
// ImageDigestMirrorSets, ImageTagMirrorSets and ImageContentSourcePolicies point at (WMCO renders
// them into containerd's hosts.toml). A source that a NeverContactSource entry mirrors is not
// contacted, so its registry is left out for the images that need it. Pure.
import { knownPolicy, specEntries, type MirrorKind } from '../mirrors/spec';
import { bypassesProxy } from './no-proxy';
import { registryOf } from './reach';

/** The sandbox image of WMCO's containerd_conf.toml (reference/wmco-join-and-mirrors.md). */
export const WMCO_PAUSE_IMAGE = 'mcr.microsoft.com/oss/kubernetes/pause:3.9';

export interface MirrorSetInput {
  kind: MirrorKind;
  name: string;
  spec: unknown;
}

/** One registry host and why the node pulls from it. */
export interface NodeRegistry {
  host: string;
  why: string;
}

/** A mirror's registry: its first part (a mirror names a repository or a bare registry, never a tag). */
const mirrorHost = (mirror: string): string => mirror.split('/')[0] as string;

/** Whether a mirror entry's source covers an image (a repository or a registry prefix, at a path boundary). */
function covers(source: string, image: string): boolean {
  const repo = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  if (source.startsWith('*.')) return registryOf(repo).endsWith(source.slice(1));
  return repo === source || repo.startsWith(`${source}/`);
}

/** The registries a Windows node pulls from, each once, in the order above. */
export function nodeRegistries(i: { releaseImage?: string; mirrorSets: readonly MirrorSetInput[] }): NodeRegistry[] {
  const entries = i.mirrorSets.flatMap((set) =>
    specEntries(set.kind, set.spec).flatMap((e) =>
      e.source === undefined ? [] : [{ set, source: e.source, mirrors: e.mirrors.map((m) => m.value), e }],
    ),
  );
  const needed = [
    { image: WMCO_PAUSE_IMAGE, why: `the pause image ${WMCO_PAUSE_IMAGE}, which every pod needs` },
    ...(i.releaseImage ? [{ image: i.releaseImage, why: 'the OpenShift release payload' }] : []),
  ];
  const out: NodeRegistry[] = [];
  for (const n of needed) {
    const never = entries.some((x) => covers(x.source, n.image) && knownPolicy(x.e.policy) === 'NeverContactSource');
    if (!never) out.push({ host: registryOf(n.image), why: n.why });
  }
  for (const x of entries)
    for (const m of x.mirrors)
      out.push({ host: mirrorHost(m), why: `mirror of ${x.source} (${x.set.kind} ${x.set.name})` });
  const seen = new Map<string, NodeRegistry>();
  for (const r of out) {
    const had = seen.get(r.host);
    if (had) had.why = `${had.why}; ${r.why}`;
    else seen.set(r.host, { ...r });
  }
  return [...seen.values()];
}

/** The registries split by NO_PROXY: those pulled through the proxy and those reached directly. */
export function splitByNoProxy(
  registries: readonly NodeRegistry[],
  noProxy: string | undefined,
): { through: NodeRegistry[]; direct: NodeRegistry[] } {
  const direct = registries.filter((r) => bypassesProxy(r.host.replace(/:\d+$/, ''), noProxy));
  return { through: registries.filter((r) => !direct.includes(r)), direct };
}
