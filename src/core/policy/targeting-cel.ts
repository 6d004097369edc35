// The Windows targeting decision of core/rules/targeting.ts (declared by spec.os.name, or inferred from
// strong evidence unless Linux evidence says otherwise), as CEL variables of an admission policy. Built
// from the same description the checker reads (the OS labels, the build label, the toleration keys, the
// Windows repositories and tag words), so both decide alike; the parity suite on the real API server
// holds them to it. A RuntimeClass is another object, which a policy cannot read: a pod that only its
// RuntimeClass places on Windows is not a Windows pod here, as it is not for a check without the
// RuntimeClass (docs/admission-policies.md says so).
import { OS_LABELS, WINDOWS_TOLERATION_KEYS } from '../rules/targeting';
import { BUILD_LABEL } from '../well-known';
import { WINDOWS_REPOSITORIES, WINDOWS_TAG_WORDS } from '../windows/builds';
import { at, present, reLiteral, str, strList } from './cel';

export interface CelVariable {
  name: string;
  expression: string;
}

export const v = (name: string): string => `variables.${name}`;

/** The container groups a policy reads, in the checker's order (ephemeral containers cannot be set on create). */
export const POLICY_CONTAINER_GROUPS = ['initContainers', 'containers'] as const;

const WINDOWS_OPTIONS = ['securityContext', 'windowsOptions'];

/** windowsOptions that say something about the OS (meaningfulWindowsOptions): an account, gMSA, hostProcess: true. */
function meaningfulWindowsOptions(base: string): string {
  const w = at(base, WINDOWS_OPTIONS);
  return `(${present(base, WINDOWS_OPTIONS)} && (has(${w}.gmsaCredentialSpecName) || has(${w}.gmsaCredentialSpec) || has(${w}.runAsUserName) || (has(${w}.hostProcess) && ${w}.hostProcess)))`;
}

/** The image reference as parseImage reads it: lowercased, without the digest. */
const imageRef = (image: string) => `${image}.lowerAscii().split('@')[0]`;

/** RE2 over the reference for a Windows base repository (isWindowsBaseRepository). */
function repositoryPattern(): string {
  const alternatives = WINDOWS_REPOSITORIES.map((r) => {
    const repos = [
      ...r.names.map((n) => `${reLiteral(n)}(:[^/]*)?$`),
      ...r.prefixes.map((p) => {
        if (p.includes(':')) throw new Error(`a Windows repository prefix with a colon cannot be matched: ${p}`);
        return reLiteral(p);
      }),
    ].join('|');
    // Docker Hub is also the registry of a reference that names none (its first segment is no host).
    const registry = r.registry === 'docker.io' ? `(${reLiteral(r.registry)}/)?` : `${reLiteral(r.registry)}/`;
    if (r.registry === 'docker.io' && r.prefixes.concat(r.names).some((p) => /^[^/]*[.:]|^localhost\//.test(p)))
      throw new Error('a Docker Hub repository whose first segment looks like a registry');
    return `^${registry}(${repos})`;
  });
  return alternatives.join('|');
}

/** RE2 over the reference for one group of Windows tag words (the tag: after the last colon past the last slash). */
function tagPattern(words: (typeof WINDOWS_TAG_WORDS)[number]): string {
  const sep = `[${words.separators.replace(/[-\\\]^]/g, '\\$&')}]`;
  return `:([^:/]*${sep})?(${words.words.map(reLiteral).join('|')})(${sep}[^:/]*)?$`;
}

/** CEL: the image is Windows evidence (windowsImageEvidence). */
export function windowsImage(image: string): string {
  const pattern = [repositoryPattern(), ...WINDOWS_TAG_WORDS.map(tagPattern)].join('|');
  return `${imageRef(image)}.matches(${str(pattern)})`;
}

/** CEL string: windowsImageEvidence's words for an image that is Windows evidence. */
function windowsImageReason(image: string): string {
  const ref = imageRef(image);
  const bare = `(${ref}.matches(':[^:/]*$') ? ${ref}.substring(0, ${ref}.lastIndexOf(':')) : ${ref})`;
  const explicit = WINDOWS_REPOSITORIES.map((r) => `${bare}.startsWith(${str(`${r.registry}/`)})`).join(' || ');
  const repoReason = `((${explicit}) ? ${bare} : 'docker.io/' + ${bare}) + ' is a Windows base image'`;
  const raw = `${image}.split('@')[0]`;
  const tag = `${raw}.substring(${raw}.lastIndexOf(':') + 1)`;
  let tagReason = "''";
  for (const words of [...WINDOWS_TAG_WORDS].reverse())
    tagReason = `${ref}.matches(${str(tagPattern(words))}) ? 'tag ' + ${tag} + ${str(` ${words.says}`)} : (${tagReason})`;
  return `(${ref}.matches(${str(repositoryPattern())}) ? ${repoReason} : (${tagReason}))`;
}

const REQUIRED = ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
const osLabels = strList(OS_LABELS);
const values = (e: string) => `(has(${e}.values) ? ${e}.values : [])`;
const inOnly = (e: string, os: string) =>
  `(${e}.operator == 'In' && size(${values(e)}) > 0 && ${values(e)}.all(x, x.lowerAscii() == ${str(os)}))`;
const notInHas = (e: string, os: string) =>
  `(${e}.operator == 'NotIn' && ${values(e)}.exists(x, x.lowerAscii() == ${str(os)}))`;
const affinityWindows = (e: string) =>
  `((${e}.key in ${osLabels} && (${inOnly(e, 'windows')} || ${notInHas(e, 'linux')})) || (${e}.key == ${str(BUILD_LABEL)} && ${e}.operator == 'In' && size(${values(e)}) > 0))`;
const affinityLinux = (e: string) =>
  `(${e}.key in ${osLabels} && (${inOnly(e, 'linux')} || (${notInHas(e, 'windows')} && !${notInHas(e, 'linux')})))`;
const selIs = (s: string, label: string, os: string) =>
  `(has(${s}.nodeSelector) && ${str(label)} in ${s}.nodeSelector && ${s}.nodeSelector[${str(label)}].lowerAscii() == ${str(os)})`;
const containerEvidence = (c: string) =>
  `(${meaningfulWindowsOptions(c)} || (has(${c}.image) && ${windowsImage(`${c}.image`)}))`;

/** CEL list: the expressions of the only required node selector term (terms are ORed: one of several is no evidence). */
const termExpressions = (s: string) =>
  `(${present(s, REQUIRED)} && size(${at(s, REQUIRED)}) == 1 && has(${at(s, REQUIRED)}[0].matchExpressions) ? ${at(s, REQUIRED)}[0].matchExpressions : [])`;
/** CEL list: the tolerations of the Windows taints. */
const windowsTolerations = (s: string) =>
  `(has(${s}.tolerations) ? ${s}.tolerations.filter(t, has(t.key) && t.key in ${strList(WINDOWS_TOLERATION_KEYS)} && has(t.value) && t.value.lowerAscii() == 'windows') : [])`;

/** Where the evidence expressions read the spec's parts: variables in the validations, inline in a match condition. */
interface SpecParts {
  spec: string;
  termExpressions: string;
  windowsTolerations: string;
  allContainers: string;
}

/** Each kind of strong Windows evidence: when it holds (CEL bool) and its words (CEL string), in the checker's order. */
function evidence(p: SpecParts): { when: string; text: string }[] {
  const s = p.spec;
  const sel = `${s}.nodeSelector`;
  return [
    ...OS_LABELS.map((label) => ({
      when: selIs(s, label, 'windows'),
      text: `${str(`nodeSelector ${label}: `)} + ${sel}[${str(label)}]`,
    })),
    { when: `(has(${sel}) && ${str(BUILD_LABEL)} in ${sel})`, text: str(`nodeSelector ${BUILD_LABEL}`) },
    {
      when: `${p.termExpressions}.exists(e, ${affinityWindows('e')})`,
      text: `${p.termExpressions}.filter(e, ${affinityWindows('e')}).map(e, e.key == ${str(BUILD_LABEL)} ? ${str(`required node affinity on ${BUILD_LABEL}`)} : 'required node affinity ' + e.key + (e.operator == 'In' ? ' In [windows]' : ' NotIn [linux]'))[0]`,
    },
    {
      when: `size(${p.windowsTolerations}) > 0`,
      text: `${p.windowsTolerations}.map(t, 'tolerates the Windows taint ' + t.key + '=' + t.value)[0]`,
    },
    { when: meaningfulWindowsOptions(s), text: "'pod securityContext.windowsOptions'" },
    {
      when: `${p.allContainers}.exists(c, ${containerEvidence('c')})`,
      text: `${p.allContainers}.filter(c, ${containerEvidence('c')}).map(c, ${meaningfulWindowsOptions('c')} ? 'container ' + c.name + ' securityContext.windowsOptions' : ${windowsImageReason('c.image')})[0]`,
    },
  ];
}

/**
 * CEL bool over `object` alone (a match condition has no variables): whether any rule may report on the
 * object, so that a pod with no Windows evidence and no spec.os.name (most of a mixed cluster's Linux
 * pods) skips every validation. Every rule's own condition implies it: they report on Windows pods
 * (declared, or inferred from this evidence), on pods that set spec.os.name (WIN072), or on HostProcess
 * and gMSA settings (a meaningful windowsOptions, which is evidence here).
 */
export function mayConcernWindows(specPath: readonly string[]): string {
  const s = ['object', ...specPath].join('.');
  const groups = POLICY_CONTAINER_GROUPS.map((g) => `(has(${s}.${g}) ? ${s}.${g} : [])`);
  const parts: SpecParts = {
    spec: s,
    termExpressions: termExpressions(s),
    windowsTolerations: windowsTolerations(s),
    allContainers: `(${groups.join(' + ')})`,
  };
  return [`has(${s}.os)`, ...evidence(parts).map((e) => e.when)].join(' || ');
}

/**
 * The variables every policy starts with: the pod spec, its containers, and whether it targets Windows
 * (declared, or inferred) with the evidence's words for messages.
 */
export function targetingVariables(specPath: readonly string[]): CelVariable[] {
  const s = v('spec');
  const reasons = evidence({
    spec: s,
    termExpressions: v('termExpressions'),
    windowsTolerations: v('windowsTolerations'),
    allContainers: v('allContainers'),
  });
  let reason = "'no Windows evidence'";
  for (const r of [...reasons].reverse()) reason = `${r.when} ? ${r.text} : (${reason})`;
  return [
    { name: 'spec', expression: ['object', ...specPath].join('.') },
    ...POLICY_CONTAINER_GROUPS.map((g) => ({ name: g, expression: `has(${s}.${g}) ? ${s}.${g} : []` })),
    { name: 'allContainers', expression: POLICY_CONTAINER_GROUPS.map(v).join(' + ') },
    { name: 'osName', expression: `${present(s, ['os', 'name'])} ? ${s}.os.name : ''` },
    { name: 'declared', expression: `${v('osName')} == 'windows'` },
    { name: 'termExpressions', expression: termExpressions(s) },
    { name: 'windowsTolerations', expression: windowsTolerations(s) },
    {
      name: 'linuxEvidence',
      expression: [
        ...OS_LABELS.map((l) => selIs(s, l, 'linux')),
        `${v('termExpressions')}.exists(e, ${affinityLinux('e')})`,
      ].join(' || '),
    },
    {
      name: 'windowsEvidence',
      expression: reasons.map((r) => r.when).join(' || '),
    },
    {
      name: 'windows',
      expression: `${v('declared')} || (${v('osName')} != 'linux' && !${v('linuxEvidence')} && ${v('windowsEvidence')})`,
    },
    { name: 'inferredNote', expression: `${v('declared')} ? '' : ' (Windows inferred from ' + (${reason}) + ')'` },
  ];
}

/** CEL: whether the pod is a HostProcess pod's container list member (hostProcessInfo): its own value, else the pod's. */
export function hostProcessContainer(c: string): string {
  const w = at(c, WINDOWS_OPTIONS);
  return `(${present(c, [...WINDOWS_OPTIONS, 'hostProcess'])} ? ${w}.hostProcess : ${v('podHostProcess')})`;
}

/** Variables for HostProcess membership, added to a policy when a rule reads it. */
export function hostProcessVariables(): CelVariable[] {
  const s = v('spec');
  return [
    {
      name: 'podHostProcess',
      expression: `${present(s, [...WINDOWS_OPTIONS, 'hostProcess'])} && ${at(s, [...WINDOWS_OPTIONS, 'hostProcess'])}`,
    },
    { name: 'anyHostProcess', expression: `${v('allContainers')}.exists(c, ${hostProcessContainer('c')})` },
  ];
}
