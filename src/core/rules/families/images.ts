import { getAt, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { ContainerView, PodSpecView } from '../../manifest/workloads';
import {
  buildByNumber,
  dockerHubMicrosoftSuccessor,
  imageBuild,
  isImageCompatible,
  linuxOnlyImage,
  parseBuildLabel,
  parseImage,
  retagForBuild,
  windowsImageEvidence,
  WINDOWS_BUILDS,
} from '../../windows/builds';
import { factOrigin, handlerFamily, type Facts } from '../facts';
import { hostProcessInfo, inferredFrom, isSet } from '../helpers';
import { type Targeting } from '../targeting';
import { BUILD_LABEL } from '../../well-known';
import type { FixSpec, PodRule } from '../types';

/** Containers with an image that names a Windows build, HostProcess ones left out (no version coupling). */
function buildImages(pod: PodSpecView): { c: ContainerView; image: string; build: number; token: string }[] {
  const out: { c: ContainerView; image: string; build: number; token: string }[] = [];
  const hostProcess = hostProcessInfo(pod);
  for (const c of pod.containers) {
    if (!c.image || hostProcess.is(c)) continue;
    const named = imageBuild(parseImage(c.image));
    if (named) out.push({ c, image: c.image, build: named.build, token: named.token });
  }
  return out;
}

/** A node build that can run an image build (containerd's process-isolation rule; major.minor must be 10.0). */
function runs(host: { major: number; minor: number; build: number }, image: number): boolean {
  return host.major === 10 && host.minor === 0 && isImageCompatible(host.build, image);
}

function label(build: number): string {
  return `10.0.${build}`;
}

function pinText(pin: Targeting['builds'][number], facts: Facts): string {
  if (pin.via === 'runtime-class') {
    const rc = facts.runtimeClasses.get(pin.runtimeClass ?? '');
    const at = rc?.origin ? `, defined in ${rc.origin.file}:${rc.origin.line}` : '';
    return `RuntimeClass ${preview(pin.runtimeClass ?? '')}${at}`;
  }
  return pin.via === 'node-selector' ? `nodeSelector ${BUILD_LABEL}` : `required node affinity on ${BUILD_LABEL}`;
}

function retagFix(image: string, build: number, path: Path): FixSpec[] {
  // The Docker Hub microsoft/* repositories are frozen: a newer tag would not exist there.
  if (dockerHubMicrosoftSuccessor(image)) return [];
  const next = retagForBuild(image, build);
  if (!next || next === image.trim()) return [];
  return [{ title: `Retag to ${preview(next, 80)}`, kind: 'rewrite', ops: [{ op: 'set', path, value: next }] }];
}

const WIN080: PodRule = {
  id: 'WIN080',
  admission: { enforceable: false, why: 'node-facts', detail: 'needs the Windows builds of the pinned nodes' },
  scope: 'pod',
  family: 'images',
  severity: 'error',
  title:
    'Image built for a Windows version the pinned nodes (windows-build selector, RuntimeClass or cluster) cannot run.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    const pins = target.builds.flatMap((p) => {
      const parsed = parseBuildLabel(p.value);
      return parsed ? [{ pin: p, host: parsed }] : [];
    });
    const cluster = facts.cluster;
    for (const { c, image, build, token } of buildImages(pod)) {
      const path = [...c.path, 'image'];
      if (pins.length > 0) {
        const bad = pins.filter((p) => !runs(p.host, build));
        if (bad.length === 0) continue;
        const first = bad[0];
        const fixes =
          bad.every((b) => b.host.build === first.host.build) && first.host.major === 10
            ? retagFix(image, first.host.build, path)
            : [];
        report({
          path,
          target: 'value',
          message: `Image ${preview(image)} is built for Windows ${label(build)} (${token}) but the pod is pinned to ${first.pin.value} by ${pinText(first.pin, facts)}; process-isolated containers need a compatible host build, so it fails with "The container operating system does not match the host operating system". Use an image tag for ${first.pin.value}.`,
          related: bad.map((b) => ({
            path: b.pin.path,
            target: 'value' as const,
            message: `pins node.kubernetes.io/windows-build ${b.pin.value}`,
          })),
          fixes,
        });
        continue;
      }
      if (!cluster || cluster.windowsNodes.length === 0 || isSet(pod.spec, 'nodeName')) continue;
      const hosts = new Map<string, { major: number; minor: number; build: number }>();
      for (const n of cluster.windowsNodes) {
        const parsed = parseBuildLabel(n.build);
        if (parsed) hosts.set(n.build, parsed);
      }
      if (hosts.size === 0 || [...hosts.values()].some((h) => runs(h, build))) continue;
      const targets = [...hosts.values()]
        .filter((h) => h.major === 10 && h.minor === 0)
        .map((h) => h.build)
        .sort((a, b) => b - a);
      report({
        path,
        target: 'value',
        message: `No Windows node in cluster ${preview(cluster.name)} runs ${label(build)} (${token}) images; its nodes run ${[...hosts.keys()].sort().join(', ')}. The container would fail with "The container operating system does not match the host operating system"; use a tag for the nodes' build.`,
        fixes: targets.flatMap((b) => retagFix(image, b, path)),
      });
    }
  },
};

/** The one build a pod is pinned to, when all its pins agree on a supported build. */
function singlePin(target: Targeting): number | undefined {
  const builds = new Set(
    target.builds
      .map((p) => parseBuildLabel(p.value))
      .map((p) => (p && p.major === 10 && p.minor === 0 ? p.build : -1)),
  );
  if (builds.size !== 1) return undefined;
  const b = [...builds][0];
  return b > 0 ? b : undefined;
}

/**
 * Whether any Windows Server build a Kubernetes node may run today (2019 and later, in support) can
 * run an image of this build with process isolation: none can for 2016 and the retired semi-annual ones.
 */
function someSupportedNodeRuns(image: number): boolean {
  return WINDOWS_BUILDS.some(
    (host) => !host.eol && host.build >= MIN_NODE_BUILD && isImageCompatible(host.build, image),
  );
}

/** Windows Server 2019: the oldest Windows node Kubernetes supports. */
const MIN_NODE_BUILD = 17763;

const WIN081: PodRule = {
  id: 'WIN081',
  admission: {
    enforceable: false,
    why: 'not-generated',
    detail:
      "decidable from the object alone (each image's tag build against the builds table, the retired microsoft/* repositories and their successors, the HostProcess exemption), but its validation is not written yet",
  },
  scope: 'pod',
  family: 'images',
  severity: 'error',
  title:
    'Image of a Windows release no supported node can run (Windows Server 2016 / ltsc2016, the semi-annual 1709 … 20H2), in any repository; or from the retired Docker Hub microsoft/* repositories.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const pinned = singlePin(target);
    const hostProcess = hostProcessInfo(pod);
    for (const c of pod.containers) {
      if (!c.image) continue;
      const named = imageBuild(parseImage(c.image));
      const b = named ? buildByNumber(named.build) : undefined;
      // A HostProcess container runs on the host, whatever build its image names.
      const unrunnable = !!b && b.eol && !someSupportedNodeRuns(b.build) && !hostProcess.is(c);
      const successor = dockerHubMicrosoftSuccessor(c.image);
      if (!unrunnable && !successor) continue;
      const release = b ? `${b.name.replace(/ \(SAC\)$/, '')}, build ${label(b.build)}` : '';
      const what = b?.ltsc ? 'an end-of-life release' : 'an end-of-life semi-annual release';
      const moved = `Microsoft images moved to mcr.microsoft.com (${successor})`;
      const never = `no supported Windows Server node (2019 and later) can run it: process isolation needs the node's build to match, so the container can never start ("The container operating system does not match the host operating system")`;
      const message = !successor
        ? `Image ${preview(c.image)} is for ${release}, ${what}: ${never}. Use an LTSC tag that matches your nodes (ltsc2019/1809, ltsc2022 or ltsc2025).`
        : unrunnable
          ? `Image ${preview(c.image)} comes from the retired Docker Hub microsoft/* repositories and is for ${release}, ${what}: ${never}. ${moved}; use an LTSC tag that matches your nodes.`
          : `Image ${preview(c.image)} comes from the retired Docker Hub microsoft/* repositories, which get no updates. ${moved}.`;
      const path = [...c.path, 'image'];
      report({
        path,
        target: 'value',
        // Retired but runnable (a microsoft/* image of a supported build): a warning; unrunnable: an error.
        ...(unrunnable ? {} : { severity: 'warning' as const }),
        message,
        fixes: unrunnable && !successor && pinned && !buildByNumber(pinned)?.eol ? retagFix(c.image, pinned, path) : [],
      });
    }
  },
};

const WIN082: PodRule = {
  id: 'WIN082',
  admission: { enforceable: false, why: 'advice' },
  scope: 'pod',
  family: 'images',
  severity: 'info',
  title:
    'Windows images name a build but nothing pins node.kubernetes.io/windows-build, in a cluster with several Windows versions (from the cluster or the RuntimeClasses checked).',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows' || isSet(pod.spec, 'nodeName')) return;
    if (target.builds.length > 0 || target.evidence.some((e) => e.signal === 'windows-build')) return;
    const images = buildImages(pod);
    if (images.length === 0) return;
    const newest = Math.max(...images.map((i) => i.build));
    const pinTo = images.every((i) => isImageCompatible(newest, i.build)) ? newest : undefined;
    const first = images[0];
    let context = 'with nodes of several Windows Server versions it may land on one that cannot run it';
    const cluster = facts.cluster;
    if (!cluster || cluster.windowsNodes.length === 0) {
      // Without a cluster, speak only when the checked files show several Windows builds
      // (RuntimeClasses pinning different builds): otherwise every unpinned pod would get a notice.
      const pinning = [...facts.runtimeClasses.values()].filter((rc) => rc.windows && rc.build);
      const pinned = new Set(pinning.map((rc) => rc.build));
      if (pinned.size < 2) return;
      const where = pinning
        .filter((rc) => rc.origin)
        .map((rc) => `${rc.name} in ${rc.origin?.file}:${rc.origin?.line}`)
        .slice(0, 3);
      context = `the RuntimeClasses here pin Windows ${[...pinned].sort().join(' and ')}${where.length > 0 ? ` (${where.join(', ')})` : ''}, so the cluster has nodes of several versions`;
    } else {
      const hosts = [...new Set(cluster.windowsNodes.map((n) => n.build))].sort();
      if (hosts.length < 2) return;
      const parsed = hosts.map(parseBuildLabel);
      const canRun = (i: (typeof images)[number]) => parsed.map((h) => !!h && runs(h, i.build));
      // Only when the choice matters: some node runs the images and some node does not (WIN080 covers "none").
      const fit = parsed.map((_, hi) => images.every((i) => canRun(i)[hi]));
      if (!fit.some(Boolean) || fit.every(Boolean)) return;
      context = `cluster ${preview(cluster.name)} runs Windows ${hosts.join(' and ')}, and only some of those nodes can run it`;
    }
    report({
      path: [...first.c.path, 'image'],
      target: 'value',
      message: `Image ${preview(first.image)} is built for Windows ${label(first.build)} (${first.token}) but nothing pins the pod to nodes of that build; ${context}. Add nodeSelector ${BUILD_LABEL}${pinTo ? `: ${label(pinTo)}` : ''} or use a RuntimeClass that pins it.`,
      fixes: pinTo
        ? [
            {
              title: `Add nodeSelector ${BUILD_LABEL}: ${label(pinTo)}`,
              kind: 'rewrite',
              ops: [{ op: 'set', path: [...pod.path, 'nodeSelector', BUILD_LABEL], value: label(pinTo) }],
            },
          ]
        : [],
    });
  },
};

const HYPERV_ANNOTATION = 'experimental.windows.kubernetes.io/isolation-type';

const WIN083: PodRule = {
  id: 'WIN083',
  admission: { enforceable: false, why: 'other-object', detail: 'a Hyper-V RuntimeClass is another object' },
  scope: 'pod',
  family: 'images',
  severity: 'warning',
  title:
    'Hyper-V isolation (legacy isolation-type annotation, or a RuntimeClass of the runhcs-wcow-hypervisor family, build suffixes included): Kubernetes does not support Hyper-V isolated Windows containers.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    const annotations = getAt(pod.metadata, ['annotations']);
    const value = getAt(annotations, [HYPERV_ANNOTATION]);
    if (typeof value === 'string' && value.toLowerCase() === 'hyperv') {
      const path = [...pod.metadataPath, 'annotations', HYPERV_ANNOTATION];
      report({
        path,
        message: `Annotation ${HYPERV_ANNOTATION}: hyperv is a retired dockershim-era experiment: Kubernetes supports only process-isolated Windows containers, so it has no effect. Remove it and use an image built for the node's Windows version.`,
        fixes: [
          {
            title: `Remove ${HYPERV_ANNOTATION}`,
            kind: 'safe',
            ops: [{ op: 'delete', path, keep: pod.metadataPath.length }],
          },
        ],
      });
    }
    const name = pod.spec.runtimeClassName;
    const rc = typeof name === 'string' ? facts.runtimeClasses.get(name) : undefined;
    const family = rc ? handlerFamily(rc.handler) : undefined;
    if (rc && family?.family === 'hypervisor') {
      // A suffix names the build of the utility VM (runhcs-wcow-hypervisor-17763, -1903): still Hyper-V.
      // The family's pattern allows only [a-z0-9._-] in the suffix: shown as written.
      const vm = family.suffix ? `, a utility VM for build ${family.suffix.slice(0, 20)}` : '';
      report({
        path: [...pod.path, 'runtimeClassName'],
        target: 'value',
        message: `RuntimeClass ${preview(rc.name)} uses handler ${preview(rc.handler, 60)} (Hyper-V isolation${vm}), which Kubernetes does not support for Windows containers; it needs a specially configured containerd and is experimental. Use a process-isolation RuntimeClass (handler runhcs-wcow-process).${factOrigin(rc)}`,
      });
    }
  },
};

/** Containers whose image is Windows by repository or tag, and those known to be Linux-only. */
function splitImages(pod: PodSpecView) {
  const windows: ContainerView[] = [];
  const linux: { c: ContainerView; why: string }[] = [];
  for (const c of pod.containers) {
    if (!c.image) continue;
    if (windowsImageEvidence(c.image)) windows.push(c);
    else {
      const why = linuxOnlyImage(c.image);
      if (why) linux.push({ c, why });
    }
  }
  return { windows, linux };
}

const WIN084: PodRule = {
  id: 'WIN084',
  admission: {
    enforceable: false,
    why: 'image-os',
    detail: "an image's OS is the registry's to say; check knows only a short list of Linux-only names",
  },
  scope: 'pod',
  family: 'images',
  severity: 'error',
  title: 'One pod mixes Windows images with Linux-only images: Windows and Linux containers cannot share a pod.',
  check({ pod }, report) {
    const { windows, linux } = splitImages(pod);
    if (windows.length === 0 || linux.length === 0) return;
    const win = windows[0];
    for (const { c, why } of linux) {
      report({
        path: [...c.path, 'image'],
        target: 'value',
        message: `Image ${preview(c.image)} is Linux-only (${why}) but this pod also runs the Windows image ${preview(win.image)}: Windows and Linux containers cannot be deployed in the same pod, so one of them can never start. Move the Linux container to its own pod.`,
        related: [{ path: [...win.path, 'image'], target: 'value', message: 'Windows image' }],
      });
    }
  },
};

const WIN085: PodRule = {
  id: 'WIN085',
  admission: {
    enforceable: false,
    why: 'image-os',
    detail: "an image's OS is the registry's to say; check knows only a short list of Linux-only names",
  },
  scope: 'pod',
  family: 'images',
  severity: 'warning',
  title: 'Windows pod runs an image known to be Linux-only: the pull fails on Windows nodes (ImagePullBackOff).',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const { windows, linux } = splitImages(pod);
    if (windows.length > 0) return; // WIN084 says it
    for (const { c, why } of linux) {
      report({
        path: [...c.path, 'image'],
        target: 'value',
        message: `Image ${preview(c.image)} is Linux-only (${why}): its manifest has no Windows entry, so a Windows node cannot pull it (ImagePullBackOff). Use a Windows image, or run this workload on Linux nodes.`,
        related: inferredFrom(target),
      });
    }
  },
};

export const imageRules: PodRule[] = [WIN080, WIN081, WIN082, WIN083, WIN084, WIN085];
