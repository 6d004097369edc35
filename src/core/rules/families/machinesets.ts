// Windows MachineSets and Machines (machine.openshift.io/v1beta1): what WMCO needs to turn the
// machines into nodes (labels, user data), what the clouds accept (names, images, OS disk), what the
// Machine API webhook rejects (selector), documentation placeholders left in, and, with cluster
// facts or --openshift-version, the OpenShift release's platform and Windows Server support.

import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import {
  isWindowsMachine,
  MACHINE_NAME_SUFFIX,
  machineView,
  MAX_MACHINE_NAME,
  placeholdersIn,
  SHORT_NAME_PLATFORMS,
  type MachinePlatform,
  type MachineView,
} from '../../openshift/machines';
import {
  PLATFORM_SUPPORT,
  parseOpenShiftRelease,
  platformVerdict,
  serverVerdict,
  windowsPlatform,
} from '../../openshift/windows-support';
import {
  KEY_SECRET,
  WORKER_USER_DATA_SECRET,
  MACHINE_OS_ID_LABEL,
  MACHINE_OS_ID_WINDOWS,
  MACHINE_ROLE_LABEL,
  MACHINE_TYPE_LABEL,
  WINDOWS_USER_DATA_SECRET,
  WMCO_NAMESPACE,
  WORKER_ROLE_LABEL,
} from '../../well-known';
import type { FixSpec, ObjectContext, ObjectRule, Reporter, Rule, Severity } from '../types';

const KINDS = ['MachineSet', 'Machine'];

const views = new WeakMap<Obj, MachineView | null>();

/** The view of a Windows MachineSet or Machine, computed once per object and shared by the rules. */
function windowsMachine(ctx: ObjectContext): MachineView | undefined {
  let view = views.get(ctx.object.value);
  if (view === undefined) {
    const v = machineView(ctx.object);
    view = v && isWindowsMachine(v) ? v : null;
    views.set(ctx.object.value, view);
  }
  return view ?? undefined;
}

function rule(
  id: string,
  severity: Severity,
  title: string,
  check: (v: MachineView, ctx: ObjectContext, report: Reporter) => void,
  meta: Pick<ObjectRule, 'apiRejects'> = {},
): ObjectRule {
  return {
    id,
    scope: 'object',
    family: 'machinesets',
    severity,
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about MachineSets and Machines' },
    ...meta,
    title,
    kinds: KINDS,
    check(ctx, report) {
      const v = windowsMachine(ctx);
      if (v) check(v, ctx, report);
    },
  };
}

function what(v: MachineView): string {
  return `${v.kind}${v.object.name ? ` ${preview(v.object.name, 80)}` : ''}`;
}

/** Where the machines' labels are, as the API prints it. */
function labelsField(v: MachineView): string {
  return v.kind === 'MachineSet' ? 'spec.template.metadata.labels' : 'metadata.labels';
}

const PLATFORM_IMAGE_HINT: Record<MachinePlatform, string> = {
  AWS: 'a Windows Server AMI of the cluster’s region (ami.id)',
  Azure:
    'a Windows Server marketplace image (publisher: MicrosoftWindowsServer, offer: WindowsServer, sku: 2022-datacenter)',
  GCP: 'a Windows image family, e.g. projects/windows-cloud/global/images/family/windows-2022-core',
  VSphere: 'a Windows Server golden-image template (see WMCO’s docs/vsphere-golden-image.md)',
  Nutanix: 'a Windows Server image uploaded to Prism Central (image.name)',
};

// ---------------------------------------------------------------------------------------------
// WIN086: the os-id label WMCO selects machines by

const WIN086 = rule(
  'WIN086',
  'error',
  'Windows MachineSet or Machine (by its image, its windows-user-data secret, a Windows node label or its name) without machine.openshift.io/os-id: Windows (exactly): WMCO ignores its machines, which boot and never become nodes.',
  (v, _ctx, report) => {
    const labels = [...v.metadataPath, 'labels'];
    const path = [...labels, MACHINE_OS_ID_LABEL];
    const fix = {
      title: `Set ${MACHINE_OS_ID_LABEL}: ${MACHINE_OS_ID_WINDOWS}`,
      // A wrongly cased value corrected keeps the meaning; a label added or replaced changes the machines.
      kind:
        v.osId !== undefined && String(v.osId).toLowerCase() === MACHINE_OS_ID_WINDOWS.toLowerCase()
          ? 'safe'
          : 'rewrite',
      ops: [{ op: 'set' as const, path, value: MACHINE_OS_ID_WINDOWS }],
    } satisfies FixSpec;
    if (v.osId === undefined) {
      const why =
        v.image?.os === 'windows'
          ? `boots the Windows image ${preview(v.image.text, 120)}`
          : `is meant to be Windows (its ${v.otherSignal?.words ?? 'configuration says so'})`;
      report({
        path: labels,
        message: `${what(v)} ${why} but ${labelsField(v)} lacks ${MACHINE_OS_ID_LABEL}: ${MACHINE_OS_ID_WINDOWS}, the label WMCO selects Windows machines by, so WMCO never configures them: the VMs start and never become nodes. Add the label.`,
        ...(v.image?.os !== 'windows' && v.otherSignal
          ? {
              related: [
                { path: v.otherSignal.path, target: 'value' as const, message: `Windows: ${v.otherSignal.words}` },
              ],
            }
          : {}),
        fixes: [fix],
      });
      return;
    }
    if (v.osId === MACHINE_OS_ID_WINDOWS) return;
    report({
      path,
      target: 'value',
      message: `WMCO selects machines whose ${MACHINE_OS_ID_LABEL} is exactly "${MACHINE_OS_ID_WINDOWS}" (case-sensitive); ${preview(v.osId, 60)} does not match, so WMCO never configures the machines of ${what(v)}: they boot and never become nodes. Set it to ${MACHINE_OS_ID_WINDOWS}.`,
      fixes: [fix],
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN087: the user-data secret

const WIN087 = rule(
  'WIN087',
  'error',
  'Windows MachineSet or Machine whose userDataSecret is not windows-user-data (worker-user-data is the Linux one): the machine boots and never becomes a node.',
  (v, _ctx, report) => {
    if (!v.provider) return;
    const secretPath = [...v.providerPath, 'userDataSecret'];
    const namePath = [...secretPath, 'name'];
    const name = getAt(v.provider, ['userDataSecret', 'name']);
    const fix = {
      title: `Use the secret ${WINDOWS_USER_DATA_SECRET}`,
      kind: 'rewrite' as const,
      ops: [{ op: 'set' as const, path: namePath, value: WINDOWS_USER_DATA_SECRET }],
    };
    if (name === WINDOWS_USER_DATA_SECRET) return;
    if (typeof name !== 'string' || name === '') {
      report({
        path: isObj(getAt(v.provider, ['userDataSecret'])) ? secretPath : v.providerPath,
        message: `${what(v)} names no user-data secret, so its Windows VMs get none of the setup WMCO puts in ${WINDOWS_USER_DATA_SECRET} (the SSH key WMCO connects with) and never become nodes. Set providerSpec.value.userDataSecret.name: ${WINDOWS_USER_DATA_SECRET}.`,
        fixes: [fix],
      });
      return;
    }
    const linux = name === WORKER_USER_DATA_SECRET;
    report({
      path: namePath,
      target: 'value',
      severity: linux ? 'error' : 'warning',
      message: linux
        ? `${WORKER_USER_DATA_SECRET} is the Linux workers' Ignition user data: a Windows VM ignores it, never gets the SSH key WMCO connects with, and never becomes a node. Use ${WINDOWS_USER_DATA_SECRET}, which WMCO creates in openshift-machine-api.`
        : `WMCO creates and keeps up to date only ${WINDOWS_USER_DATA_SECRET} (it holds the public key of ${KEY_SECRET}); machines that boot with ${preview(name, 80)} miss WMCO's setup, or go stale when the key changes, and do not become nodes. Use ${WINDOWS_USER_DATA_SECRET}.`,
      fixes: [fix],
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN088: the worker labels

const WIN088 = rule(
  'WIN088',
  'warning',
  'Windows MachineSet or Machine without the worker labels WMCO documents (cluster-api-machine-role/-type, node-role.kubernetes.io/worker on the machine spec): the node is not marked as a worker.',
  (v, _ctx, report) => {
    const labels = [...v.metadataPath, 'labels'];
    for (const label of [MACHINE_ROLE_LABEL, MACHINE_TYPE_LABEL]) {
      if (v.labels[label] !== undefined && v.labels[label] !== null) continue;
      report({
        path: labels,
        message: `${labelsField(v)} of ${what(v)} lacks ${label}: worker, one of the labels WMCO's MachineSet instructions require; without it the Windows node is not marked as a worker. Add it (or the role of your own machine pool).`,
        fixes: [
          {
            title: `Add ${label}: worker`,
            kind: 'rewrite',
            ops: [{ op: 'set', path: [...labels, label], value: 'worker' }],
          },
        ],
      });
    }
    const nodeLabelsPath = [...v.specPath, 'metadata', 'labels'];
    const nodeLabels = getAt(v.object.value, nodeLabelsPath.slice(v.object.path.length));
    if (isObj(nodeLabels) && Object.keys(nodeLabels).some((k) => k.startsWith('node-role.kubernetes.io/'))) return;
    const field = v.kind === 'MachineSet' ? 'spec.template.spec.metadata.labels' : 'spec.metadata.labels';
    report({
      path: isObj(nodeLabels) ? nodeLabelsPath : v.specPath,
      message: `${field} of ${what(v)} has no ${WORKER_ROLE_LABEL}: "" (the label the machine gives its node), so the Windows node is not marked as a worker. Add it.`,
      fixes: [
        {
          title: `Add ${WORKER_ROLE_LABEL}: ""`,
          kind: 'rewrite',
          ops: [{ op: 'set', path: [...nodeLabelsPath, WORKER_ROLE_LABEL], value: '' }],
        },
      ],
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN089: Windows machine names of at most 15 characters on Azure and vSphere

const WIN089 = rule(
  'WIN089',
  'error',
  'Windows MachineSet name longer than 9 characters (Machine name longer than 15) on Azure or vSphere: Windows machine names are limited to 15 characters there.',
  (v, _ctx, report) => {
    if (!v.platform || !SHORT_NAME_PLATFORMS.includes(v.platform)) return;
    const name = v.object.name;
    if (!name || /[<>]/.test(name)) return;
    const machineName = v.kind === 'MachineSet' ? `${name}-xxxxx` : name;
    const length = v.kind === 'MachineSet' ? name.length + MACHINE_NAME_SUFFIX : name.length;
    if (length <= MAX_MACHINE_NAME) return;
    const limit =
      v.kind === 'MachineSet'
        ? `a MachineSet name of at most ${MAX_MACHINE_NAME - MACHINE_NAME_SUFFIX} characters (WMCO's examples use winworker)`
        : `a Machine name of at most ${MAX_MACHINE_NAME} characters`;
    const consequence =
      v.platform === 'Azure'
        ? 'Azure refuses to create such a Windows VM, so the machines fail to provision'
        : 'the Windows guest cannot take that name, so the machines do not become nodes';
    report({
      path: [...v.object.path, 'metadata', 'name'],
      target: 'value',
      message: `On ${PLATFORM_SUPPORT[v.platform].label} a Windows machine's name is its computer name, at most ${MAX_MACHINE_NAME} characters; ${v.kind === 'MachineSet' ? `the machines of this MachineSet are named ${preview(machineName, 80)}` : 'this Machine is named so'} (${length} characters), and ${consequence}. Use ${limit}.`,
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN090: documentation placeholders left in

const INFRA_ID = /^<infrastructure[ _-]?id>$/i;

function placeholderHint(placeholder: string): string {
  const p = placeholder.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (p === 'infrastructureid')
    return `replace ${placeholder} with the cluster's infrastructure name (oc get -o jsonpath='{.status.infrastructureName}' infrastructure cluster)`;
  if (p.includes('ami'))
    return `replace ${placeholder} with the id of a Windows Server AMI in the cluster's region (aws ec2 describe-images --owners amazon --filters "Name=name,Values=Windows_Server-2022-English-Full-Base-*")`;
  if (/zone|region|location/.test(p))
    return `replace ${placeholder} with the value the cluster's Linux worker MachineSets use (oc get machinesets -n openshift-machine-api -o yaml)`;
  if (p.includes('image') || p.includes('template'))
    return `replace ${placeholder} with the name of a supported Windows Server image or template`;
  return `replace ${placeholder} with the value from your environment`;
}

const WIN090 = rule(
  'WIN090',
  'error',
  'Documentation placeholder (<infrastructureID>, <windows_server_ami>, <zone> ...) left in a Windows MachineSet or Machine: rejected in names and labels, unresolvable by the cloud elsewhere.',
  (v, ctx, report) => {
    const infra = ctx.facts.cluster?.openshift?.infrastructureName;
    for (const hit of placeholdersIn(v.object.value, v.object.path)) {
      const rel = hit.path.slice(v.object.path.length);
      const inNameOrLabels =
        (rel[0] === 'metadata' && (rel[1] === 'name' || rel[1] === 'labels')) ||
        rel.includes('labels') ||
        rel.includes('matchLabels');
      const effect = inNameOrLabels
        ? 'the API server rejects it in a name or label'
        : `the ${v.platform ? PLATFORM_SUPPORT[v.platform].label : 'cloud'} provider cannot resolve it, so the machines fail to provision`;
      const fixable = infra !== undefined && hit.placeholders.every((p) => INFRA_ID.test(p));
      const hints = fixable
        ? [`replace it with this cluster's infrastructure name ${preview(infra, 80)}`]
        : hit.placeholders.map(placeholderHint);
      report({
        path: hit.path,
        target: 'value',
        message: `${hit.placeholders.join(', ')} ${hit.placeholders.length > 1 ? 'are placeholders' : 'is a placeholder'} from the documentation template: ${effect}. ${hints.join('; ').replace(/^./, (c) => c.toUpperCase())}.`,
        fixes: fixable
          ? [
              {
                title: `Replace with ${infra}`,
                kind: 'rewrite',
                ops: [{ op: 'set', path: hit.path, value: hit.text.replace(/<infrastructure[ _-]?id>/gi, infra) }],
              },
            ]
          : [],
      });
    }
  },
);

// ---------------------------------------------------------------------------------------------
// WIN091: selector and template labels

function labelValue(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

function hasPlaceholder(s: string): boolean {
  return /<[^<>]+>/.test(s);
}

const WEBHOOK_WORDS = 'spec.template.metadata.labels: Invalid value: …: `selector` does not match template `labels`';

const WIN091 = rule(
  'WIN091',
  'error',
  'Windows MachineSet whose spec.selector does not match its template labels: the Machine API admission webhook rejects it.',
  (v, _ctx, report) => {
    if (v.kind !== 'MachineSet') return;
    const selectorPath = [...v.object.path, 'spec', 'selector'];
    const selector = getAt(v.object.value, ['spec', 'selector']);
    if (!isObj(selector)) return;
    const templateLabels = [...v.metadataPath, 'labels'];
    const tail = `The Machine API admission webhook rejects the MachineSet (${WEBHOOK_WORDS}).`;
    const matchLabels = selector.matchLabels;
    if (isObj(matchLabels)) {
      for (const [key, raw] of Object.entries(matchLabels)) {
        const want = labelValue(raw);
        if (want === undefined) continue;
        const have = labelValue(v.labels[key]);
        // A placeholder on either side is WIN090's finding; comparing it says nothing.
        if (have === want || hasPlaceholder(want) || (have !== undefined && hasPlaceholder(have))) continue;
        report({
          path: [...selectorPath, 'matchLabels', key],
          target: 'value',
          message: `spec.selector requires ${key}=${preview(want, 80)} but the template labels ${have === undefined ? 'lack it' : `say ${preview(have, 80)}`}. ${tail}`,
          fixes: [
            {
              title: `Set the template label ${key}: ${want}`,
              kind: 'rewrite',
              ops: [{ op: 'set', path: [...templateLabels, key], value: want }],
            },
          ],
          ...(have !== undefined
            ? { related: [{ path: [...templateLabels, key], target: 'value' as const, message: 'template label' }] }
            : {}),
        });
      }
    }
    const expressions = selector.matchExpressions;
    if (!Array.isArray(expressions)) return;
    expressions.forEach((e, i) => {
      if (!isObj(e) || typeof e.key !== 'string' || typeof e.operator !== 'string') return;
      const values = Array.isArray(e.values)
        ? e.values.map(labelValue).filter((x): x is string => x !== undefined)
        : [];
      const have = labelValue(v.labels[e.key]);
      const ok =
        e.operator === 'In'
          ? have !== undefined && values.includes(have)
          : e.operator === 'NotIn'
            ? have === undefined || !values.includes(have)
            : e.operator === 'Exists'
              ? have !== undefined
              : e.operator === 'DoesNotExist'
                ? have === undefined
                : true;
      if (ok) return;
      report({
        path: [...selectorPath, 'matchExpressions', i],
        message: `spec.selector's expression ${e.key} ${e.operator}${values.length > 0 ? ` (${values.map((x) => preview(x, 40)).join(', ')})` : ''} does not match the template labels (${e.key} ${have === undefined ? 'is not set' : `is ${preview(have, 40)}`}). ${tail}`,
      });
    });
  },
  { apiRejects: true },
);

// ---------------------------------------------------------------------------------------------
// WIN092: a Linux image under a Windows label

const WIN092 = rule(
  'WIN092',
  'error',
  'Windows-labelled MachineSet or Machine with a Linux (RHCOS) image: the machine boots Linux and never becomes a Windows node.',
  (v, _ctx, report) => {
    if (v.image?.os !== 'linux' || v.osId === undefined || !v.platform) return;
    report({
      path: v.image.path,
      target: 'value',
      message: `${what(v)} is labelled ${MACHINE_OS_ID_LABEL}: ${preview(v.osId, 40)} but boots ${preview(v.image.text, 120)}, a Linux image (${v.image.evidence ?? 'RHCOS'}): the machine starts Linux, WMCO cannot configure it, and it never becomes a Windows node. Use ${PLATFORM_IMAGE_HINT[v.platform]}.`,
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN093: platform image sanity, whatever the release

const WIN093 = rule(
  'WIN093',
  'error',
  'Windows machine image the platform cannot use: Azure osDisk.osType not Windows, a Windows Server version no OpenShift release supports there, a GCP image outside the Windows families.',
  (v, _ctx, report) => {
    const image = v.image;
    if (!v.platform || !v.provider || !image) return;
    const platform = v.platform;
    const label = PLATFORM_SUPPORT[platform].label;
    if (platform === 'Azure' && image.os === 'windows') {
      const osType = getAt(v.provider, ['osDisk', 'osType']);
      if (osType !== 'Windows') {
        const osDisk = isObj(getAt(v.provider, ['osDisk'])) ? [...v.providerPath, 'osDisk'] : v.providerPath;
        report({
          path: osType === undefined ? osDisk : [...v.providerPath, 'osDisk', 'osType'],
          target: osType === undefined ? 'key' : 'value',
          message: `${what(v)} boots the Windows image ${preview(image.text, 120)} with osDisk.osType ${osType === undefined ? 'unset (Linux)' : preview(osType, 40)}: the Azure machine controller then builds a Linux OS profile, which Azure cannot apply to a Windows image, so the machines fail to provision. Set osDisk.osType: Windows.`,
          fixes: [
            {
              title: 'Set osDisk.osType: Windows',
              kind: 'rewrite',
              ops: [{ op: 'set', path: [...v.providerPath, 'osDisk', 'osType'], value: 'Windows' }],
            },
          ],
        });
      }
    }
    const version =
      image.otherWindows ??
      (image.server && !PLATFORM_SUPPORT[platform].servers[image.server]
        ? `Windows Server ${image.server}`
        : undefined);
    if (version) {
      const supported = Object.keys(PLATFORM_SUPPORT[platform].servers).map((s) => `Windows Server ${s}`);
      report({
        path: image.path,
        target: 'value',
        message: `${preview(image.text, 120)} is ${version}, which no OpenShift release supports on ${label} (WMCO documents ${supported.join(', ')} there); WMCO fails to configure such machines. Use ${PLATFORM_IMAGE_HINT[platform]}.`,
      });
    }
    if (platform === 'GCP' && image.os === 'unknown' && !/[<>]/.test(image.text)) {
      report({
        path: image.path,
        target: 'value',
        severity: 'warning',
        message: `The boot image ${preview(image.text, 120)} of ${what(v)} is not from a Windows image family, but the machines are labelled for Windows; WMCO can only configure Windows Server. Use ${PLATFORM_IMAGE_HINT.GCP}.`,
      });
    }
  },
);

// ---------------------------------------------------------------------------------------------
// WIN094: the OpenShift release's platform and Windows Server support (cluster facts or --openshift-version)

const WIN094 = rule(
  'WIN094',
  'error',
  'Windows MachineSet for a platform or Windows Server version the cluster’s OpenShift release does not support (with cluster facts or --openshift-version), or for another platform than the cluster’s.',
  (v, ctx, report) => {
    const os = ctx.facts.cluster?.openshift;
    if (!os || !v.platform || !v.provider) return;
    const kindPath = [...v.providerPath, 'kind'];
    const clusterPlatform = os.platform;
    if (clusterPlatform && windowsPlatform(clusterPlatform) !== v.platform) {
      report({
        path: isObj(v.provider) && typeof v.provider.kind === 'string' ? kindPath : v.providerPath,
        target: 'value',
        severity: 'warning',
        message: `This providerSpec is for ${PLATFORM_SUPPORT[v.platform].label}, but cluster ${preview(ctx.facts.cluster?.name ?? '', 60)} runs on ${preview(clusterPlatform, 40)}: its Machine API cannot create these machines. Start from one of the cluster's own Linux worker MachineSets.`,
      });
      return;
    }
    const release = os.version ? parseOpenShiftRelease(os.version) : undefined;
    if (!release) return;
    const platform = platformVerdict(v.platform, release);
    if (!platform.supported) {
      report({
        path: typeof v.provider.kind === 'string' ? kindPath : v.providerPath,
        target: 'value',
        message: `${platform.reason}: WMCO does not configure these machines there.`,
      });
      return;
    }
    const server = v.image?.server;
    if (!server || !v.image || !PLATFORM_SUPPORT[v.platform].servers[server]) return;
    const verdict = serverVerdict(v.platform, server, release);
    if (verdict.supported) return;
    report({
      path: v.image.path,
      target: 'value',
      message: `${verdict.reason}: WMCO fails to configure such machines. Use ${PLATFORM_IMAGE_HINT[v.platform]} of a version this release supports.`,
    });
  },
);

// ---------------------------------------------------------------------------------------------
// WIN095: cluster prerequisites for Windows machines

const WIN095 = rule(
  'WIN095',
  'error',
  'Windows MachineSet for a cluster without WMCO, without the cloud-private-key secret, or without hybrid OVN-Kubernetes networking (cluster facts): its machines never become nodes.',
  (v, ctx, report) => {
    const os = ctx.facts.cluster?.openshift;
    if (!os) return;
    const cluster = preview(ctx.facts.cluster?.name ?? '', 60);
    const path: Path =
      v.osId !== undefined ? [...v.metadataPath, 'labels', MACHINE_OS_ID_LABEL] : [...v.object.path, 'kind'];
    const target = v.osId !== undefined ? ('key' as const) : ('value' as const);
    const problems: string[] = [];
    if (os.wmcoInstalled === false)
      problems.push(
        `WMCO is not installed in cluster ${cluster}, so nothing configures these Windows machines and ${WINDOWS_USER_DATA_SECRET} does not exist: install the Windows Machine Config Operator first`,
      );
    else if (os.cloudPrivateKey === false)
      problems.push(
        `the secret ${KEY_SECRET} is missing from ${WMCO_NAMESPACE} in cluster ${cluster}: WMCO needs it to create ${WINDOWS_USER_DATA_SECRET} and to reach the machines over SSH; create it (oc create secret generic ${KEY_SECRET} --from-file=private-key.pem=KEY -n ${WMCO_NAMESPACE})`,
      );
    if (os.networkType !== undefined && os.networkType !== 'OVNKubernetes')
      problems.push(
        `cluster ${cluster} uses ${preview(os.networkType, 40)}, and WMCO requires OVN-Kubernetes with hybrid networking`,
      );
    else if (os.hybridOverlay === false)
      problems.push(
        `cluster ${cluster} has no hybrid overlay configured, and WMCO refuses to work ("cluster is not configured for OVN hybrid networking")`,
      );
    for (const p of problems)
      report({ path, target, message: `The machines of ${what(v)} will not become nodes: ${p}.` });
  },
);

export const machineSetRules: Rule[] = [WIN086, WIN087, WIN088, WIN089, WIN090, WIN091, WIN092, WIN093, WIN094, WIN095];
