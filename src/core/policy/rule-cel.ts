// The admission form of each rule that can be enforced: where in a pod spec it reports (CEL lists of the
// field paths it would name) and its sentence, taken from the rule's own module. The Windows decision
// and HostProcess membership are targeting-cel.ts's; the field lists are core/rules/helpers.ts's.
import { LINUX_ONLY_CONTAINER_FIELDS, LINUX_ONLY_POD_FIELDS } from '../rules/helpers';
import { win040Message, win041Message, win056Message } from '../rules/families/linux-only';
import { win054Message, win055Message } from '../rules/families/host-network';
import { win050Message } from '../rules/families/resources';
import { win051Message, win052Message } from '../rules/families/volumes';
import { at, present, str } from './cel';
import { hostProcessContainer, POLICY_CONTAINER_GROUPS, v } from './targeting-cel';
import { win013Message } from '../rules/families/host-process';

/**
 * One kind of finding of a rule. `pod` and `container` give a CEL list of field-path strings where it
 * reports (`p` is the CEL string of the pod spec's or the container's path prefix); `message` is the
 * rule's sentence for one of them, built from CEL string expressions.
 */
export interface CelFinding {
  pod?: (s: string, p: string) => string;
  container?: (c: string, p: string, group: (typeof POLICY_CONTAINER_GROUPS)[number]) => string;
  message: (field: string, note: string) => string;
}

export interface RuleCel {
  id: string;
  /** Only pods whose Windows target is inferred (declared ones are the API server's own validation's). */
  inferredOnly?: boolean;
  /** Every pod but a declared Linux one (HostProcess rules: HostProcess is Windows by itself). */
  notLinux?: boolean;
  /** Reads HostProcess membership (adds its variables). */
  hostProcess?: boolean;
  findings: CelFinding[];
}

/** CEL: `[field]` when `when` holds, else `[]`. */
const fieldIf = (when: string, field: string) => `(${when} ? [${field}] : [])`;
const join = (p: string, rel: string) => `${p} + ${str(`.${rel}`)}`;

const podFieldSet = (s: string, f: (typeof LINUX_ONLY_POD_FIELDS)[number]) => {
  const has = present(s, f.path);
  const value = at(s, f.path);
  return f.when === 'true'
    ? `${has} && ${value} == true`
    : f.when === 'nonEmpty'
      ? `${has} && size(${value}) > 0`
      : has;
};

/**
 * Hugepages quantities under `resources.limits|requests` of `base`, as field paths. Limits first: the API
 * server defaults a missing request to the limit before admission, and the document named the limit.
 */
const hugePages = (base: string, p: string) =>
  ['limits', 'requests']
    .map(
      (kind) =>
        `(${present(base, ['resources', kind])} ? ${at(base, ['resources', kind])}.filter(k, k.lowerAscii().startsWith('hugepages-')).map(k, ${join(p, `resources.${kind}.`)} + k) : [])`,
    )
    .join(' + ');

/** A container as the rules name it: `init container "name"` (preview's JSON quoting and 40-character cut). */
const containerWho = (c: string, group: (typeof POLICY_CONTAINER_GROUPS)[number]) => {
  const quoted = `'"' + ${c}.name + '"'`;
  return `${str(group === 'initContainers' ? 'init container ' : 'container ')} + (size(${c}.name) + 2 > 40 ? (${quoted}).substring(0, 39) + '…' : ${quoted})`;
};

const userSet = (base: string) =>
  `(${present(base, ['securityContext', 'windowsOptions', 'runAsUserName'])} && size(${base}.securityContext.windowsOptions.runAsUserName) > 0)`;

export const RULE_CEL: RuleCel[] = [
  {
    // The "field" of each finding is who sets no account: the sentence names no field path.
    id: 'WIN013',
    notLinux: true,
    hostProcess: true,
    findings: [
      {
        pod: (s) =>
          `(${v('podHostProcess')} && !${userSet(s)} && ${v('allContainers')}.exists(c, ${hostProcessContainer('c')} && !${userSet('c')}) ? ['HostProcess pod'] : [])`,
        message: (who) => win013Message(who),
      },
      {
        container: (c, _p, group) =>
          `(!${v('podHostProcess')} && !${userSet(v('spec'))} && ${hostProcessContainer(c)} && !${userSet(c)} ? ['HostProcess ' + ${containerWho(c, group)}] : [])`,
        message: (who) => win013Message(who),
      },
    ],
  },
  {
    id: 'WIN040',
    inferredOnly: true,
    hostProcess: true,
    findings: [
      {
        // shareProcessNamespace has its own rule (WIN056).
        pod: (s, p) =>
          LINUX_ONLY_POD_FIELDS.filter((f) => f.path[0] !== 'shareProcessNamespace')
            .map((f) => fieldIf(podFieldSet(s, f), join(p, f.path.join('.'))))
            .join(' + '),
        container: (c, p) =>
          LINUX_ONLY_CONTAINER_FIELDS.map((key) => {
            const has = present(c, ['securityContext', key]);
            // privileged: true on an ordinary container is WIN041's.
            const when =
              key === 'privileged'
                ? `${has} && !(${c}.securityContext.privileged && !${hostProcessContainer(c)})`
                : has;
            return fieldIf(when, join(p, `securityContext.${key}`));
          }).join(' + '),
        message: (field, note) => win040Message(field, note),
      },
    ],
  },
  {
    id: 'WIN041',
    inferredOnly: true,
    hostProcess: true,
    findings: [
      {
        container: (c, p) =>
          fieldIf(
            `${present(c, ['securityContext', 'privileged'])} && ${c}.securityContext.privileged && !${hostProcessContainer(c)}`,
            join(p, 'securityContext.privileged'),
          ),
        message: (field, note) => win041Message(field, note),
      },
    ],
  },
  {
    id: 'WIN050',
    findings: [
      {
        pod: (s, p) => hugePages(s, p),
        container: (c, p) => hugePages(c, p),
        message: (field, note) => win050Message(field, note),
      },
    ],
  },
  {
    id: 'WIN051',
    findings: [
      {
        pod: (s, p) =>
          `(has(${s}.volumes) ? ${s}.volumes.filter(x, ${present('x', ['emptyDir', 'medium'])} && x.emptyDir.medium == 'Memory').map(x, ${join(p, 'volumes[')} + string(${s}.volumes.indexOf(x)) + '].emptyDir.medium') : [])`,
        message: (field) => win051Message(field),
      },
    ],
  },
  {
    id: 'WIN052',
    findings: [
      {
        container: (c, p) =>
          fieldIf(`has(${c}.volumeDevices) && size(${c}.volumeDevices) > 0`, join(p, 'volumeDevices')),
        message: (field) => win052Message(field),
      },
    ],
  },
  {
    id: 'WIN054',
    hostProcess: true,
    findings: [
      {
        // HostProcess pods share the node's network and resolver.
        pod: (s, p) =>
          fieldIf(
            `has(${s}.dnsPolicy) && ${s}.dnsPolicy == 'ClusterFirstWithHostNet' && !${v('anyHostProcess')}`,
            join(p, 'dnsPolicy'),
          ),
        message: (field) => win054Message(field),
      },
    ],
  },
  {
    id: 'WIN055',
    hostProcess: true,
    findings: [
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.hostNetwork) && ${s}.hostNetwork && !${v('anyHostProcess')}`, join(p, 'hostNetwork')),
        message: (field) => win055Message(field),
      },
    ],
  },
  {
    id: 'WIN056',
    inferredOnly: true,
    findings: [
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.shareProcessNamespace) && ${s}.shareProcessNamespace`, join(p, 'shareProcessNamespace')),
        message: (field, note) => win056Message(field, note, true),
      },
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.shareProcessNamespace) && !${s}.shareProcessNamespace`, join(p, 'shareProcessNamespace')),
        message: (field, note) => win056Message(field, note, false),
      },
    ],
  },
];

export const RULE_CEL_BY_ID = new Map(RULE_CEL.map((r) => [r.id, r]));
